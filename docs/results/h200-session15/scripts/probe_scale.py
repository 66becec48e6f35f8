"""Session 15: the scale epilogue (no C: CUTLASS's void-C epilogue, no C buffers in shared memory,
each TMA store delayed one subtile) against the axpby kernel of the same tile on calls without C,
beside torch._scaled_mm / torch.mm. Settled: a fresh random order each round, each timed burst
after WARM untimed runs of the same call, L2 flushed before every run (blackwell_ops.timing)."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(15)
P8 = "sm90_e4m3_bf16_ak_bk_{}_c2x1_coop_fp8overlap_{}"
P16 = "sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_{}"
FP8_SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096),
              (8192, 8192, 16384)]
B16_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096)]
compiled = {k["name"] for k in _C.compiled_kernels()}
def bench(label, fns, ref, peer):
    for k, f in fns.items():
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
def kern(name, a, b, *scales):
    return lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, *scales)[1]
for (M, N, K) in FP8_SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for tile, epis in (("128x256x128", ("axpby", "scale", "scale_e128x64")),
                       ("128x128x128", ("axpby", "scale"))):
        for epi in epis:
            if P8.format(tile, epi) in compiled:
                fns[f"{tile[:7]}_{epi}"] = kern(P8.format(tile, epi), a, b, one, one)
        # the same bits: the axpby kernel never reads C when beta == 0
        x = fns.get(f"{tile[:7]}_axpby")
        for epi in epis[1:]:
            y = fns.get(f"{tile[:7]}_{epi}")
            if x and y:
                print(f"  fp8 {M}x{N}x{K} {tile} {epi} == axpby bitwise: {torch.equal(x(), y())}")
    bench(f"fp8 {M}x{N}x{K}", fns, ref, "scaled_mm")
    del a, b, ref, fns
for (M, N, K) in B16_SHAPES:
    a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, K, device=dev, dtype=torch.bfloat16).t()
    ref = a.float() @ b.float()
    fns = {"mm": lambda: torch.mm(a, b)}
    for epi in ("axpby", "scale", "scale_e128x64"):
        if P16.format(epi) in compiled:
            fns[epi] = kern(P16.format(epi), a, b)
    bench(f"bf16 {M}x{N}x{K}", fns, ref, "mm")
    del a, b, ref, fns
