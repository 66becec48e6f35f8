"""Session 8: where the plain FP8 gap sits. Side by side in long bursts at the issue's shapes:
torch._scaled_mm accurate (the target's peer) and fast-accumulation, our accurate 128x256 overlap
kernel, and CUTLASS's FastAccum kernel on the same tile and cluster (no promotion at all: the
ceiling of a promotion scheme in this kernel skeleton). REPS a provider a round, 6 rounds
rotated; errors against an fp32 product."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    rk = lambda name: (lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)[1])
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "scaled_mm_fast": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True),
           "ours": rk(P + "fp8overlap_axpby"),
           "cutlass_fastaccum": rk(P + "fastaccum_axpby")}
    errs = {k: ((f().float() - ref).norm() / ref.norm()).item() for k, f in fns.items()}
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(6):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}: " + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items())
          + f" | fast/fast {med['scaled_mm_fast'] / med['cutlass_fastaccum']:.3f}x", flush=True)
    print("   err " + "  ".join(f"{k} {v:.2e}" for k, v in errs.items()), flush=True)
