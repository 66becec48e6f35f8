"""Session 26: why our small-M FP8 calls time ~1-2 us slower as CUDA graph replays than eager
(session 25, run110), while torch._scaled_mm's do not. For each case and provider: the event time
per call (L2 flushed before each, as blackwell_ops.timing.Timer) eager and as graph replays, and
the GPU time of the provider's own kernels from the profiler (CUPTI), eager and replayed. Equal
kernel times with unequal event times put the difference in the launch, not the kernel."""
import collections, statistics, torch
import blackwell_ops
from blackwell_ops.timing import Timer
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
timer = Timer(dev)


def graphed(fn):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g


def kernel_us(fn, reps=40):
    """{kernel name: median us} of fn's kernels (the flush's fill kernel left out)."""
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
            per[e.name[:60]].append(e.device_time)
    return {k: (statistics.median(v), len(v)) for k, v in per.items()}


print(torch.cuda.get_device_name(), torch.__version__)
for (m, n, k) in ((16, 4096, 14336), (64, 4096, 14336), (16, 14336, 4096)):
    a = (torch.randn(m, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    fns = {
        "ours": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                 scale_b=sb),
        "_scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
    }
    for name, fn in fns.items():
        g = graphed(fn)
        res = {}
        for _ in range(3):  # interleaved rounds, medians of all
            for mode, f in (("eager", fn), ("graph", g.replay)):
                res.setdefault(mode, []).extend(timer(f, 50, 10))
        ev = {mode: statistics.median(t) * 1e3 for mode, t in res.items()}
        ke, kg = kernel_us(fn), kernel_us(g.replay)
        print(f"{m}x{n}x{k} {name:11s} event eager {ev['eager']:6.1f} us graph {ev['graph']:6.1f} us"
              f" | kernels eager {ke} | graph {kg}", flush=True)
