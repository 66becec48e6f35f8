#!/usr/bin/env python3
"""Host time per call, and what the two ways of timing make of it (see blackwell_ops/timing.py).

For one FP8 problem (e4m3 -> bf16 with per-tensor scales, the planner's kernel), times:
  - the host wall time of one call (no GPU wait), median over many calls on a small problem, for
    the op (blackwell_ops.gemm_axpby), _C.run_kernel on the same kernel, and torch._scaled_mm;
  - GPU time at 8192^3 with the project's Timer (all reps queued) and with a synchronize after
    every rep (the Timer before 2026-11-30), for the op and run_kernel.
Prints a small table."""
import statistics
import time

import torch

import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer


def operands(n):
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(n, n, generator=g, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, generator=g, device="cuda").to(torch.float8_e4m3fn).t()
    sa = torch.tensor([0.5], device="cuda")
    sb = torch.tensor([2.0], device="cuda")
    return a, b, sa, sb


def calls(a, b, sa, sb):
    kernel = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb).split()[1]
    return kernel, {
        "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                               scale_b=sb),
        "run_kernel": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, kernel, True,
                                            None, sa, sb),
        "scaled_mm": lambda: torch._scaled_mm(a, b, sa.reshape(()), sb.reshape(()),
                                              out_dtype=torch.bfloat16),
    }


def host_us(fn, n=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    ts = []
    for i in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        if i % 100 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return 1e6 * statistics.median(ts)


def synced_ms(timer, fn, reps):
    """The Timer as it was: a synchronize after every rep."""
    fn()
    out = []
    for _ in range(reps):
        timer.flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e))
    return statistics.median(out)


def main():
    print(torch.cuda.get_device_name(), torch.__version__)
    kernel, fns = calls(*operands(256))
    print(f"host time per call, 256^3 ({kernel}):")
    for name, fn in fns.items():
        print(f"  {name:11s} {host_us(fn):8.1f} us")
    kernel, fns = calls(*operands(8192))
    timer = Timer("cuda")
    print(f"GPU time at 8192^3 ({kernel}), median of 30, L2 flushed:")
    for name, fn in fns.items():
        queued = statistics.median(timer(fn, 30))
        print(f"  {name:11s} queued {queued:.4f} ms   synchronized per rep {synced_ms(timer, fn, 30):.4f} ms")


if __name__ == "__main__":
    main()
