"""128x128 against 128x256 FP8 overlap kernels, side by side (run_kernel, same operands, 10 reps a
round, 4 rounds with the order rotated), with torch._scaled_mm and the op (planner)."""
import statistics, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_"
t = Timer("cuda")
for (M, N, K) in [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 4096, 14336), (8192, 14336, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    fns = {"op": lambda: torch.ops.bw.gemm_axpby(a, b, None, 1.0, 0.0, torch.bfloat16, one, one),
           "scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for tile in ("128x128x128", "128x256x128"):
        name = f"{P}{tile}_c2x1_coop_fp8overlap_axpby"
        fns[tile] = lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=10)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items())
          + f"  | 256 vs 128: {med['128x128x128'] / med['128x256x128']:.3f}x, op vs scaled_mm: {med['scaled_mm'] / med['op']:.3f}x"
          + f"  plan: {_C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, one, one)}")
