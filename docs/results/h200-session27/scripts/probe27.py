"""Session 27: run113's probe26b timed the pinned tail-split kernel at a 14.1 us eager gap (event
time minus CUPTI kernel time) where the planner's call of the same kernel, just before, had 2.7 us
and session 26 (a 15-kernel build) had 3.2 us. Is it the pin, the graph destroyed just before
(its user object released), or noise? One case (16x4096x14336 FP8 e4m3 -> bf16, scales), steps
in order; each step: event time (Timer: L2 flushed, all queued) median of 3 x 40, CUPTI kernel
time, and host time per call (200 calls queued, no flush, wall clock / 200)."""
import collections, statistics, time, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
timer = Timer(dev)
TS = "sm90_e4m3_bf16_ak_bk_16x128x128_c1x1_coop_ts_swapab_axpby"
m, n, k = 16, 4096, 14336
a = (torch.randn(m, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(n, k, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
sa = torch.tensor(0.7, device=dev)
sb = torch.tensor(1.3, device=dev)


def ours():
    return blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa, scale_b=sb)


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
    return sum(statistics.median(v) for v in per.values())


def host_us(fn, calls=200):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def step(label, fn):
    ev = statistics.median(sum((timer(fn, 40, 10) for _ in range(3)), [])) * 1e3
    ke = kernel_us(fn)
    print(f"{label:58s} event {ev:5.1f} kernel {ke:5.1f} gap {ev - ke:5.1f} host {host_us(fn):5.1f} us",
          flush=True)


print(torch.cuda.get_device_name(), torch.__version__, _C.explain(a, b, out_dtype=torch.bfloat16,
                                                                   scale_a=sa, scale_b=sb))
step("1 planner eager, no graph made yet", ours)
step("2 planner eager again", ours)
g = graphed(ours)
step("3 planner eager, its graph alive", ours)
step("3 planner graph replay", g.replay)
del g
torch.cuda.synchronize()
step("4 planner eager, its graph destroyed", ours)
_C.pin_kernel(TS)
step("5 pinned ts eager", ours)
g = graphed(ours)
step("6 pinned ts eager, its graph alive", ours)
step("6 pinned ts graph replay", g.replay)
del g
torch.cuda.synchronize()
step("7 pinned ts eager, its graph destroyed", ours)
_C.pin_kernel("")
step("8 planner eager after unpin", ours)
step("9 torch._scaled_mm eager", lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16))
print("captured flags state", _C.captured_split_flags_state(a))
