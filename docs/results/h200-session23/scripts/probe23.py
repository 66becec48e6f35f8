"""Session 23: where FP8 decode time goes (Llama-3 8B MLP, M = 16 / 64 / 128, up and down), ours
against torch._scaled_mm. Modes (argv[1]):
  profile  torch.profiler: every GPU activity (kernels, memsets, copies) of 20 calls of each
           provider, L2 flushed between calls; names, count and mean device time.
  ncu      one call of each provider between cudaProfilerStart/Stop (run under ncu with
           --profile-from-start off); the labels in launch order go to stdout.
  time     side by side, medians (blackwell_ops.timing.Timer: L2 flushed, queued, events), each
           answer checked against an fp32 reference first.
Providers: _scaled_mm, the op (the planner's kernel), kernels by name, and a memory floor (a sum
over the weight's bytes, which reads them once)."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

MODE = sys.argv[1] if len(sys.argv) > 1 else "time"
dev = "cuda"
random.seed(23)
compiled = {k["name"] for k in _C.compiled_kernels()}
F = "sm90_e4m3_bf16_ak_bk_"
KERNELS = {
    "pp64": F + "64x128x128_c1x2_pingpong_axpby",
    "pp64_c11": F + "64x128x128_c1x1_pingpong_axpby",
    "pp6464_c11": F + "64x64x128_c1x1_pingpong_axpby",
    "c1x2": F + "128x128x128_c1x2_coop_fp8overlap_axpby",
    "ts_c1x2": F + "128x128x128_c1x2_coop_fp8overlap_ts_axpby",
    "sk": F + "128x128x128_c1x2_coop_sk_axpby",
    # run103 on: swapped (D^T = B^T A^T), 128 weights x T tokens
    "sw16": F + "16x128x128_c1x1_coop_ts_swapab_axpby",
    "sw16_c12": F + "16x128x128_c1x2_coop_ts_swapab_axpby",
    "sw16_p": F + "16x128x128_c1x1_coop_swapab_axpby",
    "sw32": F + "32x128x128_c1x1_coop_ts_swapab_axpby",
    "sw64": F + "64x128x128_c1x1_coop_ts_swapab_axpby",
}
UP, DOWN = (14336, 4096), (4096, 14336)
SHAPES = [(m, n, k) for m in (16, 64, 128) for (n, k) in (UP, DOWN)]
if MODE == "time2":  # run103
    SHAPES = [(m, n, k) for m in (1, 16, 32, 64, 128) for (n, k) in (UP, DOWN)]
    MODE = "time"
if len(sys.argv) > 2:
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in sys.argv[2].split(",")]


def providers(M, N, K):
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    bstore = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = bstore.t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    ref = (a.float() @ b.float()) * (0.7 * 1.3)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                  scale_b=sb)}
    for key, name in KERNELS.items():
        if name not in compiled:
            continue
        scheds = [(key, None)]
        if key == "sk":
            scheds = [(f"sk_split{s}", {"decomposition": "split_k", "splits": s}) for s in (2, 4)]
        if name.endswith("swapab_axpby") and M > int(name[len(F):].split("x")[0]):
            continue  # a swapped tile covers M <= its rows here
        for k2, sched in scheds:
            fns[k2] = (lambda name=name, sched=sched:
                       _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, sched, sa,
                                     sb)[1])
    words = bstore.view(torch.float32)
    floor = lambda: words.sum()  # noqa: E731
    explain = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    return fns, floor, ref, explain


def check(label, fns, ref):
    for k in list(fns):
        try:
            out = fns[k]()
        except Exception as e:  # noqa: BLE001
            print(f"  {label} {k}: raised {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            del fns[k]
            continue
        err = ((out.float() - ref).norm() / ref.norm()).item()
        print(f"  {label} {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)


flush = torch.empty(256 * 2**20, dtype=torch.int8, device=dev)
print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
for (M, N, K) in SHAPES:
    label = f"fp8 {M}x{N}x{K}"
    fns, floor, ref, explain = providers(M, N, K)
    print(f"{label}: op path: {explain}", flush=True)
    check(label, fns, ref)
    fns["floor"] = floor
    if MODE == "profile":
        from torch.profiler import ProfilerActivity, profile
        for key, fn in fns.items():
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20):
                    flush.zero_()
                    fn()
                torch.cuda.synchronize()
            acts = {}
            for e in prof.events():
                if e.device_type.name != "CUDA":
                    continue
                name = e.name
                if "elementwise_kernel" in name and "FillFunctor" in name:
                    continue  # the L2 flush
                s = acts.setdefault(name, [0, 0.0])
                s[0] += 1
                s[1] += e.device_time if hasattr(e, "device_time") else e.cuda_time
            for name, (cnt, tot) in sorted(acts.items(), key=lambda x: -x[1][1]):
                print(f"  profile {label} {key}: {cnt:3d} x {tot / cnt:8.2f} us  {name[:230]}",
                      flush=True)
    elif MODE == "ncu":
        for key, fn in fns.items():
            for _ in range(2):
                fn()
            torch.cuda.synchronize()
            print(f"  ncu-label {label} {key}", flush=True)
            torch.cuda.profiler.start()
            fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
    else:
        t = Timer(dev)
        times = {k: [] for k in fns}
        for _ in range(5):
            for k in random.sample(list(fns), len(fns)):
                times[k] += t(fns[k], reps=20, warmup=10)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{label} (20x5, us; x = scaled_mm / it): "
              + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.2f}x)" for k, v in med.items()),
              flush=True)
    del fns, ref
