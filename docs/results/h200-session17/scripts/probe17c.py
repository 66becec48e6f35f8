"""Session 17, run88: the k-major tail-split scheduler (csrc/gemm/tile_order.hpp, TailSplit) on the FP8 wide
tile's scale kernel, beside the shipped scale kernel (the band order alone) and torch._scaled_mm.
ts: the tail-split kernel as the planner runs it (the split where the plan says it pays);
ts_dp: the same kernel told not to split (decomposition data_parallel), the control for its
code. Settled: a fresh random order each round, each timed burst after WARM untimed runs of the
same call, L2 flushed before every run (blackwell_ops.timing.Timer)."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(17)
SHIPPED = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64"
TS = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64"
SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (1536, 4096, 8192), (2560, 4096, 8192),
          (8192, 4096, 14336), (4096, 4096, 4096)]
SMS = torch.cuda.get_device_properties(0).multi_processor_count
compiled = {k["name"] for k in _C.compiled_kernels()}


def bench(label, fns, ref, peer):
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {label} {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: "
          + "  ".join(f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)


def kern(name, a, b, sched=None):
    return lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, sched, one, one)[1]


for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    tiles = -(-M // 256) * -(-N // 256)
    whole, split_tiles, splits, _ = _C.sm90_tail_split(tiles, SMS // 2, -(-K // 128))
    msg, _ = _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, TS, False, None, one, one)
    print(f"fp8 {M}x{N}x{K}: {tiles} cluster tiles on {SMS // 2} clusters, whole {whole}, "
          f"{split_tiles} split {splits} ways; ts host path: {msg}", flush=True)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "shipped": kern(SHIPPED, a, b)}
    if TS in compiled:
        fns["ts"] = kern(TS, a, b)
        sw = 8 if M * K + N * K > 50 * 2**20 else 1
        fns["ts_dp"] = kern(TS, a, b, {"decomposition": "data_parallel", "swizzle": sw})
        d1, d2 = fns["ts"](), fns["ts"]()
        print(f"  fp8 {M}x{N}x{K} ts twice bitwise: {torch.equal(d1, d2)}; "
              f"ts_dp == shipped bitwise: {torch.equal(fns['ts_dp'](), fns['shipped']())}", flush=True)
    bench(f"fp8 {M}x{N}x{K}", fns, ref, "scaled_mm")
    del a, b, ref, fns
