"""Session 25: the host time of one call (the CPU's side of a decode step), ours against PyTorch's.
The GPU is kept busy by torch.cuda._sleep while the calls are enqueued, so the host never waits
for it and the wall time of N enqueued calls over N is the host's cost per call (launch included).
Shapes: Llama-3 8B's down and up projections at 16 tokens, FP8 (ours vs torch._scaled_mm) and bf16
(ours vs torch.mm)."""
import statistics, time, torch
import blackwell_ops

dev = "cuda"
N = 200


def host_us(fn):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(7):
        torch.cuda._sleep(2_000_000_000 // 1000 * 60)  # ~60 ms of GPU time at ~2 GHz
        t0 = time.perf_counter()
        for _ in range(N):
            fn()
        runs.append((time.perf_counter() - t0) / N * 1e6)
        torch.cuda.synchronize()
    return statistics.median(runs)


print(torch.cuda.get_device_name(), torch.__version__)
for (m, n, k) in ((16, 4096, 14336), (16, 14336, 4096)):
    a = (torch.randn(m, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    ab, bb = a.to(torch.bfloat16), b.to(torch.bfloat16)
    rows = {
        "fp8 op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                   scale_b=sb),
        "fp8 torch._scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
        "bf16 op": lambda: blackwell_ops.gemm_axpby(ab, bb),
        "bf16 torch.mm": lambda: torch.mm(ab, bb),
        "bf16 torch.ops.bw.gemm_axpby": lambda: torch.ops.bw.gemm_axpby(ab, bb),
    }
    for name, fn in rows.items():
        print(f"{m}x{n}x{k} {name:30s} host {host_us(fn):6.1f} us/call")
