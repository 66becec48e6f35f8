"""Tile order (swizzle 1/2/4/8, raster heuristic) of the 128x128 FP8 kernel vs torch._scaled_mm,
side by side in long bursts (REPS a provider a round, 4 rounds rotated), L2 flushed per run."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
name = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096), (16384, 8192, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for s in (1, 2, 4, 8):
        fns[f"swz{s}"] = lambda s=s: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, dict(swizzle=s), one, one)
    fns["op"] = lambda: torch.ops.bw.gemm_axpby(a, b, None, 1.0, 0.0, torch.bfloat16, one, one)
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K}: " + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items()), flush=True)
