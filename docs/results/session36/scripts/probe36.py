"""Session 36: 129-256 rows of FP8 (e4m3 -> bf16 with scales), where the op ran a flat ~18 us at
N = K = 4096 on the H200 (session 30) against _scaled_mm's 12.7-14.9: which kernel of the `all`
set runs them fastest, and how much of the call does not scale with K (argv[1] == "ksweep": 256
x 4096 x K, K = 512-8192, the fixed part of each kernel's time; "ncu": one call each of
_scaled_mm, the stream kernel and the 64x128 ping-pong at 129 and 256 x 4096 x 4096, each after
the write flush, between cudaProfilerStart/Stop for ncu --profile-from-start off). Each kernel is called by name
through _C.run_kernel, side by side with _scaled_mm and the op (the planner's pick) in random
order, 8 rounds of 20 calls each after the benchmarks' write flush (blackwell_ops.timing.Timer),
medians in us; outputs checked against an fp64 reference first. Model: session 34's probe34.py."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

dev = "cuda"
random.seed(36)
compiled = {k["name"] for k in _C.compiled_kernels()}
G = "sm90_e4m3_bf16_ak_bk_"
MODE = sys.argv[1] if len(sys.argv) > 1 else ""
if MODE == "ncu":
    SHAPES = [(256, 4096, 4096), (129, 4096, 4096)]
elif MODE == "ksweep":
    SHAPES = [(256, 4096, k) for k in (512, 1024, 2048, 4096, 8192)] + \
             [(129, 4096, k) for k in (512, 2048, 4096)]
else:
    ROWS = [int(x) for x in MODE.split(",")] if MODE else [129, 192, 256]
    SHAPES = [(m, n, k) for m in ROWS for (n, k) in ((4096, 4096), (6144, 4096),
                                                     (14336, 4096), (4096, 14336))]
NAMED = {"c2x1": "128x128x128_c2x1_coop_fp8overlap_axpby",
         "c2x1_ts": "128x128x128_c2x1_coop_fp8overlap_ts_axpby",
         "stream": "128x128x128_c2x1_coop_fp8overlap_stream_axpby",
         "stream_ts": "128x128x128_c2x1_coop_fp8overlap_stream_ts_axpby",
         "c1x2": "128x128x128_c1x2_coop_fp8overlap_axpby",
         "pp64x64": "64x64x128_c1x1_pingpong_axpby",
         "pp64x128": "64x128x128_c1x1_pingpong_axpby",
         "pp64x128_1x2": "64x128x128_c1x2_pingpong_axpby",
         "w192": "128x192x128_c2x1_coop_fp8overlap_scale_e128x64",
         # run142: session 36's 64-row candidates (tools/generate_kernels.py, _SM90_FP8_PP64)
         "pp64x128_2x1": "64x128x128_c2x1_pingpong_axpby",
         "ppo64x128_2x1": "64x128x128_c2x1_pingpong_fp8overlap_axpby",
         "ppo64x128": "64x128x128_c1x1_pingpong_fp8overlap_axpby",
         "ppo64x256_2x1": "64x256x128_c2x1_pingpong_fp8overlap_axpby"}


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
    if MODE == "ncu":
        for k in ("scaled_mm", "stream", "pp64x128", "ppo64x128_2x1"):
            if k not in fns:
                continue
            timer.flush.zero_()
            torch.cuda.synchronize()
            print(f"  ncu-label {label} {k}", flush=True)
            torch.cuda.profiler.start()
            fns[k]()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        continue
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
