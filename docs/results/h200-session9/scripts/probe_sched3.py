"""Session 9, call 5: with swizzle 8 now the FP8 default, the raster direction (CUTLASS's heuristic,
along M, along N) and swizzle 4, settled (a fresh random order each round, each timed burst after
WARM untimed runs of the same call), at the fp8 suite's shapes; then the same tile orders on the
16-bit 128x256 kernel (bf16 -> bf16, which keeps no swizzle) against torch.mm."""
import random, statistics, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, 10, 25
random.seed(1)
ORDERS = {"planner": None, "swz1": {"swizzle": 1}, "m8": {"raster": "along_m", "swizzle": 8},
          "n8": {"raster": "along_n", "swizzle": 8}, "m4": {"raster": "along_m", "swizzle": 4},
          "n4": {"raster": "along_n", "swizzle": 4}}
def bench(label, fns, peer):
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)
for kind, P, shapes in (("fp8", "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby",
                         [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]),
                        ("bf16", "sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby",
                         [(8192, 8192, 8192), (8192, 14336, 4096)])):
    for (M, N, K) in shapes:
        if kind == "fp8":
            a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
            b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
            fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
            run = lambda d: (lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P, True, d, one, one)[1])
        else:
            a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
            b = torch.randn(N, K, device=dev, dtype=torch.bfloat16).t()
            fns = {"mm": lambda: torch.mm(a, b)}
            run = lambda d: (lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P, True, d)[1])
        ref = a.float() @ b.float()
        for k, d in ORDERS.items():
            fns[k] = run(d)
            err = ((fns[k]().float() - ref).norm() / ref.norm()).item()
            assert err < 1e-2, (k, err)
        bench(f"{kind} {M}x{N}x{K}", fns, list(fns)[0])
