"""Session 13, call 2: the band tile order (no padded tiles) on the 128x256 FP8 kernel and a
bf16 kernel, at shapes whose tile grid CUTLASS's swizzle used to pad, beside the same kernels with
narrower bands and torch._scaled_mm / torch.mm; settled (a fresh random order each round, each
timed burst after WARM untimed runs of the same call), L2 flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 10, 25
random.seed(13)
F8 = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby"
B16 = "sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby"
FP8_SHAPES = [(8192, 8192, 8192), (8448, 8192, 8192), (8192, 8448, 8192), (9000, 8192, 8192),
              (8192, 14336, 4096)]
B16_SHAPES = [(8448, 8192, 8192), (8192, 8192, 8192)]
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
for (M, N, K) in FP8_SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    _, _, sched = _C.plan(dict(m=M, n=N, k=K, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                               b_major="K"), 90, "compiled", True)
    print(f"fp8 {M}x{N}x{K}: planner schedule {sched}", flush=True)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "ours": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, F8, True, None, one, one)[1]}
    for sw in (1, 2, 4):
        fns[f"band{sw}"] = (lambda sw=sw: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, F8, True,
                                                        {"swizzle": sw}, one, one)[1])
    bench(f"fp8 {M}x{N}x{K}", fns, ref, "scaled_mm")
    del a, b, ref
for (M, N, K) in B16_SHAPES:
    a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, K, device=dev, dtype=torch.bfloat16).t()
    ref = a.float() @ b.float()
    fns = {"mm": lambda: torch.mm(a, b),
           "ours": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, B16, True)[1],
           "band2": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, B16, True, {"swizzle": 2})[1]}
    bench(f"bf16 {M}x{N}x{K}", fns, ref, "mm")
    del a, b, ref
