"""Session 20: how often does a gloo worker pair of tests/test_distributed.py die at exit?

    python docs/results/h200-session20/scripts/repro_gloo_exit.py N

Runs the test fixture's spawn (tests/test_distributed.py's _worker, gloo on the CPU, every case)
N times, each worker with faulthandler on (a SIGABRT prints the Python stack, or "<no Python
frame>"), and prints one line a run and the count of failed runs. Run from the repository root
with blackwell_ops importable. (The same without blackwell_ops: ../devmachine/repro_min.py.)
"""
import os
import sys
import tempfile
import time

import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.getcwd(), "tests"))


def test_worker(rank, store_path, out_dir):
    import faulthandler
    faulthandler.enable()
    import test_distributed
    test_distributed._worker(rank, "gloo", "cpu", store_path, out_dir)


if __name__ == "__main__":
    n = int(sys.argv[1])
    fails = 0
    for i in range(n):
        tmp = tempfile.mkdtemp()
        t = time.time()
        try:
            mp.spawn(test_worker, args=(os.path.join(tmp, "store"), tmp), nprocs=2, join=True)
            ok = True
        except Exception as e:  # noqa: BLE001
            ok, fails = False, fails + 1
            print(f"run {i}: {e}; files written: {sorted(os.listdir(tmp))}", flush=True)
        print(f"run {i} {'ok' if ok else 'FAILED'} {time.time() - t:.1f} s", flush=True)
    print(f"test_worker: {fails} of {n} runs failed", flush=True)
