"""Session 16, run84: the FP8 wide tile's scale kernel with its cluster along M (2x1: the two CTAs
share, and multicast, the 256x128 B tile; the shipped kernel) beside the same with its cluster
along N (1x2: they share the 128x128 A tile), _scaled_mm the bar. Settled: a fresh random order
each round, each timed burst after WARM untimed runs of the same call, L2 flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(16)
P8 = "sm90_e4m3_bf16_ak_bk_128x256x128_{}_coop_fp8overlap_scale_e128x64"
P16 = "sm90_{0}_{0}_ak_bk_128x256x64_c2x1_coop_{1}"
FP8_SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]
B16_SHAPES = [("bf16", 8192, 8192, 8192), ("bf16", 4096, 4096, 4096), ("bf16", 8192, 14336, 4096),
              ("bf16", 8192, 4096, 14336), ("bf16", 16384, 8192, 4096), ("bf16", 4096, 8192, 2048),
              ("f16", 8192, 8192, 8192), ("f16", 4096, 4096, 4096), ("f16", 8192, 14336, 4096)]
DT = {"bf16": torch.bfloat16, "f16": torch.float16}
compiled = {k["name"] for k in _C.compiled_kernels()}
def bench(label, fns, ref, peer, unchecked=()):
    for k, f in fns.items():
        if k in unchecked:
            continue
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {label} {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: "
          + "  ".join(f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)
def kern(name, a, b, dt, *scales):
    return lambda: _C.run_kernel(a, b, None, 1.0, 0.0, dt, name, True, None, *scales)[1]
for (M, N, K) in FP8_SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for c in ("c2x1", "c1x2"):
        if P8.format(c) in compiled:
            fns[c] = kern(P8.format(c), a, b, torch.bfloat16, one, one)
    if "c2x1" in fns and "c1x2" in fns:
        print(f"  fp8 {M}x{N}x{K} c1x2 == c2x1 bitwise: {torch.equal(fns['c2x1'](), fns['c1x2']())}")
    bench(f"fp8 {M}x{N}x{K}", fns, ref, "scaled_mm")
    del a, b, ref, fns
for (ab, M, N, K) in []:
    a = torch.randn(M, K, device=dev, dtype=DT[ab])
    b = torch.randn(N, K, device=dev, dtype=DT[ab]).t()
    ref = a.float() @ b.float()
    fns = {"mm": lambda: torch.mm(a, b)}
    for epi in ("axpby", "scale", "scale_e128x64"):
        if P16.format(ab, epi) in compiled:
            fns[epi] = kern(P16.format(ab, epi), a, b, DT[ab])
    x = fns.get("axpby")
    for epi in ("scale", "scale_e128x64"):
        if x and epi in fns:
            print(f"  {ab} {M}x{N}x{K} {epi} == axpby bitwise: {torch.equal(x(), fns[epi]())}")
    bench(f"{ab} {M}x{N}x{K}", fns, ref, "mm")
    del a, b, ref, fns
