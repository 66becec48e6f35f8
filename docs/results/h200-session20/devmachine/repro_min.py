# gloo + DTensor without blackwell_ops: does the exit abort happen?
import sys, os, time, tempfile
import torch, torch.distributed as dist
import torch.multiprocessing as mp

def w(rank, store_path):
    import faulthandler; faulthandler.enable()
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import distribute_tensor, Shard, Replicate
    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2)
    mesh = init_device_mesh("cpu", (2,))
    for i in range(20):
        a = distribute_tensor(torch.randn(16, 8), mesh, [Shard(1)])
        b = distribute_tensor(torch.randn(8, 12), mesh, [Shard(0)])
        (a @ b).full_tensor()
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    n = int(sys.argv[1]); fails = 0
    for i in range(n):
        tmp = tempfile.mkdtemp()
        try:
            mp.spawn(w, args=(os.path.join(tmp, "store"),), nprocs=2, join=True)
        except Exception as e:
            fails += 1; print("FAIL", i, e, flush=True)
    print("fails", fails, "of", n, flush=True)
