"""Session 6: ping-pong on the overlapped FP8 mainloop (64x128 c2x1/c1x2, 64x256 c2x1) against the
cooperative 128x128 / 128x256 kernels and torch._scaled_mm, side by side in long bursts (REPS a
provider a round, 4 rounds rotated). Plain through run_kernel, fused bias + gelu_tanh through the op
pinned. Also each kernel's error against an fp32 product, and the clock/power after each burst."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_"
PLAIN = {"coop128": "128x128x128_c2x1_coop_fp8overlap", "pp64x128": "64x128x128_c2x1_pingpong_fp8overlap",
         "pp64x128c12": "64x128x128_c1x2_pingpong_fp8overlap", "pp64x256": "64x256x128_c2x1_pingpong_fp8overlap"}
FUSED = {"coop128": "128x128x128_c2x1_coop_fp8overlap", "coop256": "128x256x128_c2x1_coop_fp8overlap",
         "pp64x128": "64x128x128_c2x1_pingpong_fp8overlap", "pp64x256": "64x256x128_c2x1_pingpong_fp8overlap"}
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
def clk():
    try:
        return f"{torch.cuda.clock_rate()}MHz {torch.cuda.power_draw() / 1000:.0f}W"
    except Exception as e:  # noqa: BLE001
        return f"(no nvml: {type(e).__name__})"
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "scaled_mm+gelu": lambda: torch.nn.functional.gelu(
               torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16) + bias, approximate="tanh")}
    errs = {}
    for k, v in PLAIN.items():
        name = f"{P}{v}_axpby"
        fns[k] = lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)
        d = fns[k]()
        assert d[1] is not None, (k, d[0])
        d = d[1].float()
        errs[k] = ((d - ref).norm() / ref.norm()).item()
    for k, v in FUSED.items():
        fname = f"{P}{v}_fused_gelu_tanh"
        def fused(fname=fname):
            _C.pin_kernel(fname)
            try:
                return torch.ops.bw.gemm_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", False, torch.bfloat16, one, one)
            finally:
                _C.pin_kernel("")
        fns[k + "+gelu"] = fused
        r = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        errs[k + "+gelu"] = ((fused()[0].float() - r).norm() / r.norm()).item()
    times = {k: [] for k in fns}
    names = list(fns)
    power = {}
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
            power[k] = clk()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}x4:", flush=True)
    for k in names:
        peer = med["scaled_mm+gelu" if "gelu" in k else "scaled_mm"]
        print(f"  {k:16s} {med[k]:.4f} ms  scaled_mm/this {peer / med[k]:.3f}x  err {errs.get(k, float('nan')):.2e}  {power[k]}", flush=True)
