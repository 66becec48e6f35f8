"""Stream-K for the 128x128 FP8 kernel's last partial wave: the persistent kernel (data-parallel)
against the stream-K kernel in data-parallel, stream-K and CUTLASS-heuristic modes, and
torch._scaled_mm, side by side in long bursts (REPS a provider a round, 4 rounds rotated).
Also each one's error against an fp32 product (the split k-ranges must not change the numerics)."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
for (M, N, K) in [(8192, 8192, 8192), (8192, 4096, 14336), (8192, 14336, 4096), (4096, 4096, 4096), (200, 136, 1488 * 4)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    rk = lambda name, sched: (lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, sched, one, one))
    fns = {"scaled_mm": lambda: (None, torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)),
           "persistent": rk(P + "_axpby", None),
           "sk_dp": rk(P + "_sk_axpby", dict(decomposition="data_parallel")),
           "sk_streamk": rk(P + "_sk_axpby", dict(decomposition="stream_k")),
           "sk_heur": rk(P + "_sk_axpby", dict(decomposition="heuristic"))}
    errs = {}
    for k, f in fns.items():
        out = f()
        assert out[1] is not None, (k, out[0])
        errs[k] = ((out[1].float() - ref).norm() / ref.norm()).item()
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K}: " + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x, err {errs[k]:.2e})" for k, v in med.items()), flush=True)
