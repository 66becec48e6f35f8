"""Session 9, call 3: is a provider's time in an interleaved burst biased by the provider before it?
Control pairs of identical calls (scaled_mm / scaled_mm2, default / default2; h8 and n8 are the same
tile order at these shapes: CUTLASS's heuristic raster is along N when tiles_m >= tiles_n).
Mode "rotated": the probes' old order (fixed list rotated each round, 1 warm-up run a burst).
Mode "settled": a fresh random order each round, and every timed burst preceded by an untimed
burst of the same call (WARM runs), so the power controller settles on that call first."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, 12, 25
random.seed(0)
def bench(label, fns, mode):
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(ROUNDS):
        if mode == "rotated":
            order, warm = names[r % len(names):] + names[:r % len(names)], 1
        else:
            order, warm = random.sample(names, len(names)), WARM
        for k in order:
            times[k] += t(fns[k], reps=REPS, warmup=warm)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["scaled_mm"]
    print(f"{label} [{mode}] {REPS}x{ROUNDS}: " + "  ".join(f"{k} {v:.4f} ({base / v:.3f}x)" for k, v in med.items()), flush=True)
    print(f"   pairs: scaled_mm2/scaled_mm {med['scaled_mm2'] / med['scaled_mm']:.3f}  default2/default {med['default2'] / med['default']:.3f}"
          f"  h8/n8 {med['h8'] / med['n8']:.3f} | n8 vs default {med['default'] / med['n8']:.3f}", flush=True)
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    bias = torch.randn(N, device=dev).to(torch.bfloat16)
    sm = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)
    plain = lambda d: (lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, d, one, one)[1])
    gelu = lambda d: (lambda: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                  torch.bfloat16, P + "lean_gelu_tanh", True, d, one, one)[1][0])
    for kind, mk in (("plain", plain), ("bias+gelu", gelu)):
        fns = {"scaled_mm": sm, "default": mk(None), "h8": mk({"swizzle": 8}), "scaled_mm2": sm,
               "default2": mk(None), "n8": mk({"raster": "along_n", "swizzle": 8})}
        for mode in ("rotated", "settled"):
            bench(f"{kind} {M}x{N}x{K}", fns, mode)
