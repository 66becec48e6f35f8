"""Session 40: energy per call of the FP8 plain product at 8192^3 and Llama-8B up (8192 x 14336 x
4096), ours against torch._scaled_mm, beside variants of ours that differ in one thing each.

run157 (session 39's probe, run in session 40 on a lent H100; docs/results/session40/README.md)
found the op within 0-2% of _scaled_mm in one profiled launch (8192^3 770 against 771 us, up 702
against 689) but 3-5% behind side by side after the write flush (878 against 852, 803 against
762), where session 39's H100 had it 10% ahead: a long FP8 product runs at the power cap, where
time follows energy. This
probe measures that directly: for each provider, bursts of back-to-back calls (no flush, about
`BURST_S` seconds), the GPU's energy counter (NVML, mJ) read before and after, its SM clock,
power and clock-event reasons sampled while the burst runs; three rounds in a random order.
Then the same providers side by side the benchmarks' way (flush before every call).

Providers (the op's kernel, called by name through _C.run_kernel, differs from it in one
thing each): op; scaled_mm; sw1 (the op's kernel without the band swizzle: more DRAM reads);
axpby (the 128x256 overlap kernel with the C-reading epilogue, beta 0: the same mainloop);
fastaccum (CUTLASS's FP8 mainloop, fast accumulation: no promotion into fp32 registers; the
same epilogue as axpby, so axpby against fastaccum is the promotion's energy); t128 (the 128x128
2x1 overlap kernel). Every output is checked against an fp64 reference first."""
import ctypes
import os
import random
import statistics
import sys
import time

import torch

import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer, side_by_side

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "session39", "scripts"))
from probe39 import operands  # noqa: E402

dev = "cuda"
BURST_S = 1.0
G = "sm90_e4m3_bf16_ak_bk_"
NAMED = {"sw1": ("128x256x128_c2x1_coop_fp8overlap_scale_e128x64", {"swizzle": 1}),
         "axpby": ("128x256x128_c2x1_coop_fp8overlap_axpby", None),
         "fastaccum": ("128x256x128_c2x1_coop_fastaccum_axpby", None),
         "t128": ("128x128x128_c2x1_coop_fp8overlap_axpby", None)}
SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096)]
# regimes' idle spin, 60-90 us at 1.3-2 GHz: about as long as the write flush's 256 MiB at
# 3-4.8 TB/s (an estimate; regimes prints both, measured)
SLEEP_CYCLES = 120_000


class Nvml:
    """The few NVML calls this needs, through ctypes (no pynvml on the device machine)."""

    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        assert self.lib.nvmlInit_v2() == 0
        count = ctypes.c_uint()
        self.lib.nvmlDeviceGetCount_v2(ctypes.byref(count))
        assert count.value == 1, f"{count.value} GPUs: which one is CUDA's device 0?"
        self.h = ctypes.c_void_p()
        assert self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.h)) == 0

    def _get(self, fn, ctype, *args):
        v = ctype()
        rc = getattr(self.lib, fn)(self.h, *args, ctypes.byref(v))
        return v.value if rc == 0 else None

    def energy_mj(self):
        return self._get("nvmlDeviceGetTotalEnergyConsumption", ctypes.c_ulonglong)

    def sample(self):
        return (self._get("nvmlDeviceGetClockInfo", ctypes.c_uint, 1),          # SM MHz
                self._get("nvmlDeviceGetPowerUsage", ctypes.c_uint),            # mW
                self._get("nvmlDeviceGetTemperature", ctypes.c_uint, 0),        # C
                self._get("nvmlDeviceGetCurrentClocksEventReasons", ctypes.c_ulonglong)
                or self._get("nvmlDeviceGetCurrentClocksThrottleReasons", ctypes.c_ulonglong))

    def limits(self):
        return {"power_limit_w": (self._get("nvmlDeviceGetEnforcedPowerLimit", ctypes.c_uint)
                                  or 0) / 1e3,
                "max_sm_mhz": self._get("nvmlDeviceGetMaxClockInfo", ctypes.c_uint, 1)}


def providers(M, N, K):
    a, b, sa, sb, ref = operands(M, N, K, torch.float8_e4m3fn)
    fns = {"op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16, scale_a=sa,
                                                  scale_b=sb),
           "scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)}
    compiled = {k["name"] for k in _C.compiled_kernels()}
    for key, (name, sched) in NAMED.items():
        if G + name in compiled:
            fns[key] = (lambda name=G + name, sched=sched: _C.run_kernel(
                a, b, None, 1.0, 0.0, torch.bfloat16, name, True, sched, sa, sb)[1])
    kern = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
    failed = []
    for k in list(fns):
        err = ((fns[k]().double() - ref).norm() / ref.norm()).item()
        print(f"  {k}: rel err {err:.2e}{'' if err < 1e-2 else ' FAILED'}", flush=True)
        if not err < 1e-2:
            failed.append(k)
            del fns[k]
    return fns, kern.split("kernel: ")[-1], failed


def shape_providers(M, N, K, keep=None):
    """providers() for one shape, with the shape and the op's kernel printed: (fns, checks
    failed); fns only the keys in keep, when given."""
    print(f"{M}x{N}x{K}:", flush=True)
    fns, kern, bad = providers(M, N, K)
    if keep is not None:
        fns = {k: f for k, f in fns.items() if k in keep}
    print(f"  the op's kernel: {kern}", flush=True)
    return fns, len(bad)


