"""How the project times a GPU call: CUDA events around each run, the L2 flushed before every run,
all runs queued before one synchronize, after a warm-up (wall clock on the CPU). Shared by the
demo and the benchmarks (bench_gemm.py also interleaves the providers it compares)."""
from __future__ import annotations

import math
import time

import torch

L2_FLUSH_BYTES = 256 * 2**20  # several times the 50-60 MB L2 of H100/H200/B200


class Timer:
    def __init__(self, device: str):
        self.device = device
        self.flush = (torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device)
                      if device == "cuda" else None)

    def __call__(self, fn, reps: int, warmup: int = 1) -> list[float]:
        """Milliseconds of each of `reps` runs of fn()."""
        for _ in range(warmup):
            fn()
        times = []
        if self.device == "cuda":
            # All reps are queued before one synchronize (as triton.testing.do_bench does), so the
            # host prepares each call while the GPU runs the previous flush and call, and the
            # events time GPU work only, as long as the host keeps ahead. A synchronize after
            # every rep would count any host time beyond the flush. Small here: on the H200
            # (2026-11-30) a call cost 27 us of host time through the op, 21 us through
            # torch._scaled_mm, and an 8192^3 FP8 call timed 0.885 ms queued, 0.898 ms with a
            # synchronize per rep (docs/results/h200-session4/host_overhead.txt).
            torch.cuda.synchronize()
            events = []
            for _ in range(reps):
                self.flush.zero_()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                events.append((start, end))
            torch.cuda.synchronize()
            times = [start.elapsed_time(end) for start, end in events]
        else:
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
        return times


def quantile(xs, q: float) -> float:
    """Linear-interpolated quantile, q in [0, 1]."""
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
