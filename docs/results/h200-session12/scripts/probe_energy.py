"""Session 12, call 4: energy per product at the H200's power limit. For each provider, rounds in
a fresh random order: 300 untimed products, then N back-to-back products between two reads of
NVML's total-energy counter (mJ) and of the wall clock, with a device sync at both ends. Reports
per provider the median over rounds of ms per product, mJ per product and mean watts. No L2
flush: at these shapes A and B (64-112 MB of FP8) do not fit in the 60 MB L2 anyway."""
import ctypes, random, statistics, sys, time, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C

nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
handle = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0


def energy_mj() -> int:
    e = ctypes.c_ulonglong()
    assert nvml.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(e)) == 0
    return e.value


dev = "cuda"
one = torch.ones((), device=dev)
N, ROUNDS = 1200, int(sys.argv[1]) if len(sys.argv) > 1 else 5
random.seed(12)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_"
for (M, Nn, K) in [(8192, 8192, 8192), (8192, 14336, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(Nn, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "scaled_mm_fast": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True),
           "ours": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "fp8overlap_axpby", True, None, one, one)[1],
           "fastaccum": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "fastaccum_axpby", True, None, one, one)[1]}
    res = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            f = fns[k]
            for _ in range(300):
                f()
            torch.cuda.synchronize()
            e0, t0 = energy_mj(), time.perf_counter()
            for _ in range(N):
                f()
            torch.cuda.synchronize()
            e1, t1 = energy_mj(), time.perf_counter()
            res[k].append(((t1 - t0) * 1e3 / N, (e1 - e0) / N, (e1 - e0) / (t1 - t0) / 1e3))
    base = statistics.median(x[0] for x in res["scaled_mm"])
    base_e = statistics.median(x[1] for x in res["scaled_mm"])
    print(f"{M}x{Nn}x{K}, {N} products a round, {ROUNDS} rounds (medians):")
    for k, v in res.items():
        ms = statistics.median(x[0] for x in v)
        mj = statistics.median(x[1] for x in v)
        w = statistics.median(x[2] for x in v)
        print(f"  {k:15s} {ms:.4f} ms ({base / ms:.3f}x)  {mj:.1f} mJ ({mj / base_e:.3f} of scaled_mm)  {w:.0f} W", flush=True)
