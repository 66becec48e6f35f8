"""Session 7: 128x128 against 128x256 FP8 overlap kernels (chained groups), 4 shapes, in long bursts (REPS a provider a round, 4 rounds
rotated): plain (run_kernel) and fused bias + gelu_tanh (the op pinned), with torch._scaled_mm."""
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
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for tile in ("128x128x128", "128x256x128"):
        name = f"{P}{tile}_c2x1_coop_fp8overlap_axpby"
        fns[tile] = lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)
        fname = f"{P}{tile}_c2x1_coop_fp8overlap_fused_gelu_tanh"
        def fused(fname=fname):
            _C.pin_kernel(fname)
            try:
                return torch.ops.bw.gemm_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", False, torch.bfloat16, one, one)
            finally:
                _C.pin_kernel("")
        fns[tile + "+gelu"] = fused
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items())
          + f"  | plain 128/256 {med['128x128x128'] / med['128x256x128']:.3f}x"
          + f"  fused 128/256 {med['128x128x128+gelu'] / med['128x256x128+gelu']:.3f}x", flush=True)
