"""Session 11, call 1: cuBLAS's FP8 tile (128x144, its nvjet_sm90_qqtst_144x128) on the overlap
mainloop, beside the 128x256 kernel and torch._scaled_mm. 128x144 tiles fill 27.6 waves of 132 SMs
at 8192^3 (128x256: 15.52, so half the SMs idle in the last wave). Variants of the 128x144
mainloop: two chunks of 72 in groups of 2 or 3 k-tiles (g2, g3), three chunks of 48 in groups of 2
or 4 (c48g2, c48g4). Settled timing: a fresh random order each round, each timed burst after WARM
untimed runs of the same call, L2 flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(11)
P = "sm90_e4m3_bf16_ak_bk_"
W = P + "128x256x128_c2x1_coop_fp8overlap_"
V = {"g2": "xxgroup2", "g3": "xxgroup3", "c48g2": "xxchunk48_xgroup2", "c48g4": "xxchunk48_xgroup4"}
N144 = P + "128x144x128_c2x1_coop_fp8overlap_"
SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]

def bench(label, fns, ref, peer="scaled_mm"):
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        ok = err < 2e-2
        print(f"  {label} {k}: rel err {err:.3e}{'' if ok else '  FAILED'}", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(
        f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)

for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    for name in [W + "axpby"] + [N144 + v + "_axpby" for v in V.values()]:
        print(f"  plan {M}x{N}x{K} {name}: {_C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, False, None, one, one)[0]}")
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "w256": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, W + "axpby", True, None, one, one)[1]}
    for k, v in V.items():
        fns[k] = (lambda v=v: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, N144 + v + "_axpby", True, None, one, one)[1])
    if (M, N, K) == (8192, 8192, 8192):
        for sw in (1, 2, 4, 8):
            d = {"swizzle": sw}
            fns[f"g3_sw{sw}"] = (lambda d=d: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, N144 + V["g3"] + "_axpby", True, d, one, one)[1])
    bench(f"plain {M}x{N}x{K}", fns, ref)
    if (M, N, K) in ((8192, 8192, 8192), (8192, 14336, 4096)):
        bias = torch.randn(N, device=dev).to(torch.bfloat16)
        refg = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        fused = lambda name: (lambda: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                          torch.bfloat16, name, True, None, one, one)[1][0])
        fg = {"w256": fused(W + "lean_gelu_tanh")}
        for k, v in V.items():
            fg[k] = fused(N144 + v + "_lean_gelu_tanh")
        bench(f"bias+gelu(lean) {M}x{N}x{K}", fg, refg, peer="w256")
