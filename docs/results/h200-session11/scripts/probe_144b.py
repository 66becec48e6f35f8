"""Session 11, call 2: is the 128x144 tile itself slow on the H200, or only the overlap mainloop's
72/48-column chunks (call 1: every 128x144 variant ~20% behind 128x256)? CUTLASS's FastAccum
mainloop (no promotion, one 64x144 wgmma per k-step) on 128x144 against the same on 128x256,
beside torch._scaled_mm in both accumulation modes and the 128x256 overlap kernel. Same settled
timing as probe_144.py."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(12)
P = "sm90_e4m3_bf16_ak_bk_"
K = {"w256": P + "128x256x128_c2x1_coop_fp8overlap_axpby", "fa256": P + "128x256x128_c2x1_coop_fastaccum_axpby",
     "fa144": P + "128x144x128_c2x1_coop_fastaccum_axpby"}
for (M, N, Kd) in [(8192, 8192, 8192), (8192, 14336, 4096)]:
    a = (torch.randn(M, Kd, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, Kd, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "scaled_mm_fast": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)}
    for k, name in K.items():
        print(f"  plan {M}x{N}x{Kd} {k}: {_C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, False, None, one, one)[0]}")
        fns[k] = (lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)[1])
    fns["fa144_sw1"] = lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, K["fa144"], True, {"swizzle": 1}, one, one)[1]
    for k, f in fns.items():
        err = ((f().float() - ref).norm() / ref.norm()).item()
        print(f"  {k}: rel err {err:.3e}{'' if err < 2e-2 else '  FAILED'}", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"plain {M}x{N}x{Kd} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(
        f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items())
        + f" | fa144/fa256 time {med['fa144'] / med['fa256']:.3f}", flush=True)
