"""Where padding pays: the op on padded copies (BW_PAD=1) against the cuBLAS composite it ran
before (BW_PAD=0), torch.addmm and our op on the nearest aligned problem, over sizes. bf16 x @ W.T
with N = s + 1 and + C; bf16 with K = s + 4 (a and b padded); GPT-2's LM head (N = 50257, K = 768)
over M; FP8 e4m3 -> bf16 with K = s + 8 (the composite: fp32 upcast). Median of 20 CUDA-event
timings in each of 3 rounds (order rotated), L2 flushed before each run. Then a profile of one
padded call."""
import os
import statistics
import sys
import torch
from blackwell_ops import gemm_axpby

dev = "cuda"
flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device=dev)
g = torch.Generator(device=dev).manual_seed(0)


def r(*shape, dt=torch.bfloat16):
    return torch.randn(*shape, device=dev, generator=g).to(dt)


def with_pad(mode, f):
    def run():
        os.environ["BW_PAD"] = mode
        return f()
    return run


def timeit(fns, reps=20, rounds=3):
    times = {k: [] for k in fns}
    names = list(fns)
    for rd in range(rounds):
        for name in names[rd % len(names):] + names[:rd % len(names)]:
            f = fns[name]
            for _ in range(3):
                f()
            for _ in range(reps):
                flush.zero_()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record(); f(); e.record(); e.synchronize()
                times[name].append(s.elapsed_time(e))
    return {k: statistics.median(v) for k, v in times.items()}


def row(label, flops, t):
    cols = "  ".join(f"{k} {v:7.4f}" for k, v in t.items())
    print(f"{label:34s} {flops / 1e9:9.1f} GF  {cols}  padded/composite {t['pad'] / t['composite']:.2f}",
          flush=True)


import warnings
warnings.simplefilter("ignore")
print("ms; pad = ours on padded copies, composite = ours before (cuBLAS), aligned = ours on the "
      "nearest aligned problem")
for s in (512, 768, 1024, 1536, 2048, 3072, 4096, 8192):
    a, w, c = r(s, s), r(s + 1, s), r(s, s + 1)
    a0, w0, c0 = r(s, s), r(s, s), r(s, s)
    fns = {"pad": with_pad("1", lambda: gemm_axpby(a, w.t(), c, beta=1.0)),
           "composite": with_pad("0", lambda: gemm_axpby(a, w.t(), c, beta=1.0)),
           "aligned": lambda: gemm_axpby(a0, w0.t(), c0, beta=1.0)}
    row(f"bf16 {s}x{s + 1}x{s} +C", 2 * s * (s + 1) * s, timeit(fns))
for s in (512, 1024, 2048, 4096, 8192):
    a, w = r(s, s + 4), r(s, s + 4)
    a0, w0 = r(s, s), r(s, s)
    fns = {"pad": with_pad("1", lambda: gemm_axpby(a, w.t())),
           "composite": with_pad("0", lambda: gemm_axpby(a, w.t())),
           "aligned": lambda: gemm_axpby(a0, w0.t())}
    row(f"bf16 {s}x{s}x{s + 4}", 2 * s * s * (s + 4), timeit(fns))
W, W0 = r(50257, 768), r(50256, 768)
for m in (16, 64, 256, 1024, 4096, 16384):
    x = r(m, 768)
    fns = {"pad": with_pad("1", lambda: gemm_axpby(x, W.t())),
           "composite": with_pad("0", lambda: gemm_axpby(x, W.t())),
           "aligned": lambda: gemm_axpby(x, W0.t())}
    row(f"lm_head {m}x50257x768", 2 * m * 50257 * 768, timeit(fns))
sa, sb = torch.tensor([0.5], device=dev), torch.tensor([1.25], device=dev)
for s in (1024, 2048, 4096):
    a, w = r(s, s + 8, dt=torch.float8_e4m3fn), r(s, s + 8, dt=torch.float8_e4m3fn)
    a0, w0 = r(s, s, dt=torch.float8_e4m3fn), r(s, s, dt=torch.float8_e4m3fn)
    kw = dict(out_dtype=torch.bfloat16, scale_a=sa, scale_b=sb)
    fns = {"pad": with_pad("1", lambda: gemm_axpby(a, w.t(), **kw)),
           "composite": with_pad("0", lambda: gemm_axpby(a, w.t(), **kw)),
           "aligned": lambda: gemm_axpby(a0, w0.t(), **kw)}
    row(f"fp8 {s}x{s}x{s + 8}", 2 * s * s * (s + 8), timeit(fns, reps=10, rounds=2))
os.environ["BW_PAD"] = "1"
a, w, c = r(1000, 1000), r(1001, 1000), r(1000, 1001)
for _ in range(5):
    gemm_axpby(a, w.t(), c, beta=1.0)
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        gemm_axpby(a, w.t(), c, beta=1.0)
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60))
