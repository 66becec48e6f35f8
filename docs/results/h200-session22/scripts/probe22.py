"""Session 22 (run98, run99): FP8 and INT8 at small M (decode and prefill chunks of Llama-3 8B's MLP) on
the default kernels, the planner's choice (the op), small-M candidates (tools/generate_kernels.py,
_SM90_8BIT_SMALL_M and _SM90_FP8_CANDIDATES) and PyTorch's own offers, side by side.
Each fn's answer is checked against an fp32 reference of the exact inputs first. Settled timing:
a fresh random order each round, each timed burst after WARM untimed runs of the same call, L2
flushed before every run (blackwell_ops.timing.Timer); medians over ROUNDS x REPS runs."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

dev = "cuda"
t = Timer(dev)
REPS, ROUNDS, WARM = 20, int(sys.argv[1]) if len(sys.argv) > 1 else 5, 10
random.seed(22)
SMS = torch.cuda.get_device_properties(0).multi_processor_count
compiled = {k["name"] for k in _C.compiled_kernels()}
UP, DOWN = (14336, 4096), (4096, 14336)
F = "sm90_e4m3_bf16_ak_bk_"
FP8_KERNELS = {
    "c2x1": F + "128x128x128_c2x1_coop_fp8overlap_axpby",
    "c1x2": F + "128x128x128_c1x2_coop_fp8overlap_axpby",
    "wide": F + "128x256x128_c2x1_coop_fp8overlap_scale_e128x64",
    "pp64": F + "64x128x128_c1x2_pingpong_axpby",
    "pp128": F + "128x128x128_c1x2_pingpong_axpby",
    "cutlass_c1x2": F + "128x128x128_c1x2_coop_axpby",
    "sk": F + "128x128x128_c1x2_coop_sk_axpby",
    "ts_c1x2": F + "128x128x128_c1x2_coop_fp8overlap_ts_axpby",   # run99 on
    "ts_c2x1": F + "128x128x128_c2x1_coop_fp8overlap_ts_axpby",
}
I = "sm90_s8_s32_ak_bk_"
INT8_KERNELS = {
    "c2x1_256": I + "128x256x128_c2x1_coop_axpby",
    "pp64": I + "64x128x128_c1x2_pingpong_axpby",
    "pp128": I + "128x128x128_c1x2_pingpong_axpby",
    "sk": I + "128x128x128_c1x2_coop_sk_axpby",
}


def bench(label, fns, ref, peer, exact=False):
    for k in list(fns):
        try:
            out = fns[k]()
        except Exception as e:  # noqa: BLE001
            print(f"  {label} {k}: raised {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            del fns[k]
            continue
        if exact:
            ok = torch.equal(out, ref.to(out.dtype))
            print(f"  {label} {k}: exact {ok}", "OK" if ok else "FAILED", flush=True)
        else:
            err = ((out.float() - ref).norm() / ref.norm()).item()
            print(f"  {label} {k}: rel err {err:.3e}", "OK" if err < 1e-2 else "FAILED", flush=True)
    times = {k: [] for k in fns}
    for _ in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    print(f"{label} ({REPS}x{ROUNDS}, us; x = {peer} / it): "
          + "  ".join(f"{k} {v:.1f} ({med[peer] / v:.2f}x)" for k, v in med.items()), flush=True)


def kern(name, a, b, out_dtype, scales, sched=None):
    sa, sb = scales
    return lambda: _C.run_kernel(a, b, None, 1.0, 0.0, out_dtype, name, True, sched, sa, sb)[1]


def split_fns(prefix, name, a, b, out_dtype, scales, M, N):
    fns = {}
    tiles = -(-M // 128) * -(-N // 128)
    for s in (2, 4, 8):
        if tiles * s <= 2 * SMS:
            fns[f"{prefix}_split{s}"] = kern(name, a, b, out_dtype, scales,
                                            {"decomposition": "split_k", "splits": s})
    fns[f"{prefix}_streamk"] = kern(name, a, b, out_dtype, scales, {"decomposition": "stream_k"})
    return fns


print(f"SMs {SMS}; compiled: {len(compiled)} kernels", flush=True)
one = torch.ones((), device=dev)
for M in (16, 64, 128, 256, 512, 1024, 2048):
    for (N, K) in (UP, DOWN):
        a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
        b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
        sa = torch.tensor(0.7, device=dev)
        sb = torch.tensor(1.3, device=dev)
        ref = (a.float() @ b.float()) * (0.7 * 1.3)
        label = f"fp8 {M}x{N}x{K}"
        print(f"{label}: op path: {_C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)}",
              flush=True)
        for cm, cn in ((1, 2), (2, 1)):  # the tail-split plans of the 128x128 twins
            tiles = -(-M // (128 * cm)) * -(-N // (128 * cn))
            print(f"  ts c{cm}x{cn}: (whole, split tiles, splits) = "
                  f"{_C.sm90_tail_split(tiles, SMS // 2, -(-K // 128))[:3]}", flush=True)
        fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
               "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                      scale_b=sb)}
        for k, name in FP8_KERNELS.items():
            if name in compiled:
                fns[k] = kern(name, a, b, torch.bfloat16, (sa, sb))
        if FP8_KERNELS["sk"] in compiled:
            fns.update(split_fns("sk", FP8_KERNELS["sk"], a, b, torch.bfloat16, (sa, sb), M, N))
        bench(label, fns, ref, "scaled_mm")
        del a, b, ref, fns

for M in (32, 128, 512, 2048):
    for (N, K) in (UP, DOWN):
        a = torch.randint(-128, 128, (M, K), device=dev, dtype=torch.int8)
        b = torch.randint(-128, 128, (N, K), device=dev, dtype=torch.int8).t()
        ref = (a.double() @ b.double()).to(torch.int32)  # exact: |sum| < 2^31
        label = f"int8 {M}x{N}x{K}"
        print(f"{label}: op path: {_C.explain(a, b, None, 1.0, 0.0, torch.int32)}", flush=True)
        fns = {"int_mm": lambda: torch._int_mm(a, b),
               "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.int32)}
        for k, name in INT8_KERNELS.items():
            if name in compiled:
                fns[k] = kern(name, a, b, torch.int32, (None, None))
        if INT8_KERNELS["sk"] in compiled:
            fns.update(split_fns("sk", INT8_KERNELS["sk"], a, b, torch.int32, (None, None), M, N))
        bench(label, fns, ref, "int_mm", exact=True)
        del a, b, ref, fns
