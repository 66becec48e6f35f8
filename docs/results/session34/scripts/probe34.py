"""Session 34: does the 128x192 FP8 overlap tile (three chunks of 64, scale epilogue; new in
`all`) run 300-1152 rows of Llama-3 8B's projections faster than the default set's tiles, where
a 128x128 grid is a wave and a bit and a 128x256 one is under a wave of double-work tiles?
e4m3 -> bf16 with scales, against torch._scaled_mm and the op (the planner's kernel), each
kernel called by name through _C.run_kernel; side by side in random order, 8 rounds of 20 calls
each after the benchmarks' write flush (blackwell_ops.timing.Timer), medians in us.
(probe30.py of session 30 is the model: same shapes, same timing.)"""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

dev = "cuda"
random.seed(34)
compiled = {k["name"] for k in _C.compiled_kernels()}
G = "sm90_e4m3_bf16_ak_bk_"
PROJ = {"up": (14336, 4096), "down": (4096, 14336), "qkv": (6144, 4096), "o": (4096, 4096)}
# argv[1]: rows (comma-separated), or "verify" (run135, after the planner took the 128x192 tile):
# the shapes of run134 where it took or nearly took it, and shapes where only the planner's cost
# model (csrc/gemm/heuristics.cpp, sm90_fp8_places) says it pays.
VERIFY = [(300, 6144, 4096), (384, 6144, 4096), (640, 4096, 4096), (640, 14336, 4096),
          (1152, 4096, 4096), (1152, 6144, 4096), (512, 6144, 4096), (768, 4096, 4096),
          (768, 12288, 4096), (1152, 8192, 4096), (1536, 6144, 4096), (3072, 3072, 4096),
          (640, 14336, 14336), (1536, 2048, 1024), (640, 4096, 14336)]
if len(sys.argv) > 1 and sys.argv[1] == "verify":
    SHAPES = VERIFY
else:
    ROWS = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else \
        [300, 384, 640, 896, 1152, 2048]
    SHAPES = [(m, *PROJ[p]) for m in ROWS for p in PROJ]
NAMED = {"c2x1": "128x128x128_c2x1_coop_fp8overlap_axpby",
         "c1x2": "128x128x128_c1x2_coop_fp8overlap_axpby",
         "c1x2_ts": "128x128x128_c1x2_coop_fp8overlap_ts_axpby",
         "w256": "128x256x128_c2x1_coop_fp8overlap_scale_e128x64",
         "w256_ts": "128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64",
         "w192": "128x192x128_c2x1_coop_fp8overlap_scale_e128x64",
         "w192_1x2": "128x192x128_c1x2_coop_fp8overlap_scale_e128x64"}


def providers(M, N, K):
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    ref = (a.double() @ b.double()) * (0.7 * 1.3)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                  scale_b=sb)}
    for key, name in NAMED.items():
        if key.endswith("_ts") and K < 8192:
            continue  # the planner's rule: tail splits only at K >= 8192 here
        if G + name in compiled:
            fns[key] = (lambda name=G + name: _C.run_kernel(
                a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, sa, sb)[1])
    explain = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    return fns, ref, explain


def check(label, fns, ref):
    bad = 0
    for k in list(fns):
        out = fns[k]()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            print(f"  {label} {k}: rel err {err:.3e} FAILED", flush=True)
            del fns[k]
            bad += 1
    return bad


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
timer = Timer(dev)
failed = 0
for (M, N, K) in SHAPES:
    label = f"fp8 {M}x{N}x{K}"
    fns, ref, explain = providers(M, N, K)
    failed += check(label, fns, ref)
    times = {k: [] for k in fns}
    for _ in range(8):
        for k in random.sample(list(fns), len(fns)):
            times[k] += timer(fns[k], reps=20, warmup=5)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    kern = explain.split("kernel: ")[-1].replace(G, "")
    print(f"{label} [op: {kern}] (us; x = scaled_mm / it): "
          + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.2f}x)" for k, v in med.items()),
          flush=True)
    del fns, ref
print(f"checks failed: {failed}")
