"""Session 9: the tile order of the 128x256 FP8 kernels (raster along M / N / CUTLASS's heuristic,
max swizzle 1-8) side by side with torch._scaled_mm in long bursts, plain and fused (+ C; bias +
gelu_tanh on the lean kernel). Under the H200's power limit a GEMM's time follows its energy, and
the default order re-reads B from DRAM every wave (session 6, ncu on 128x128). REPS a provider a
round, ROUNDS rounds rotated; errors against an fp32 product."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
SCHEDS = {"default": None,
          "m1": {"raster": "along_m", "swizzle": 1}, "n1": {"raster": "along_n", "swizzle": 1},
          "h2": {"swizzle": 2}, "h4": {"swizzle": 4}, "h8": {"swizzle": 8},
          "m4": {"raster": "along_m", "swizzle": 4}, "n4": {"raster": "along_n", "swizzle": 4},
          "m8": {"raster": "along_m", "swizzle": 8}, "n8": {"raster": "along_n", "swizzle": 8}}
def bench(label, fns, ref):
    errs = {k: ((f().float() - ref).norm() / ref.norm()).item() for k, f in fns.items()}
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(ROUNDS):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["scaled_mm"]
    print(f"{label} reps {REPS}x{ROUNDS}: " + "  ".join(f"{k} {v:.4f} ({base / v:.3f}x)" for k, v in med.items()), flush=True)
    print("   max err " + f"{max(errs.values()):.2e}", flush=True)
for (M, N, K) in [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
    for s, d in SCHEDS.items():
        fns[s] = (lambda d=d: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, d, one, one)[1])
    bench(f"plain {M}x{N}x{K}", fns, ref)
    if (M, N, K) == (8192, 8192, 8192):
        c = torch.randn(M, N, device=dev).to(torch.bfloat16)
        refc = ref + c.float()
        fc = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
        for s in ("default", "m1", "n1", "h8", "m8", "n8"):
            d = SCHEDS[s]
            fc[s] = (lambda d=d: _C.run_kernel(a, b, c, 1.0, 1.0, torch.bfloat16, P + "axpby", True, d, one, one)[1])
        bench(f"+c {M}x{N}x{K}", fc, refc)
        bias = torch.randn(N, device=dev).to(torch.bfloat16)
        refg = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        fg = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)}
        for s in ("default", "m1", "n1", "h8", "m8", "n8"):
            d = SCHEDS[s]
            fg[s] = (lambda d=d: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                      torch.bfloat16, P + "lean_gelu_tanh", True, d, one, one)[1][0])
        bench(f"bias+gelu {M}x{N}x{K}", fg, refg)
