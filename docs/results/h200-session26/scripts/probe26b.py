"""Session 26: where the extra ~2 us of our small-M FP8 calls as CUDA graph replays comes from
(probe26.py: equal CUPTI kernel times eager and replayed, event times 1.5-2.5 us longer replayed,
torch._scaled_mm's not). The gap (event time minus kernel time) eager and replayed, for the
planner's kernel and for kernels pinned one by one: tail-split (ts, whose captured launches hold a
flags buffer by a CUDA user object) or not, clustered or not; the graph's node types."""
import collections, statistics, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
timer = Timer(dev)
PIN = [None, "sm90_e4m3_bf16_ak_bk_16x128x128_c1x1_coop_ts_swapab_axpby",
       "sm90_e4m3_bf16_ak_bk_64x64x128_c1x1_pingpong_axpby",
       "sm90_e4m3_bf16_ak_bk_64x128x128_c1x2_pingpong_axpby",
       "sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_ts_axpby",
       "sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_axpby"]


def graphed(fn):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(g):
        fn()
    types = _C.graph_node_types(g.raw_cuda_graph())
    g.instantiate()
    return g, types


def kernel_us(fn, reps=40):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            timer.flush.zero_()
            fn()
        torch.cuda.synchronize()
    per = collections.defaultdict(list)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and "fill" not in e.name.lower() \
                and "memset" not in e.name.lower():
            per[e.name].append(e.device_time)
    return sum(statistics.median(v) for v in per.values()), len(per)


print(torch.cuda.get_device_name(), torch.__version__)
for (m, n, k) in ((16, 4096, 14336), (16, 14336, 4096)):
    a = (torch.randn(m, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    print(f"{m}x{n}x{k} planner: {_C.explain(a, b, out_dtype=torch.bfloat16, scale_a=sa, scale_b=sb)}")
    fns = {"_scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "add": lambda: a.view(torch.int8).add(1)}
    for pin in PIN:
        _C.pin_kernel(pin or "")
        fns[pin or "ours(planner)"] = lambda: blackwell_ops.gemm_axpby(
            a, b, out_dtype=torch.bfloat16, scale_a=sa, scale_b=sb)
        try:
            ex = _C.explain(a, b, out_dtype=torch.bfloat16, scale_a=sa, scale_b=sb)
            g, types = graphed(fns[pin or "ours(planner)"])
            res = {}
            for _ in range(3):
                for mode, f in (("eager", fns[pin or "ours(planner)"]), ("graph", g.replay)):
                    res.setdefault(mode, []).extend(timer(f, 40, 10))
            ev = {mode: statistics.median(t) * 1e3 for mode, t in res.items()}
            ke, nk = kernel_us(fns[pin or "ours(planner)"])
            kg, _ = kernel_us(g.replay)
            print(f"  {pin or 'ours(planner)':66s} event {ev['eager']:5.1f}/{ev['graph']:5.1f} kernel "
                  f"{ke:5.1f}/{kg:5.1f} gap eager {ev['eager'] - ke:4.1f} graph {ev['graph'] - kg:4.1f}"
                  f" us; nodes {types}; {str(ex)[:90]}", flush=True)
            del g
        except Exception as e:  # noqa: BLE001  (a kernel that does not fit: say so, go on)
            print(f"  {pin}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        finally:
            _C.pin_kernel("")
    for name in ("_scaled_mm", "add"):
        g, types = graphed(fns[name])
        res = {}
        for _ in range(3):
            for mode, f in (("eager", fns[name]), ("graph", g.replay)):
                res.setdefault(mode, []).extend(timer(f, 40, 10))
        ev = {mode: statistics.median(t) * 1e3 for mode, t in res.items()}
        ke, _ = kernel_us(fns[name])
        kg, _ = kernel_us(g.replay)
        print(f"  {name:66s} event {ev['eager']:5.1f}/{ev['graph']:5.1f} kernel {ke:5.1f}/{kg:5.1f} "
              f"gap eager {ev['eager'] - ke:4.1f} graph {ev['graph'] - kg:4.1f} us; nodes {types}",
              flush=True)
