import sys, os, time, tempfile, json
sys.path.insert(0, "/tmp/fresh/tests")
import faulthandler
import torch.multiprocessing as mp
import torch.distributed as dist
import test_distributed as td

_orig_barrier = dist.barrier
_orig_destroy = dist.destroy_process_group
def w(rank, *args):
    faulthandler.enable()
    t0 = time.time()
    def barrier(*a, **k):
        print(f"r{rank} {time.time()-t0:.2f} barrier in", file=sys.stderr, flush=True)
        r = _orig_barrier(*a, **k)
        print(f"r{rank} {time.time()-t0:.2f} barrier out", file=sys.stderr, flush=True)
        return r
    def destroy(*a, **k):
        r = _orig_destroy(*a, **k)
        print(f"r{rank} {time.time()-t0:.2f} destroyed", file=sys.stderr, flush=True)
        return r
    td.dist.barrier = barrier
    td.dist.destroy_process_group = destroy
    td._worker(rank, *args)
    print(f"r{rank} {time.time()-t0:.2f} worker returned", file=sys.stderr, flush=True)
    import atexit
    atexit.register(lambda: print(f"r{rank} {time.time()-t0:.2f} atexit", file=sys.stderr, flush=True))

if __name__ == "__main__":
    n = int(sys.argv[1]); fails = 0
    for i in range(n):
        tmp = tempfile.mkdtemp()
        t = time.time()
        print("RUN", i, tmp, file=sys.stderr, flush=True)
        try:
            mp.spawn(w, args=("gloo", "cpu", os.path.join(tmp, "store"), tmp), nprocs=2, join=True)
            ok = True
        except Exception as e:
            ok = False; fails += 1; print("FAIL", i, e, os.listdir(tmp), flush=True)
        print(i, ok, round(time.time() - t, 1), flush=True)
    print("fails", fails, "of", n)
