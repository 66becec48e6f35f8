"""Session 17, run89: the op as a user calls it, torch.ops.bw.gemm_axpby on e4m3 -> bf16 with
per-tensor scales and no C, beside torch._scaled_mm (accurate mode), where the planner takes the
tail-split scale kernel and where it takes the plain one (_C.explain names the kernel). Settled:
a fresh random order each round, each timed burst after WARM untimed runs of the same call, L2
flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(1789)
SHAPES = [(1536, 4096, 8192), (2560, 4096, 8192), (1536, 8192, 4096), (8192, 8192, 8192)]
sa = torch.full((), 0.5, device=dev)
sb = torch.full((), 1.25, device=dev)
for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = (a.double() @ b.double()) * 0.625
    print(f"fp8 {M}x{N}x{K}: {_C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)}", flush=True)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "bw": lambda: torch.ops.bw.gemm_axpby(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)}
    for k, f in fns.items():
        out = f().double()
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"fp8 {M}x{N}x{K} {REPS}x{ROUNDS} warm {WARM}: "
          + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items()),
          flush=True)
    del a, b, ref, fns
