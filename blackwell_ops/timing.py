"""How the project times a GPU call: CUDA events around each run, the L2 flushed before every run,
all runs queued before one synchronize, after a warm-up (wall clock on the CPU). Shared by the
demo and the benchmarks (bench_gemm.py also interleaves the providers it compares)."""
from __future__ import annotations

import math
import random
import statistics
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


def interleaved_times(fns: dict, timer, reps: int, warmup: int, rounds: int,
                      order=None) -> dict:
    """{key: `reps` times (ms)} of each fn of fns, timed in `rounds` rounds, each fn one burst
    a round (after `warmup` untimed runs of it), so that a drift in the GPU's speed falls on
    every fn alike. order(r, keys): the keys in round r's order; by default rotated by r.
    Timed one fn after the other instead, the later ones came out slower under sustained FP8
    load: on the H200 (2026-11-30) one kernel measured 0.885 ms through the op and then 0.972
    ms through _C.run_kernel (docs/results/h200-session4/host_overhead.txt). With 1 warm-up
    run, two tile orders of one kernel measured alike that differ by 1-5% once each burst was
    preceded by 25 runs of its own, while identical calls agreed within 1% either way
    (docs/results/h200-session9/)."""
    keys = list(fns)
    times = {k: [] for k in keys}
    rounds = max(1, min(rounds, reps))
    for r in range(rounds):
        n = reps // rounds + (1 if r < reps % rounds else 0)
        shift = r % len(keys) if keys else 0
        for k in order(r, keys) if order else keys[shift:] + keys[:shift]:
            times[k] += timer(fns[k], n, warmup)
    return times


def side_by_side(fns: dict, timer: Timer, rounds: int = 8, reps: int = 20, warmup: int = 5,
                 rng: random.Random | None = None) -> dict:
    """{key: median microseconds} of each fn of fns over `rounds` rounds of `reps` runs, the
    order drawn at random each round: the session probes' method (docs/results/session3x/
    scripts); the benchmarks rotate it (interleaved_times' default)."""
    rng = rng or random.Random(0)
    times = interleaved_times(fns, timer, rounds * reps, warmup, rounds,
                              order=lambda r, keys: rng.sample(keys, len(keys)))
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def quantile(xs, q: float) -> float:
    """Linear-interpolated quantile, q in [0, 1]."""
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
