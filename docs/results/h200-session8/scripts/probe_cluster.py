"""Session 8: cluster shapes for the 128x256 FP8 overlap kernels. 2x2 and 4x1 multicast each
A or B tile to more CTAs than 2x1 (less L2->SM traffic under the power limit); a cluster of 4
fits 128 of the 132 SMs, which costs no extra round at 8192^3 (2048 tiles: 16 rounds either way).
Long bursts (REPS a provider a round, 4 rounds rotated), torch._scaled_mm beside, and each
provider's error against an fp32 product."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for c in ("2x1", "2x2", "4x1"):
        name = f"{P}c{c}_coop_fp8overlap_axpby"
        fns[c] = lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)[1]
    errs = {k: ((f().float() - ref).norm() / ref.norm()).item() for k, f in fns.items()}
    for c, epi in (("2x1", "fused"), ("2x2", "fused"), ("4x1", "fused"), ("2x1", "lean")):
        fname = f"{P}c{c}_coop_fp8overlap_{epi}_gelu_tanh"
        def fused(fname=fname):
            _C.pin_kernel(fname)
            try:
                return torch.ops.bw.gemm_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", False, torch.bfloat16, one, one)
            finally:
                _C.pin_kernel("")
        fns[f"{c}+{epi}"] = fused
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items()), flush=True)
    print("   vs scaled_mm: " + "  ".join(f"{k} {med['scaled_mm'] / med[k]:.3f}x" for k in ("2x1", "2x2", "4x1"))
          + " | fused vs 2x1 full: " + "  ".join(f"{k} {med['2x1+fused'] / med[k]:.3f}x" for k in med if "+" in k)
          + " | err " + "  ".join(f"{k} {v:.2e}" for k, v in errs.items()), flush=True)
