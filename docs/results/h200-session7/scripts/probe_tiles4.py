"""Session 7: plain FP8 (e4m3 -> bf16) on the overlap kernels with chained groups, 128x128 / 128x192 /
128x256 tiles (run_kernel) beside torch._scaled_mm, REPS a provider a round, 4 rounds rotated."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for (M, N, K) in [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 14336, 4096), (8192, 4096, 14336)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    ref = fns["scaled_mm"]().float()
    for tile in ("128x128x128", "128x192x128", "128x256x128"):
        name = f"{P}{tile}_c2x1_coop_fp8overlap_axpby"
        fns[tile] = lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)[1]
        err = ((fns[tile]().float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, (tile, err)
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items())
          + "  | vs scaled_mm: " + "  ".join(f"{k} {med['scaled_mm'] / med[k]:.3f}x" for k in names[1:]), flush=True)
