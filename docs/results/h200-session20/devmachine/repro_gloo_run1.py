import sys, os, time, tempfile, json
sys.path.insert(0, "/tmp/fresh/tests")
import faulthandler
import torch.multiprocessing as mp
import test_distributed as td

def w(rank, *args):
    faulthandler.enable()
    td._worker(rank, *args)

if __name__ == "__main__":
    n = int(sys.argv[1]); fails = 0
    for i in range(n):
        tmp = tempfile.mkdtemp()
        t = time.time()
        try:
            mp.spawn(w, args=("gloo", "cpu", os.path.join(tmp, "store"), tmp), nprocs=2, join=True)
            ok = True
        except Exception as e:
            ok = False; fails += 1; print("FAIL", i, e, flush=True)
        print(i, ok, round(time.time() - t, 1), flush=True)
    print("fails", fails, "of", n)
