"""Session 29 (run122, an experiment): probe29.py's question widened. At M = 129-512 the 2x1
cluster's second CTA holds few rows or none (129: one of 128; 384: the second cluster row's
second CTA none); do its A loads (mostly or wholly past M) cost time? Kernels: plain, stream, and
two experiments (streamskip: a CTA whose A tile lies wholly past M loads no A; streambfirst: the
same, B issued before A), the tail-split twins, the 1x2 cluster and the 64x64 ping-pong tile.
Write flush only. argv[1] "ncu": one call each of plain and stream at 129 and 256 x 14336 x 4096
between cudaProfilerStart/Stop instead.
Session 29 (run121): at 129-256 rows (one row of 2x1 clusters of 128x128 FP8 tiles, whose grid reads
each weight byte once), does loading the weights evict-first (schedule coop_fp8overlap_stream,
csrc/gemm/sm90/streamed_loads.hpp) beat plain loads, persistent and tail-split, on Llama-3 8B's
projections (up: N 14336, K 4096; down: N 4096, K 14336; qkv: N 6144, K 4096; o: N 4096,
K 4096)? And at two rows of clusters (M = 384, 512), where the planner keeps plain loads?
e4m3 -> bf16 with scales, ours against torch._scaled_mm; side by side as probe29.py."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

dev = "cuda"
random.seed(29)
compiled = {k["name"] for k in _C.compiled_kernels()}
F = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_"
PROJ = {"up": (14336, 4096), "down": (4096, 14336), "qkv": (6144, 4096), "o": (4096, 4096)}
SHAPES = [(m, *PROJ["up"]) for m in (129, 160, 256, 384, 512)] + [(m, *PROJ["down"]) for m in (129, 256, 384)]
MODE = sys.argv[1] if len(sys.argv) > 1 else "time"
if MODE == "ncu":
    SHAPES = [(129, *PROJ["up"]), (256, *PROJ["up"])]
FLUSH_BYTES = 256 * 2**20


def providers(M, N, K):
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    ref = (a.float() @ b.float()) * (0.7 * 1.3)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
           "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                  scale_b=sb)}
    named = {}
    for ts in ("", "_ts"):
        for key, sched in (("plain", "coop_fp8overlap"), ("stream", "coop_fp8overlap_stream")):
            named[f"{key}{ts}"] = f"{F}{sched}{ts}_axpby"
    if MODE != "ncu":
        for key in ("streamskip", "streambfirst"):
            named[key] = f"{F}coop_fp8overlap_{key}_axpby"
        G = "sm90_e4m3_bf16_ak_bk_"
        named.update(c1x2=G + "128x128x128_c1x2_coop_fp8overlap_axpby",
                     c1x2_ts=G + "128x128x128_c1x2_coop_fp8overlap_ts_axpby",
                     pp6464=G + "64x64x128_c1x1_pingpong_axpby")
    else:
        named = {k: v for k, v in named.items() if "_ts" not in k}
    for key, name in named.items():
        if name in compiled:
            fns[key] = (lambda name=name: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name,
                                                        True, None, sa, sb)[1])
    explain = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    return fns, ref, explain


def check(label, fns, ref):
    for k in list(fns):
        out = fns[k]()
        err = ((out.float() - ref).norm() / ref.norm()).item()
        ok = err < 1e-2
        print(f"  {label} {k}: rel err {err:.3e}", "OK" if ok else "FAILED", flush=True)
        if not ok:
            del fns[k]


class ReadFlushTimer(Timer):
    """Timer with the L2 flushed by a read (a sum over 256 MiB) instead of a write."""

    def __call__(self, fn, reps, warmup=1):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        events = []
        for _ in range(reps):
            self.flush.sum(dtype=torch.int32)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in events]


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
for (M, N, K) in SHAPES:
    label = f"fp8 {M}x{N}x{K}"
    fns, ref, explain = providers(M, N, K)
    print(f"{label}: op path: {explain}", flush=True)
    check(label, fns, ref)
    if MODE == "ncu":
        flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device=dev)
        for key, fn in fns.items():
            if key in ("scaled_mm", "op"):
                continue
            for _ in range(2):
                fn()
            flush.zero_()
            torch.cuda.synchronize()
            print(f"  ncu-label {label} {key}", flush=True)
            torch.cuda.profiler.start()
            fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        continue
    for kind, timer in (("write", Timer(dev)),):
        times = {k: [] for k in fns}
        for _ in range(8):
            for k in random.sample(list(fns), len(fns)):
                times[k] += timer(fns[k], reps=20, warmup=5)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{label} flush={kind} (20x8, us; x = scaled_mm / it): "
              + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.2f}x)" for k, v in med.items()),
              flush=True)
        del timer
    del fns, ref
