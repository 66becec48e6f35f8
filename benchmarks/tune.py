#!/usr/bin/env python3
"""Measure every compiled kernel, under each run-time schedule, on each problem: the data the
planner's rules (csrc/gemm/heuristics.cpp) are written from.

    python benchmarks/tune.py --suite tune --out benchmarks/results/h200/tune

For each case (benchmarks/suites.py) and each compiled kernel of this GPU's arch whose types and
layout fit it, the kernel is launched by name through blackwell_ops._C.run_kernel (bypassing the
planner) with each schedule of SCHEDULES that applies to it: data-parallel, stream-K and split-K
for kernels with CUTLASS's stream-K scheduler, the tile-order swizzle for all. Every (kernel,
schedule) answer is checked against an fp32 reference first; a wrong answer is recorded and makes
the run exit 1. cuBLAS (torch.addmm / baddbmm) and torch.mm + epilogue run on the same tensors in
the same process. Timing is blackwell_ops.timing's: median of --reps runs, L2 flushed before each,
all of a case's kernels and peers interleaved in rounds (bench_gemm.interleaved_times).

Writes <out>/tune.json (every measurement), tune.txt (per case: the best configuration, the
planner's choice, cuBLAS) and command.txt.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import shlex
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_gemm  # noqa: E402
import suites  # noqa: E402

from blackwell_ops import _C  # noqa: E402
from blackwell_ops.timing import Timer  # noqa: E402

# Run-time schedules tried. "stream_k" kernels take all; "tail_split" ones the swizzle variants
# (data-parallel: no split) and "heuristic" (the split where their plan makes one); the others
# only the swizzle variants.
SCHEDULES = {
    "dp": dict(decomposition="data_parallel"),
    "dp_sw2": dict(decomposition="data_parallel", swizzle=2),
    "dp_sw4": dict(decomposition="data_parallel", swizzle=4),
    "dp_sw8": dict(decomposition="data_parallel", swizzle=8),
    "dp_sw4_m": dict(decomposition="data_parallel", swizzle=4, raster="along_m"),
    "dp_sw4_n": dict(decomposition="data_parallel", swizzle=4, raster="along_n"),
    "heuristic": dict(decomposition="heuristic"),
    "streamk": dict(decomposition="stream_k"),
    "splitk2": dict(decomposition="split_k", splits=2),
    "splitk4": dict(decomposition="split_k", splits=4),
}
PERSISTENT_SCHEDULES = ("dp", "dp_sw4")  # the default of --schedules


# The peers timed beside the kernels: cuBLAS (and torch.mm + epilogue) for 16/32-bit inputs;
# for FP8/INT8 inputs the ones of bench_gemm.quant_peers that apply (torch._scaled_mm, _int_mm).
PEER_NAMES = ("addmm", "mm+epi", "scaled_mm", "int_mm")
FAST_PEER = "scaled_mm_fastaccum"  # torch._scaled_mm(use_fast_accum=True), listed, not a bar


def arch() -> int:
    major, minor = torch.cuda.get_device_capability()
    return 10 * major + minor


def fitting_kernels(case: suites.Case):
    a_major = "K" if case.layout[0] == "k" else "MN"
    b_major = "K" if case.layout[1] == "k" else "MN"
    cd = case.out_dtype or case.dtype
    b = case.dtype_b or case.dtype
    # Fused cases: the full fused kernels, and the lean ones (no X/Y) where the case has neither;
    # others: the axpby kernels, and the scale ones (no C) where the case has no C.
    lean_fits = case.x_factor is None and not case.return_y
    epilogues, act = ((("fused", "lean") if lean_fits else ("fused",), case.activation)
                      if case.fused else
                      (("axpby",) if case.with_c else ("axpby", "scale"), "none"))
    return [k for k in _C.compiled_kernels()
            if k["arch"] == arch() and k["ab"] == case.dtype and k["b"] == b and k["cd"] == cd
            and k["epilogue"] in epilogues and k["activation"] == act
            and k["a_major"] == a_major and k["b_major"] == b_major]


def rel_err(d: torch.Tensor, ref: torch.Tensor) -> float:
    return ((d.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def tune_case(case, timer, reps, warmup, persistent_schedules=PERSISTENT_SCHEDULES):
    a, b, c, out_dt = bench_gemm.make_operands(case, "cuda")
    scales = bench_gemm.make_scales(case, "cuda")  # (None, None) unless case.scaled
    ref = bench_gemm.reference(case, a, b, c, None, None, scales, torch.float64)
    tol = bench_gemm.tolerance(case, out_dt)
    rows, wrong = [], []
    c_arg = c if case.with_c else None
    beta = case.beta if case.with_c else 0.0
    planned = _C.explain(a, b, c_arg, case.alpha, beta, out_dt, *scales)
    entries = []  # (row without its time, fn): every checked kernel and schedule, then the peers
    for k in fitting_kernels(case):
        names = (SCHEDULES if k["scheduler"] == "stream_k" else
                 (*persistent_schedules, "heuristic") if k["scheduler"] == "tail_split" else
                 persistent_schedules)
        for sname in names:
            sched = SCHEDULES[sname]

            def run(k=k, sched=sched):
                return _C.run_kernel(a, b, c_arg, case.alpha, beta, out_dt, k["name"], True, sched,
                                     *scales)
            msg, d = run()
            if not msg.startswith("ok"):
                rows.append(dict(case=case.name, kernel=k["name"], schedule=sname, error=msg))
                continue
            err = rel_err(d, ref)
            if not err <= tol:
                wrong.append(f"{case.name} {k['name']} {sname}: rel err {err:.3g} > {tol}")
            entries.append((dict(case=case.name, kernel=k["name"], schedule=sname, rel_err=err),
                            run))
    peers = bench_gemm.case_providers(case, a, b, c, None, None, out_dt, scales, PEER_NAMES)
    peers["planner"] = peers.pop("bw")  # the op itself: the planner's choice, with its overhead
    if case.input_class == "fp8" and not case.has_epilogue:
        # For the FastAccum candidates only (not a "best peer": the other kernels promote).
        sa, sb = (case.alpha * scales[0]).reshape(()), scales[1].reshape(())
        peers[FAST_PEER] = lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=out_dt,
                                                    use_fast_accum=True)
    entries += [(dict(case=case.name, kernel=name, schedule="-"), fn) for name, fn in peers.items()]
    return rows + timed_rows(case, entries, timer, reps, warmup), wrong, planned


def timed_rows(case, entries, timer, reps, warmup=bench_gemm.GPU_WARMUP):
    """The rows of entries [(row, fn)] with each fn's median time: all timed together, in
    bench_gemm's interleaved rounds, so that the GPU's clock drift under load (up to 10% within
    a case, docs/results/h200-session4/) falls on every kernel and peer alike, each burst after
    `warmup` untimed runs of its own (bench_gemm.GPU_WARMUP: with 1, tile orders 1-5% apart
    measured alike, docs/results/h200-session9/)."""
    times = bench_gemm.interleaved_times({i: fn for i, (_, fn) in enumerate(entries)}, timer,
                                         reps, warmup)
    rows = []
    for i, (row, _) in enumerate(entries):
        ms = statistics.median(times[i])
        rows.append(dict(row, ms=ms, tflops=case.flops / ms / 1e9))
    return rows


@contextlib.contextmanager
def pinned_to(name: str):
    """The planner pinned to one kernel (_C.pin_kernel) inside the block."""
    _C.pin_kernel(name)
    try:
        yield
    finally:
        _C.pin_kernel("")


def tune_fused_case(case, timer, reps, warmup):
    """A bw.gemm_fused case: each fitting fused kernel through the op, the planner pinned to it
    (_C.pin_kernel: the op's host path included, as users see it), with the planner's own run-time
    schedule; then the op unpinned and the case's peers (bench_gemm's defaults)."""
    a, b, c, out_dt = bench_gemm.make_operands(case, "cuda")
    bias, x = bench_gemm.make_fused_extras(case, "cuda", out_dt)
    scales = bench_gemm.make_scales(case, "cuda")
    ref = bench_gemm.reference(case, a, b, c, bias, x, scales, torch.float64)
    tol = bench_gemm.tolerance(case, out_dt)
    fns = bench_gemm.case_providers(case, a, b, c, bias, x, out_dt, scales, PEER_NAMES)
    op = fns.pop("bw")
    planned = bench_gemm.explain_path(case, a, b, c, bias, x, out_dt, scales)
    rows, wrong, entries = [], [], []
    for k in fitting_kernels(case):
        with pinned_to(k["name"]):
            path = bench_gemm.explain_path(case, a, b, c, bias, x, out_dt, scales)
            if not path.startswith("kernel: " + k["name"]):
                rows.append(dict(case=case.name, kernel=k["name"], schedule="planner", error=path))
                continue
            d = op()
            d = d[0] if case.return_y else d
        err = rel_err(d, ref)
        if not err <= tol:
            wrong.append(f"{case.name} {k['name']}: rel err {err:.3g} > {tol}")

        def pinned(name=k["name"]):
            with pinned_to(name):
                return op()
        entries.append((dict(case=case.name, kernel=k["name"], schedule="planner", rel_err=err),
                        pinned))
    fns["planner"] = op
    entries += [(dict(case=case.name, kernel=name, schedule="-"), fn) for name, fn in fns.items()]
    return rows + timed_rows(case, entries, timer, reps, warmup), wrong, planned


def summary(case_name, rows, planned):
    timed = [r for r in rows if "ms" in r]
    ours = [r for r in timed if r["schedule"] != "-"]
    cublas = min((r for r in timed if r["schedule"] == "-" and r["kernel"] not in ("planner", FAST_PEER)),
                 key=lambda r: r["ms"])
    if not ours:
        return f"{case_name}: no kernel fits; best peer {cublas['kernel']} {cublas['ms']:.4f} ms"
    best = min(ours, key=lambda r: r["ms"])
    top = sorted(ours, key=lambda r: r["ms"])[:8]
    lines = [f"{case_name}: best {best['kernel']} [{best['schedule']}] {best['ms']:.4f} ms "
             f"({best['tflops']:.0f} TFLOP/s) = {cublas['ms'] / best['ms']:.3f}x best peer "
             f"{cublas['kernel']} {cublas['ms']:.4f} ms; planner: {planned}"]
    lines += [f"    {r['ms']:.4f} ms  {r['kernel']} [{r['schedule']}]" for r in top[1:]]
    lines += [f"    {r['ms']:.4f} ms  peer {r['kernel']}" for r in timed
              if r["schedule"] == "-" and r["kernel"] != cublas["kernel"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="tune", choices=sorted(suites.SUITES))
    # 50: 10 runs a provider in each of bench_gemm's 5 rounds. With 2-4 a round, FP8 rows under the
    # H200's power limit twice showed 7-8% leads that longer bursts did not
    # (docs/results/h200-session5/README.md).
    p.add_argument("--reps", type=int, default=50,
                   help="timed runs per kernel and peer, spread over 5 interleaved rounds")
    p.add_argument("--warmup", type=int, default=bench_gemm.GPU_WARMUP,
                   help=f"untimed runs of a call before each timed burst (default "
                        f"{bench_gemm.GPU_WARMUP}, as bench_gemm.py)")
    p.add_argument("--out", type=pathlib.Path, required=True)
    p.add_argument("--schedules", default=",".join(PERSISTENT_SCHEDULES),
                   help="run-time schedules tried on persistent kernels, comma-separated, from: "
                        + ", ".join(SCHEDULES) + " (stream-K kernels take all; gemm_fused cases "
                        "run through the op with the planner's own schedule)")
    args = p.parse_args(argv)
    persistent = tuple(args.schedules.split(","))
    for name in persistent:
        if name not in SCHEDULES:
            p.error(f"--schedules: unknown schedule {name!r}")
    if not torch.cuda.is_available():
        print("tune.py needs a CUDA GPU", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "command.txt").write_text(
        "python " + " ".join(shlex.quote(x) for x in [sys.argv[0], *sys.argv[1:]]) + "\n")
    timer = Timer("cuda")
    all_rows, all_wrong, lines = [], [], []
    for case in suites.SUITES[args.suite]:
        if case.fused:
            rows, wrong, planned = tune_fused_case(case, timer, args.reps, args.warmup)
        else:
            rows, wrong, planned = tune_case(case, timer, args.reps, args.warmup, persistent)
        all_rows += rows
        all_wrong += wrong
        lines.append(summary(case.name, rows, planned))
        print(lines[-1], flush=True)
    (args.out / "tune.json").write_text(json.dumps(
        dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__, rows=all_rows,
             wrong=all_wrong), indent=1))
    (args.out / "tune.txt").write_text("\n".join(lines) + "\n")
    for w in all_wrong:
        print("WRONG:", w, file=sys.stderr)
    return 1 if all_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
