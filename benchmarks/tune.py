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
the same process. Timing is blackwell_ops.timing's: median of --reps runs, L2 flushed before each.

Writes <out>/tune.json (every measurement), tune.txt (per case: the best configuration, the
planner's choice, cuBLAS) and command.txt.
"""
from __future__ import annotations

import argparse
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

# Run-time schedules tried. "stream_k" kernels take all; the others only the swizzle variants.
SCHEDULES = {
    "dp": dict(decomposition="data_parallel"),
    "dp_sw4": dict(decomposition="data_parallel", swizzle=4),
    "heuristic": dict(decomposition="heuristic"),
    "streamk": dict(decomposition="stream_k"),
    "splitk2": dict(decomposition="split_k", splits=2),
    "splitk4": dict(decomposition="split_k", splits=4),
}
PERSISTENT_SCHEDULES = ("dp", "dp_sw4")


def arch() -> int:
    major, minor = torch.cuda.get_device_capability()
    return 10 * major + minor


def fitting_kernels(case: suites.Case):
    a_major = "K" if case.layout[0] == "k" else "MN"
    b_major = "K" if case.layout[1] == "k" else "MN"
    cd = case.out_dtype or case.dtype
    return [k for k in _C.compiled_kernels()
            if k["arch"] == arch() and k["ab"] == case.dtype and k["cd"] == cd
            and k["a_major"] == a_major and k["b_major"] == b_major]


def rel_err(d: torch.Tensor, ref: torch.Tensor) -> float:
    return ((d.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def tune_case(case, timer, reps):
    a, b, c, out_dt = bench_gemm.make_operands(case, "cuda")
    ref = case.alpha * (a.double() @ b.double())
    if c is not None and case.beta != 0:
        ref = ref + case.beta * c.double()
    tol = bench_gemm.TOL[out_dt]
    rows, wrong = [], []
    c_arg = c if case.with_c else None
    beta = case.beta if case.with_c else 0.0
    planned = _C.explain(a, b, c_arg, case.alpha, beta, out_dt)
    for k in fitting_kernels(case):
        names = SCHEDULES if k["scheduler"] == "stream_k" else PERSISTENT_SCHEDULES
        for sname in names:
            sched = SCHEDULES[sname]

            def run(k=k, sched=sched):
                return _C.run_kernel(a, b, c_arg, case.alpha, beta, out_dt, k["name"], True, sched)
            msg, d = run()
            if not msg.startswith("ok"):
                rows.append(dict(case=case.name, kernel=k["name"], schedule=sname, error=msg))
                continue
            err = rel_err(d, ref)
            if not err <= tol:
                wrong.append(f"{case.name} {k['name']} {sname}: rel err {err:.3g} > {tol}")
            ms = statistics.median(timer(run, reps))
            rows.append(dict(case=case.name, kernel=k["name"], schedule=sname, ms=ms,
                             tflops=case.flops / ms / 1e9, rel_err=err))
    peers = bench_gemm.providers(case, a, b, c, out_dt, ("addmm", "mm+epi"))
    peers["planner"] = peers.pop("bw")  # the op itself: the planner's choice, with its overhead
    for name, fn in peers.items():
        ms = statistics.median(timer(fn, reps))
        rows.append(dict(case=case.name, kernel=name, schedule="-", ms=ms,
                         tflops=case.flops / ms / 1e9))
    return rows, wrong, planned


def summary(case_name, rows, planned):
    timed = [r for r in rows if "ms" in r]
    ours = [r for r in timed if r["schedule"] != "-"]
    cublas = min((r for r in timed if r["kernel"] in ("addmm", "mm+epi")), key=lambda r: r["ms"])
    if not ours:
        return f"{case_name}: no kernel fits; best peer {cublas['kernel']} {cublas['ms']:.4f} ms"
    best = min(ours, key=lambda r: r["ms"])
    top = sorted(ours, key=lambda r: r["ms"])[:4]
    lines = [f"{case_name}: best {best['kernel']} [{best['schedule']}] {best['ms']:.4f} ms "
             f"({best['tflops']:.0f} TFLOP/s) = {cublas['ms'] / best['ms']:.3f}x best peer "
             f"{cublas['kernel']} {cublas['ms']:.4f} ms; planner: {planned}"]
    lines += [f"    {r['ms']:.4f} ms  {r['kernel']} [{r['schedule']}]" for r in top[1:]]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="tune", choices=sorted(suites.SUITES))
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--out", type=pathlib.Path, required=True)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("tune.py needs a CUDA GPU", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "command.txt").write_text(
        "python " + " ".join(shlex.quote(x) for x in [sys.argv[0], *sys.argv[1:]]) + "\n")
    timer = Timer("cuda")
    all_rows, all_wrong, lines = [], [], []
    for case in suites.SUITES[args.suite]:
        rows, wrong, planned = tune_case(case, timer, args.reps)
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
