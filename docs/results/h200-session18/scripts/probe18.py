"""Session 18: the public op (torch.ops.bw.gemm_axpby through blackwell_ops.gemm_axpby, the planner
choosing the kernel) on FP8 e4m3 -> bf16 without C, beside torch._scaled_mm and the shipped scale
kernel by name (the band order alone): does the op take the tail-split twin where the plan splits
and keep its gain? Settled: a fresh random order each round, each timed burst after WARM untimed
runs of the same call, L2 flushed before every run (blackwell_ops.timing.Timer)."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(18)
SHIPPED = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64"
SHAPES = [(1536, 4096, 8192), (2560, 4096, 8192), (8192, 8192, 8192), (8192, 14336, 4096),
          (4096, 4096, 4096)]
SMS = torch.cuda.get_device_properties(0).multi_processor_count

for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa, sb = torch.full((1,), 0.5, device=dev), torch.full((1,), 2.0, device=dev)
    ref = a.float() @ b.float()
    tiles = -(-M // 256) * -(-N // 256)
    whole, split_tiles, splits, _ = _C.sm90_tail_split(tiles, SMS // 2, -(-K // 128))
    path = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)
    print(f"fp8 {M}x{N}x{K}: {tiles} cluster tiles on {SMS // 2} clusters, whole {whole}, "
          f"{split_tiles} split {splits} ways; op path: {path}", flush=True)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "op": lambda: blackwell_ops.gemm_axpby(a, b, scale_a=sa, scale_b=sb,
                                                  out_dtype=torch.bfloat16),
           "shipped": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, SHIPPED, True,
                                            None, one, one)[1]}
    for k, f in fns.items():
        out = f().float()  # sa * sb = 1: every entry computes a @ b
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"fp8 {M}x{N}x{K} {REPS}x{ROUNDS} warm {WARM}: "
          + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items()),
          flush=True)
    del a, b, ref, fns
