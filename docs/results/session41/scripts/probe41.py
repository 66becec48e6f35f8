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

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "session40", "scripts"))
import probe40  # noqa: E402
from probe40 import Nvml, SHAPES, burst, providers  # noqa: E402

ROUNDS = 3
LENGTHS = (20, 100, "1s")


def main():
    nvml = Nvml()
    print(torch.cuda.get_device_name(), torch.__version__, nvml.limits(), flush=True)
    rng = random.Random(41)
    failed = 0
    for (M, N, K) in SHAPES:
        print(f"{M}x{N}x{K}:", flush=True)
        fns, kern, bad = providers(M, N, K)
        failed += len(bad)
        fns = {k: f for k, f in fns.items() if k in ("op", "scaled_mm", "fastaccum")}
        print(f"  the op's kernel: {kern}", flush=True)
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


if __name__ == "__main__":
    sys.exit(main())
