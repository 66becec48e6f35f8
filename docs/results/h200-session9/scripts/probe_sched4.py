"""Session 9, call 7: tile swizzle 8 against CUTLASS's order (swizzle 1) on the sm90 kernels that
keep the default order: INT8 and TF32 (issue #9) and the 16-bit kernels the planner takes, settled
(random order each round, WARM untimed runs of the same call before each timed burst). "swz1b" is
a second copy of swz1: the noise between identical calls. Ratios are the peer's time / ours."""
import random, statistics, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, 10, 25
random.seed(2)
torch.backends.cuda.matmul.allow_tf32 = True
def bench(label, fns, peer):
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items())
          + f" | swz1/swz8 {med['swz1'] / med['swz8']:.3f}  swz1b/swz1 {med['swz1b'] / med['swz1']:.3f}", flush=True)
CASES = [("int8", "sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby", [(8192, 8192, 8192), (8192, 14336, 4096)]),
         ("tf32", "sm90_tf32_f32_ak_bk_128x256x32_c2x1_coop_axpby", [(8192, 8192, 8192), (4096, 4096, 4096)]),
         ("bf16", "sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby", [(16384, 8192, 4096), (4096, 28672, 4096)]),
         ("bf16", "sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_axpby", [(8192, 4096, 14336), (4096, 4096, 1024), (2048, 2048, 2048)]),
         ("bf16", "sm90_bf16_bf16_ak_bk_64x128x64_c1x2_pingpong_axpby", [(128, 8192, 8192), (1024, 1024, 1024)])]
for kind, name, shapes in CASES:
    for (M, N, K) in shapes:
        if kind == "int8":
            a = torch.randint(-128, 128, (M, K), device=dev, dtype=torch.int8)
            b = torch.randint(-128, 128, (N, K), device=dev, dtype=torch.int8).t()
            fns = {"peer": lambda: torch._int_mm(a, b)}
            od, ref = torch.int32, torch._int_mm(a, b)
        else:
            dt = torch.float32 if kind == "tf32" else torch.bfloat16
            a = torch.randn(M, K, device=dev, dtype=dt)
            b = torch.randn(N, K, device=dev, dtype=dt).t()
            fns = {"peer": lambda: torch.mm(a, b)}
            od, ref = dt, a.float() @ b.float()
        for k, d in (("swz1", {"swizzle": 1}), ("swz8", {"swizzle": 8}), ("swz1b", {"swizzle": 1})):
            fns[k] = (lambda d=d: _C.run_kernel(a, b, None, 1.0, 0.0, od, name, True, d)[1])
            out = fns[k]()
            assert out is not None, _C.run_kernel(a, b, None, 1.0, 0.0, od, name, True, d)[0]
            err = ((out.double() - ref.double()).norm() / ref.double().norm()).item()
            assert err < 1e-2, (name, k, err)
        bench(f"{name.split('_c')[0]} {M}x{N}x{K}", fns, "peer")
