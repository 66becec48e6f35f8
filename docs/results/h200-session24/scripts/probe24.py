"""Session 24: FP8 small-M candidates side by side (Llama-3 8B's MLP: up N 14336 K 4096, down
N 4096 K 14336), ours against torch._scaled_mm. The question: at M = 64-128 x 4096 x 14336 every
CTA reads as many bytes of tokens (from L2) as of weights, and cuBLAS's 64x64 swapped tile there
runs a 2x1 cluster (tokens multicast); do our tiles gain from a cluster along the weights?
Modes (argv[1]):
  time  side by side, medians (blackwell_ops.timing.Timer: L2 flushed, queued, events), each
        answer checked against an fp32 reference first; providers in random order per round.
  ncu   one call of each provider between cudaProfilerStart/Stop (run under ncu with
        --profile-from-start off); the labels in launch order go to stdout.
  profile  torch.profiler over 20 calls of each provider, the L2 flushed before each (as Timer
        does): each GPU activity's mean duration, and the idle gaps on the GPU from the end of
        the flush to the call's first activity and between the call's activities (run107).
  time2 time at the shapes of run107 (the 64x64 ping-pong rule's checks).
argv[2] (optional): shapes MxNxK, comma-separated."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

MODE = sys.argv[1] if len(sys.argv) > 1 else "time"
dev = "cuda"
random.seed(24)
compiled = {k["name"] for k in _C.compiled_kernels()}
F = "sm90_e4m3_bf16_ak_bk_"
KERNELS = {
    "sw16": F + "16x128x128_c1x1_coop_ts_swapab_axpby",
    "sw32": F + "32x128x128_c1x1_coop_ts_swapab_axpby",
    "sw32_c12": F + "32x128x128_c1x2_coop_ts_swapab_axpby",
    "sw64": F + "64x128x128_c1x1_coop_ts_swapab_axpby",
    "sw64_c12": F + "64x128x128_c1x2_coop_ts_swapab_axpby",
    "sw64_c14": F + "64x128x128_c1x4_coop_ts_swapab_axpby",
    "pp6464": F + "64x64x128_c1x1_pingpong_axpby",
    "pp6464_c12": F + "64x64x128_c1x2_pingpong_axpby",
    "pp6464_c14": F + "64x64x128_c1x4_pingpong_axpby",
    "c1x2": F + "128x128x128_c1x2_coop_fp8overlap_axpby",
    "ts_c1x2": F + "128x128x128_c1x2_coop_fp8overlap_ts_axpby",
    "c2x1": F + "128x128x128_c2x1_coop_fp8overlap_axpby",
    "ts_c2x1": F + "128x128x128_c2x1_coop_fp8overlap_ts_axpby",
    "wide": F + "128x256x128_c2x1_coop_fp8overlap_axpby",
}
UP, DOWN = (14336, 4096), (4096, 14336)
SHAPES = ([(m, *DOWN) for m in (16, 32, 48, 64, 96, 128, 256)]
          + [(m, *UP) for m in (16, 64, 96, 128, 256)])
if MODE == "profile":
    SHAPES = [(m, *DOWN) for m in (16, 64, 128)] + [(16, *UP)]
if MODE == "time2":  # run107: where 64x64 tiles fill 3/4 to 1 wave at M = 65-128, and beside
    SHAPES = [(m, n, k) for m in (80, 128) for (n, k) in ((4096, 4096), (4096, 14336),
                                                            (3584, 8192), (4096, 28672))]
    SHAPES += [(128, 8192, 8192), (128, 6144, 4096), (192, 4096, 14336)]
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
        if name.endswith("swapab_axpby") and M > int(name[len(F):].split("x")[0]):
            continue  # a swapped tile covers M <= its rows here
        if key.startswith("sw") and M > 64 or key in ("c2x1", "ts_c2x1", "wide") and M < 128:
            continue
        fns[key] = (lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name,
                                                    True, None, sa, sb)[1])
        if key.startswith("sw16") and MODE == "profile":  # the same kernel told not to split
            fns[key + "_nosplit"] = (lambda name=name: _C.run_kernel(
                a, b, None, 1.0, 0.0, torch.bfloat16, name, True,
                {"decomposition": "data_parallel"}, sa, sb)[1])
    explain = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    return fns, ref, explain


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


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
for (M, N, K) in SHAPES:
    label = f"fp8 {M}x{N}x{K}"
    fns, ref, explain = providers(M, N, K)
    print(f"{label}: op path: {explain}", flush=True)
    check(label, fns, ref)
    if MODE == "profile":
        from torch.profiler import ProfilerActivity, profile
        flush = torch.empty(256 * 2**20, dtype=torch.int8, device=dev)
        for key, fn in fns.items():
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20):
                    flush.zero_()
                    fn()
                torch.cuda.synchronize()
            evs = sorted((e for e in prof.events() if e.device_type.name == "CUDA"),
                         key=lambda e: e.time_range.start)
            acts, gaps, calls, prev_end, in_call = {}, [], 0, None, False
            for e in evs:
                is_flush = "FillFunctor" in e.name or ("Memset" in e.name and
                                                       e.time_range.elapsed_us() > 20)
                if is_flush:
                    prev_end, in_call = e.time_range.end, False
                    continue
                if prev_end is not None:
                    gaps.append((("first" if not in_call else "between"),
                                 e.time_range.start - prev_end))
                if not in_call:
                    calls += 1
                in_call, prev_end = True, e.time_range.end
                st = acts.setdefault(e.name[:120], [0, 0.0])
                st[0] += 1
                st[1] += e.time_range.elapsed_us()
            for name, (cnt, tot) in sorted(acts.items(), key=lambda x: -x[1][1]):
                print(f"  profile {label} {key}: {cnt:3d} x {tot / cnt:7.2f} us  {name}", flush=True)
            for kind in ("first", "between"):
                g = [x for k2, x in gaps if k2 == kind]
                if g:
                    print(f"  profile {label} {key}: gap {kind}: {len(g)} x median "
                          f"{statistics.median(g):.2f} us", flush=True)
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
        for _ in range(6):
            for k in random.sample(list(fns), len(fns)):
                times[k] += t(fns[k], reps=20, warmup=10)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{label} (20x6, us; x = scaled_mm / it): "
              + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.2f}x)" for k, v in med.items()),
              flush=True)
    del fns, ref