def burst(nvml, fn, est_ms):
    """(us a call, mJ a call, median SM MHz, median W, max C, OR of clock-event reasons)."""
    n = max(20, int(BURST_S * 1e3 / est_ms))
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0 = nvml.energy_mj()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    samples = []
    while not end.query():
        samples.append(nvml.sample())
        time.sleep(0.01)
    torch.cuda.synchronize()
    e1 = nvml.energy_mj()
    us = start.elapsed_time(end) * 1e3 / n
    s = samples or [nvml.sample()]
    reasons = 0
    for x in s:
        reasons |= x[3] or 0
    return (us, (e1 - e0) / n, statistics.median(x[0] for x in s),
            statistics.median(x[1] for x in s) / 1e3, max(x[2] for x in s), reasons)


def main():
    nvml = Nvml()
    print(torch.cuda.get_device_name(), torch.__version__, nvml.limits(), flush=True)
    rng = random.Random(40)
    failed = 0
    for (M, N, K) in SHAPES:
        fns, bad = shape_providers(M, N, K)
        failed += bad
        est = {k: statistics.median(Timer(dev)(f, 5, 3)) for k, f in fns.items()}
        rows = {k: [] for k in fns}
        for r in range(3):
            for k in rng.sample(list(fns), len(fns)):
                rows[k].append(burst(nvml, fns[k], est[k]))
        print("  bursts (median of 3 rounds): us/call  mJ/call  SM MHz  W  max C  reasons",
              flush=True)
        base = statistics.median(x[1] for x in rows["scaled_mm"])
        for k, xs in rows.items():
            med = [statistics.median(x[i] for x in xs) for i in range(5)]
            reasons = 0
            for x in xs:
                reasons |= x[5]
            print(f"  {k:10s} {med[0]:8.1f} {med[1]:8.1f} {med[2]:6.0f} {med[3]:6.1f} "
                  f"{med[4]:4.0f}  0x{reasons:x}  energy/scaled_mm {med[1] / base:.3f}  "
                  f"rounds us {' '.join(f'{x[0]:.1f}' for x in xs)} mJ "
                  f"{' '.join(f'{x[1]:.1f}' for x in xs)}", flush=True)
        med = side_by_side(fns, Timer(dev), rng=rng)
        print("  side by side, flushed (us): " + "  ".join(f"{k} {v:.1f}" for k, v in med.items()),
              flush=True)
        del fns
    print(f"checks failed: {failed}")


class Pre:
    """What runs before each timed call in place of Timer's flush (Timer calls flush.zero_())."""

    def __init__(self, fn):
        self.zero_ = fn


def regimes():
    """The op, _scaled_mm, fastaccum and sw1 side by side under four things run before every call
    (`python3 probe40.py regimes`; run159 found ours even with _scaled_mm in back-to-back bursts
    and 3-4% behind it after the benchmarks' write flush): nothing (burst); the benchmarks' write
    flush (wflush: 256 MiB written, the L2 left full of dirty lines); a read of 256 MiB (rflush:
    the L2 left clean); an idle spin of SLEEP_CYCLES (sleep: no flush, the SMs idle about as long
    as the write flush takes). An NVML thread samples the SM clock every 5 ms, each sample
    labelled with the provider whose calls were queued last (the samples are cleared per
    regime)."""
    import threading
    nvml = Nvml()
    print(torch.cuda.get_device_name(), torch.__version__, nvml.limits(), flush=True)
    timer, rng = Timer(dev), random.Random(41)
    rbuf = torch.ones(timer.flush.numel() // 4, device=dev)
    wflush = timer.flush
    pres = {"burst": Pre(lambda: None), "wflush": wflush, "rflush": Pre(lambda: rbuf.sum()),
            "sleep": Pre(lambda: torch.cuda._sleep(SLEEP_CYCLES))}
    for name, pre in pres.items():
        timer.flush = pre
        ms = statistics.median(timer(lambda: None, 20, 5))  # nothing timed: just the pre-op's gap
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(20):
            pre.zero_()
        t1.record()
        torch.cuda.synchronize()
        print(f"  pre-op {name}: {t0.elapsed_time(t1) * 1e3 / 20:.1f} us ({ms * 1e3:.1f} us "
              f"of empty timed call)", flush=True)
    label, samples, stop = [None], [], threading.Event()

    def sampler():
        while not stop.is_set():
            samples.append((label[0], nvml.sample()[0]))
            time.sleep(0.005)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    failed = 0
    for (M, N, K) in SHAPES:
        fns, bad = shape_providers(M, N, K, ("op", "scaled_mm", "fastaccum", "sw1"))
        failed += bad
        for name, pre in pres.items():
            timer.flush = pre
            samples.clear()
            wrapped = {k: (lambda k=k, f=f: (label.__setitem__(0, k), f())[1])
                       for k, f in fns.items()}
            med = side_by_side(wrapped, timer, rounds=10, rng=rng)
            mhz = {k: statistics.median([c for lab, c in samples if lab == k] or [0])
                   for k in fns}
            print(f"  {name:7s} (us, median SM MHz): " + "  ".join(
                f"{k} {v:.1f} ({mhz[k]:.0f})" for k, v in med.items())
                + f"  op/scaled_mm {med['op'] / med['scaled_mm']:.3f}", flush=True)
        del fns, wrapped
    stop.set()
    print(f"checks failed: {failed}")


if __name__ == "__main__":
    sys.exit({"energy": main, "regimes": regimes}[sys.argv[1] if len(sys.argv) > 1 else "energy"]())
