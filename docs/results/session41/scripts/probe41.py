"""Session 41: does the plain FP8 gap depend on how many calls run back to back?

run160 (session 41 on a lent H100, `probe40.py regimes`) found the op 2-3% behind
torch._scaled_mm at 8192^3 and 4-7% behind at Llama-8B up under every pre-op, the no-flush one
included, the NVML SM clock the same for both. Session 40's H200 had them even in 1-second
bursts (probe40.py energy) but 3-4% apart in the suites' blocks of 20 timed calls. This probe
times blocks of n back-to-back calls (no flush, CUDA events around the block only) for
n = 20, 100 and about 1 s worth, each provider in a random order each round, and reads the NVML
energy counter around every block (meaningful for the long blocks only: the counter moves in
steps of tens of ms). If ours trails at n = 20 and not at 1 s, the suites' short blocks (a
clock or power transient) make the gap; if it trails at every n, it is steady state on this
GPU. Every output is checked against fp64 first (probe40.providers)."""
import os
import random
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "session40", "scripts"))
import probe40  # noqa: E402
from probe40 import Nvml, SHAPES, burst, shape_providers  # noqa: E402

ROUNDS = 3
LENGTHS = (20, 100, "1s")
ROUNDS_CHAIN, REPS, IDLE_S = 10, 20, 0.02
KEEP = ("op", "scaled_mm", "fastaccum")


def main():
    nvml = Nvml()
    print(torch.cuda.get_device_name(), torch.__version__, nvml.limits(), flush=True)
    rng = random.Random(41)
    failed = 0
    for (M, N, K) in SHAPES:
        fns, bad = shape_providers(M, N, K, KEEP)
        failed += bad
        est = {k: burst(nvml, f, 50.0)[0] / 1e3 for k, f in fns.items()}  # ms a call, 20 calls
        rows = {(k, n): [] for k in fns for n in LENGTHS}
        for _ in range(ROUNDS):
            for k in rng.sample(list(fns), len(fns)):
                for n in LENGTHS:
                    # burst() runs max(20, BURST_S / est) calls after 10 of warm-up
                    probe40.BURST_S = (1.0 if n == "1s" else n * est[k] * 1e-3)
                    rows[(k, n)].append(burst(nvml, fns[k], est[k]))
        print("  block    provider   us/call (median of rounds; rounds)   mJ/call   SM MHz  W  "
              "reasons", flush=True)
        for n in LENGTHS:
            base = statistics.median(x[0] for x in rows[("scaled_mm", n)])
            for k in fns:
                xs = rows[(k, n)]
                med = [statistics.median(x[i] for x in xs) for i in range(4)]
                reasons = 0
                for x in xs:
                    reasons |= x[5]
                print(f"  {str(n):6s} {k:10s} {med[0]:8.1f} ({' '.join(f'{x[0]:.1f}' for x in xs)})"
                      f"  /scaled_mm {med[0] / base:.3f}  {med[1]:7.1f} {med[2]:6.0f} {med[3]:5.0f}"
                      f"  0x{reasons:x}", flush=True)
        del fns
    print(f"checks failed: {failed}")


def chain():
    """`python3 probe41.py chain` (run163): run161 / run162 on one H100 had the op 0.997-1.022x
    _scaled_mm in probe41's blocks (each after the host's polling gap of up to 10 ms) but
    1.012-1.052x in side_by_side (providers one after another, the host keeping ahead). Four
    ways to time the same blocks of 20 calls (5 warm-up calls each, no flush, 10 rounds, the
    order drawn at random each round): with or without a host-side idle gap of IDLE_S before each
    provider's block, and with CUDA events around each call (the median: side_by_side's way) or
    around the block (the mean)."""
    rng = random.Random(43)
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    failed = 0
    for (M, N, K) in SHAPES:
        fns, bad = shape_providers(M, N, K, KEEP)
        failed += bad
        for idle in (False, True):
            for per_call in (True, False):
                times = {k: [] for k in fns}
                for _ in range(ROUNDS_CHAIN):
                    pending = []
                    for k in rng.sample(list(fns), len(fns)):
                        if idle:
                            torch.cuda.synchronize()
                            time.sleep(IDLE_S)
                        for _ in range(5):
                            fns[k]()
                        ev = [torch.cuda.Event(enable_timing=True)
                              for _ in range(2 * REPS if per_call else 2)]
                        ev[0].record()
                        for i in range(REPS):
                            if per_call and i:
                                ev[2 * i].record()
                            fns[k]()
                            if per_call:
                                ev[2 * i + 1].record()
                        if not per_call:
                            ev[1].record()
                        pending.append((k, ev))
                    torch.cuda.synchronize()
                    for k, ev in pending:
                        if per_call:
                            times[k] += [ev[2 * i].elapsed_time(ev[2 * i + 1]) * 1e3
                                         for i in range(REPS)]
                        else:
                            times[k].append(ev[0].elapsed_time(ev[1]) * 1e3 / REPS)
                med = {k: statistics.median(v) for k, v in times.items()}
                name = ("idle " if idle else "chain") + (" per call" if per_call else " block   ")
                print(f"  {name} (us): " + "  ".join(f"{k} {v:.1f}" for k, v in med.items())
                      + f"  op/scaled_mm {med['op'] / med['scaled_mm']:.3f}"
                      + f"  fastaccum/scaled_mm {med['fastaccum'] / med['scaled_mm']:.3f}",
                      flush=True)
        del fns
    print(f"checks failed: {failed}")


if __name__ == "__main__":
    sys.exit({"blocks": main, "chain": chain}[sys.argv[1] if len(sys.argv) > 1 else "blocks"]())
