"""Session 28: does the L2 write-back of the benchmark's flush slow the FP8 decode kernels, and does
loading the weights evict-first (schedule coop_stream, csrc/gemm/sm90/streamed_a.hpp) help?
Llama-3 8B's MLP at M = 1-64 (run116; run117: M = 65-128, the wider swapped tiles) (up: N 14336, K 4096; down: N 4096, K 14336), e4m3 -> bf16 with
scales, ours against torch._scaled_mm.
Modes (argv[1]):
  time  side by side, medians over rounds in random provider order, each answer checked against
        an fp32 reference first. Two flushes before every run: "write" (blackwell_ops.timing.Timer:
        256 MiB zeroed, the benchmarks' flush, which leaves the L2 full of dirty lines) and "read"
        (256 MiB summed: the L2 left holding clean lines).
  ncu   one call of each provider between cudaProfilerStart/Stop, the write flush before it
        (run under ncu --profile-from-start off --cache-control none, so ncu leaves the L2 as the
        flush left it); the labels in launch order go to stdout.
argv[2] (optional): shapes MxNxK, comma-separated."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

MODE = sys.argv[1] if len(sys.argv) > 1 else "time"
dev = "cuda"
random.seed(28)
compiled = {k["name"] for k in _C.compiled_kernels()}
F = "sm90_e4m3_bf16_ak_bk_"
UP, DOWN = (14336, 4096), (4096, 14336)
SHAPES = [(m, *s) for s in (DOWN, UP) for m in (1, 16, 32, 64)]
if len(sys.argv) > 2:
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in sys.argv[2].split(",")]
FLUSH_BYTES = 256 * 2**20


def swapped_tile(m):
    return next(t for t in (16, 32, 64) if m <= t)


def providers(M, N, K):
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    ref = (a.float() @ b.float()) * (0.7 * 1.3)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                  scale_b=sb)}
    named = {}
    if M <= 64:
        t = swapped_tile(M)
        for key, sched in (("plain", "coop"), ("stream", "coop_stream")):
            named[key] = f"{F}{t}x128x128_c1x1_{sched}_ts_swapab_axpby"
    elif M > 128:  # run120: 128x128 in 2x1 clusters, the weights (CUTLASS's B) evict-first or not
        for ts in ("", "_ts"):
            for sched in ("coop_fp8overlap", "coop_fp8overlap_stream"):
                named[f"c2x1{ts}{sched[15:]}"] = f"{F}128x128x128_c2x1_{sched}{ts}_axpby"
    else:  # run117: M = 65-128, the wider swapped tiles beside the planner's kernels there
        for t in (96, 128):
            if M <= t:
                named[f"sw{t}"] = f"{F}{t}x128x128_c1x1_coop_stream_ts_swapab_axpby"
        named.update(pp6464=F + "64x64x128_c1x1_pingpong_axpby",
                     c1x2=F + "128x128x128_c1x2_coop_fp8overlap_axpby",
                     ts_c1x2=F + "128x128x128_c1x2_coop_fp8overlap_ts_axpby")
    for key, name in named.items():
        if name in compiled:
            fns[key] = (lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name,
                                                        True, None, sa, sb)[1])
    explain = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    return fns, ref, explain


def check(label, fns, ref):
    for k in list(fns):
        out = fns[k]()
        err = ((out.float() - ref).norm() / ref.norm()).item()
        ok = err < 1e-2
        print(f"  {label} {k}: rel err {err:.3e}", "OK" if ok else "FAILED", flush=True)
        if not ok:
            del fns[k]


class ReadFlushTimer(Timer):
    """Timer with the L2 flushed by a read (a sum over 256 MiB) instead of a write."""

    def __call__(self, fn, reps, warmup=1):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        events = []
        for _ in range(reps):
            self.flush.sum(dtype=torch.int32)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in events]


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device=dev)
for (M, N, K) in SHAPES:
    label = f"fp8 {M}x{N}x{K}"
    fns, ref, explain = providers(M, N, K)
    print(f"{label}: op path: {explain}", flush=True)
    check(label, fns, ref)
    if MODE == "ncu":
        for key, fn in fns.items():
            for _ in range(2):
                fn()
            flush.zero_()
            torch.cuda.synchronize()
            print(f"  ncu-label {label} {key}", flush=True)
            torch.cuda.profiler.start()
            fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        continue
    for kind, timer in (("write", Timer(dev)), ("read", ReadFlushTimer(dev))):
        times = {k: [] for k in fns}
        for _ in range(8):
            for k in random.sample(list(fns), len(fns)):
                times[k] += timer(fns[k], reps=20, warmup=5)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{label} flush={kind} (20x8, us; x = scaled_mm / it): "
              + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.2f}x)" for k, v in med.items()),
              flush=True)
        del timer
    del fns, ref
