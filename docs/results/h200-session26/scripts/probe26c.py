"""Session 26: does a CUDA user object retained by a graph slow its replays? (probe26b.py: only
the tail-split kernels, whose captured launches hold their flags buffer by a user object, replay
~2 us slower than eager.) A one-kernel graph (torch's add on 4 KiB) timed as Timer times (L2
flushed, events around each replay), plain and with a user object retained (ctypes into the CUDA
runtime torch loaded), and with a 17 KiB memset node before the kernel (session 24's design)."""
import ctypes, glob, os, statistics, torch

dev = "cuda"
FLUSH = torch.empty(256 << 20, dtype=torch.int8, device=dev)  # blackwell_ops.timing's flush size


def timer(fn, reps, warmup):  # blackwell_ops.timing.Timer's method, without loading the extension
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = []
    for _ in range(reps):
        FLUSH.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        events.append((s, e))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in events]
torch.zeros(1, device=dev)
lib = [p for p in glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "cu13",
                                         "lib", "libcudart.so.13"))]
rt = ctypes.CDLL(lib[0] if lib else "libcudart.so.13")
DESTROY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
destroyed = []
destroy = DESTROY(lambda p: destroyed.append(p))
x = torch.randn(1024, device=dev)
z = torch.empty(17 * 1024, dtype=torch.uint8, device=dev)


def graph(body, user_objects=0):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        body()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(g):
        body()
    for _ in range(user_objects):
        obj = ctypes.c_void_p()
        assert rt.cudaUserObjectCreate(ctypes.byref(obj), None, destroy, 1, 1) == 0
        assert rt.cudaGraphRetainUserObject(ctypes.c_void_p(g.raw_cuda_graph()), obj, 1, 1) == 0
    g.instantiate()
    return g


def add():
    x.add_(1)


def memset_add():
    z.zero_()
    x.add_(1)


print(torch.cuda.get_device_name(), torch.__version__)
variants = {"add": graph(add), "add + 1 user object": graph(add, 1),
            "add + 4 user objects": graph(add, 4), "memset + add": graph(memset_add)}
res = {}
for _ in range(5):
    res.setdefault("add eager", []).extend(timer(add, 50, 10))
    for name, g in variants.items():
        res.setdefault(name, []).extend(timer(g.replay, 50, 10))
for name, t in res.items():
    print(f"{name:24s} event median {statistics.median(t) * 1e3:5.2f} us over {len(t)}")
del variants
torch.cuda.synchronize()
print("user object destructors run:", len(destroyed))
