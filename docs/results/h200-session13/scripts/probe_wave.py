"""Session 13, call 1: is the wave tail what separates the 128x256 FP8 kernel from cuBLAS at
8192^3? Times the persistent kernel (planner's schedule), CUTLASS's stream-K kernel run
data-parallel and stream-K (swizzle 8, as the planner gives the persistent one), and
torch._scaled_mm at 8192^3 (2048 tiles: 15.52 waves of 132 SMs) and at 8448x8192x8192
(2112 tiles: exactly 16 waves), settled: a fresh random order each round, each timed burst after
WARM untimed runs of the same call, L2 flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 10, 25
random.seed(13)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
SHAPES = [(8192, 8192, 8192), (8448, 8192, 8192), (8192, 8448, 8192)]
MODES = {"sk_dp": "data_parallel", "sk_sk": "stream_k"}
for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "pers": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, None, one, one)[1]}
    for k, m in MODES.items():
        d = {"decomposition": m, "swizzle": 8}
        fns[k] = (lambda d=d: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "sk_axpby", True, d, one, one)[1])
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {M}x{N}x{K} {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"plain {M}x{N}x{K} {REPS}x{ROUNDS} warm {WARM}: "
          + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items()), flush=True)
    del a, b, ref
