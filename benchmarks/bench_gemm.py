#!/usr/bin/env python3
"""Side-by-side speed of bw.gemm_axpby against what users would otherwise write.

    python benchmarks/bench_gemm.py --suite default --out benchmarks/results/h200
    python benchmarks/bench_gemm.py --suite cpu --device cpu --out /tmp/bench   # CI smoke

For every case of the suite (benchmarks/suites.py), on the same tensors in one process:
  bw           blackwell_ops.gemm_axpby (our op)
  addmm        torch.addmm / torch.baddbmm (cuBLAS with its own epilogue; out_dtype overload
               where the output type differs)
  mm+epi       torch.mm / torch.bmm (fp32 out where the output is fp32), then alpha * P + beta * C
  eager        the composite as a user writes it: alpha * (a @ b) + beta * c, cast to out_dtype
  compile      torch.compile of the eager composite (mode="default")
  compile-max  the same with mode="max-autotune" (opt-in: --peers ...,compile-max; slow to compile)
Our op's answer is checked first against an fp32 reference (exit status 1 if wrong). Each provider
is warmed up, then timed --reps times with the L2 flushed before every run (CUDA events; wall clock
on CPU); the median and 20/80 quantiles are kept. Compile time is reported separately.

Writes <out>/results.json, results.csv, tflops.png, speedup.png and command.txt, and prints a
table last: ms, TFLOP/s, % of the measured bf16 matmul peak, GB/s, speedup vs the best peer, and
the geometric mean of the speedups.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import json
import math
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import suites  # noqa: E402

import blackwell_ops  # noqa: E402
from blackwell_ops.timing import L2_FLUSH_BYTES, Timer, quantile  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEERS_DEFAULT = ("addmm", "mm+epi", "eager", "compile")
ALL_PROVIDERS = ("bw", "addmm", "mm+epi", "eager", "compile", "compile-max")
TOL = {torch.bfloat16: 2e-2, torch.float16: 5e-3, torch.float32: 1e-4, torch.float64: 1e-10}


# ----------------------------------------------------------------------------- problem set-up

def make_operands(case: suites.Case, device: str, seed: int = 0):
    dt = getattr(torch, case.dtype)
    g = torch.Generator(device=device).manual_seed(seed)

    def rnd(*shape):
        return torch.randn(*shape, generator=g, device=device, dtype=torch.float32).to(dt)

    lead = (case.l,) if case.l > 1 else ()
    a_kmajor = case.layout[0] == "k"     # "k?": a row-major (K has unit stride)
    b_kmajor = case.layout[1] == "k"     # "?k": b = W.T (K has unit stride)
    a = rnd(*lead, case.m, case.k) if a_kmajor else rnd(*lead, case.k, case.m).mT
    b = rnd(*lead, case.n, case.k).mT if b_kmajor else rnd(*lead, case.k, case.n)
    out_dt = getattr(torch, case.out_dtype) if case.out_dtype else dt
    c = rnd(*lead, case.m, case.n).to(out_dt) if case.with_c else None
    return a, b, c, out_dt


def make_fused_extras(case: suites.Case, device: str, out_dt, seed: int = 1):
    """bias (N,) and X (D's shape) of a fused case, in the output dtype (or None)."""
    g = torch.Generator(device=device).manual_seed(seed)
    lead = (case.l,) if case.l > 1 else ()
    bias = (torch.randn(case.n, generator=g, device=device).to(out_dt) if case.bias else None)
    x = (torch.randn(*lead, case.m, case.n, generator=g, device=device).to(out_dt)
         if case.x_factor is not None else None)
    return bias, x


ACT = blackwell_ops.fused.ACTIVATION_FN


def fused_expr(case: suites.Case):
    """The fused epilogue as a user writes it in PyTorch: (D, Y) or D."""
    alpha, beta, xf, act = case.alpha, case.beta, case.x_factor, ACT[case.activation]

    def expr(a, b, c, bias, x):
        y = a @ b
        p = alpha * y if alpha != 1 else y
        if c is not None and beta != 0:
            p = p + beta * c
        if bias is not None:
            p = p + bias
        d = act(p)
        if x is not None:
            d = d + xf * x
        return (d, y) if case.return_y else d
    return expr


def fused_providers(case: suites.Case, a, b, c, bias, x, names):
    fns = {"bw": lambda: blackwell_ops.gemm_fused(
        a, b, c, bias, x, alpha=case.alpha, beta=case.beta if c is not None else 0.0,
        x_factor=case.x_factor if x is not None else 1.0, activation=case.activation,
        return_y=case.return_y)}
    expr = fused_expr(case)
    if "eager" in names:
        fns["eager"] = lambda: expr(a, b, c, bias, x)
    for name, mode in (("compile", "default"), ("compile-max", "max-autotune")):
        if name in names:
            compiled = torch.compile(expr, mode=mode, fullgraph=True, dynamic=False)
            fns[name] = lambda compiled=compiled: compiled(a, b, c, bias, x)
    return fns


def providers(case: suites.Case, a, b, c, out_dt, names):
    alpha, beta = case.alpha, case.beta
    batched = a.dim() == 3
    fns = {}

    def bw():
        return blackwell_ops.gemm_axpby(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dt)
    fns["bw"] = bw

    def eager_expr(a, b, c):
        p = alpha * (a @ b)
        if c is not None and beta != 0:
            p = p + beta * c
        return p.to(out_dt)

    if "addmm" in names:
        cc = c if c is not None else torch.zeros(1, device=a.device, dtype=out_dt).expand(
            *a.shape[:-1], b.shape[-1])
        mixed = out_dt != a.dtype
        if batched:
            fns["addmm"] = ((lambda: torch.baddbmm(cc, a, b, out_dtype=out_dt, beta=beta,
                                                   alpha=alpha)) if mixed else
                            (lambda: torch.baddbmm(cc, a, b, beta=beta, alpha=alpha)))
        else:
            fns["addmm"] = ((lambda: torch.addmm(cc, a, b, out_dtype=out_dt, beta=beta,
                                                 alpha=alpha)) if mixed else
                            (lambda: torch.addmm(cc, a, b, beta=beta, alpha=alpha)))
    if "mm+epi" in names:
        mm = torch.bmm if batched else torch.mm

        def mm_epi():
            p = mm(a, b, out_dtype=out_dt) if out_dt != a.dtype else mm(a, b)
            p = p * alpha if alpha != 1 else p
            return p + beta * c if (c is not None and beta != 0) else p
        fns["mm+epi"] = mm_epi
    if "eager" in names:
        fns["eager"] = lambda: eager_expr(a, b, c)
    for name, mode in (("compile", "default"), ("compile-max", "max-autotune")):
        if name in names:
            compiled = torch.compile(eager_expr, mode=mode, fullgraph=True, dynamic=False)
            fns[name] = lambda compiled=compiled: compiled(a, b, c)
    return fns


# ----------------------------------------------------------------------------- timing

def measured_peak_tflops(device: str) -> float | None:
    """bf16 8192^3 torch.mm on random data: the matmul ceiling the % column refers to."""
    if device != "cuda":
        return None
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    t = statistics.median(Timer(device)(lambda: torch.mm(a, b), reps=10, warmup=3))
    return 2 * 8192**3 / t / 1e9


def machine_facts(device: str) -> dict:
    facts = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
        "blackwell_ops": blackwell_ops.__version__, "host": platform.node(),
    }
    try:
        facts["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                         capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        facts.update(gpu=p.name, sms=p.multi_processor_count, capability=f"{p.major}.{p.minor}")
        try:
            facts["nvidia_smi"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,"
                 "driver_version", "--format=csv,noheader"], capture_output=True,
                text=True).stdout.strip()
        except OSError:
            pass
    else:
        facts["cpu"] = platform.processor() or platform.machine()
    return facts


# ----------------------------------------------------------------------------- running

def run_case(case, device, names, timer, reps, warmup):
    a, b, c, out_dt = make_operands(case, device)
    bias, x = make_fused_extras(case, device, out_dt) if case.fused else (None, None)
    fns = (fused_providers(case, a, b, c, bias, x, names) if case.fused
           else providers(case, a, b, c, out_dt, names))
    # Correctness of our op first, against an fp32 (fp64 for fp64) reference.
    ref_dt = torch.float64 if a.dtype == torch.float64 else torch.float32
    cast = lambda t: None if t is None else t.to(ref_dt)  # noqa: E731
    if case.fused:
        ref = fused_expr(dataclasses.replace(case, return_y=False))(
            cast(a), cast(b), cast(c), cast(bias), cast(x))
        out = fns["bw"]()
        out = out[0] if case.return_y else out
        path = blackwell_ops._C.explain_fused(
            a, b, c, bias, x, case.alpha, case.beta if c is not None else 0.0,
            case.x_factor if x is not None else 1.0, case.activation, case.return_y, None)
    else:
        ref = case.alpha * (a.to(ref_dt) @ b.to(ref_dt))
        if c is not None and case.beta != 0:
            ref = ref + case.beta * c.to(ref_dt)
        out = fns["bw"]()
        path = blackwell_ops._C.explain(a, b, c, case.alpha, case.beta, out_dt)
    err = ((out.to(ref_dt) - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    ok = bool(torch.isfinite(out).all()) and err <= TOL[out_dt]
    del out, ref
    row = {"case": case.name, **{k: v for k, v in case.__dict__.items()}, "flops": case.flops,
           "bytes": (a.numel() * a.element_size() + b.numel() * b.element_size()
                     + (c.numel() * c.element_size() if c is not None else 0)
                     + (x.numel() * x.element_size() if x is not None else 0)
                     + (bias.numel() * bias.element_size() if bias is not None else 0)
                     + (1 + case.return_y) * case.m * case.n * case.l
                     * torch.empty((), dtype=out_dt).element_size()),
           "rel_err": err, "correct": ok, "path": path, "results": {}}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        try:
            fn()  # first call: compiles for torch.compile peers
            if device == "cuda":
                torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - a peer that cannot run this case is reported
            row["results"][name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
            continue
        first = time.perf_counter() - t0
        times = timer(fn, reps, warmup)
        row["results"][name] = {"median_ms": statistics.median(times),
                                "p20_ms": quantile(times, 0.2), "p80_ms": quantile(times, 0.8)}
        if name.startswith("compile"):
            row["results"][name]["compile_s"] = first
    return row


def summarize(rows, peak, ridge_flops_per_byte):
    for row in rows:
        res = row["results"]
        ours = res.get("bw", {}).get("median_ms")
        peers = {k: v["median_ms"] for k, v in res.items() if k != "bw" and "median_ms" in v}
        best = min(peers.items(), key=lambda kv: kv[1]) if peers else (None, None)
        row["best_peer"], row["best_peer_ms"] = best
        row["speedup"] = best[1] / ours if ours and best[1] else None
        row["tflops"] = row["flops"] / ours / 1e9 if ours else None
        row["pct_peak"] = 100 * row["tflops"] / peak if (peak and row["tflops"]) else None
        row["memory_bound"] = row["flops"] / row["bytes"] < ridge_flops_per_byte
        row["gbps"] = row["bytes"] / ours / 1e6 if ours else None
    speedups = [r["speedup"] for r in rows if r["speedup"]]
    geomean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
    return geomean


def write_outputs(out_dir: pathlib.Path, rows, meta, geomean):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps({"meta": meta, "geomean_speedup": geomean,
                                                       "cases": rows}, indent=1))
    providers_seen = list(dict.fromkeys(p for r in rows for p in r["results"]))
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "path", "rel_err", "correct", "best_peer", "speedup", "tflops",
                    "pct_peak", "gbps"] + [f"{p}_ms" for p in providers_seen]
                   + [f"{p}_compile_s" for p in providers_seen if p.startswith("compile")])
        for r in rows:
            w.writerow([r["case"], r["path"], f"{r['rel_err']:.3e}", r["correct"], r["best_peer"],
                        _f(r["speedup"]), _f(r["tflops"]), _f(r["pct_peak"]), _f(r["gbps"])]
                       + [_f(r["results"].get(p, {}).get("median_ms"), 4) for p in providers_seen]
                       + [_f(r["results"].get(p, {}).get("compile_s"), 1)
                          for p in providers_seen if p.startswith("compile")])
    (out_dir / "command.txt").write_text(meta["command"] + "\n")
    plot(out_dir, rows, providers_seen, meta)


def _f(x, nd=3):
    return "" if x is None else f"{x:.{nd}f}"


def plot(out_dir, rows, providers_seen, meta):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots written", file=sys.stderr)
        return
    labels = [r["case"] for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows)), 6))
    width = 0.8 / max(1, len(providers_seen))
    for i, p in enumerate(providers_seen):
        ys = [r["flops"] / r["results"][p]["median_ms"] / 1e9
              if "median_ms" in r["results"].get(p, {}) else 0 for r in rows]
        ax.bar([xi + i * width for xi in x], ys, width, label=p)
    ax.set_xticks([xi + 0.4 - width / 2 for xi in x])
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"gemm_axpby, {meta.get('gpu', meta.get('cpu', ''))}, torch {meta['torch']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "tflops.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows)), 5))
    sp = [r["speedup"] or 0 for r in rows]
    ax.bar(list(x), sp, color=["tab:green" if s >= 1 else "tab:red" for s in sp])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("speedup vs best peer")
    ax.set_title(f"bw.gemm_axpby vs the best of {', '.join(p for p in providers_seen if p != 'bw')}"
                 f" ({meta.get('gpu', meta.get('cpu', ''))})")
    fig.tight_layout()
    fig.savefig(out_dir / "speedup.png", dpi=120)
    plt.close(fig)


def print_table(rows, geomean, peak):
    head = (f"{'case':58} {'ours ms':>9} {'TFLOP/s':>8} {'%peak':>6} {'GB/s':>7} "
            f"{'best peer':>11} {'peer ms':>9} {'speedup':>8}")
    print(head)
    print("-" * len(head))
    for r in rows:
        ours = r["results"].get("bw", {}).get("median_ms")
        flag = "" if r["correct"] else "  WRONG"
        print(f"{r['case'][:58]:58} {_f(ours):>9} {_f(r['tflops'], 1):>8} "
              f"{_f(r['pct_peak'], 1):>6} {_f(r['gbps'], 0) if r['memory_bound'] else '':>7} "
              f"{str(r['best_peer']):>11} {_f(r['best_peer_ms']):>9} "
              f"{(_f(r['speedup'], 2) + 'x') if r['speedup'] else '':>8}{flag}")
    print(f"geometric mean speedup vs best peer: {_f(geomean, 3)}x over {len(rows)} cases"
          + (f"; measured bf16 matmul peak {peak:.0f} TFLOP/s" if peak else ""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="quick", choices=sorted(suites.SUITES))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--peers", default=",".join(PEERS_DEFAULT),
                   help=f"comma-separated, from {', '.join(ALL_PROVIDERS[1:])}")
    p.add_argument("--reps", type=int, default=None, help="timed runs per provider "
                   "(default 30 on GPU, 5 on CPU)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--out", type=pathlib.Path, default=None, help="directory for the outputs")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="start no new case after S seconds (the report says which were left out)")
    p.add_argument("--replot", type=pathlib.Path, metavar="DIR",
                   help="redraw DIR's plots from its results.json, measuring nothing")
    args = p.parse_args(argv)
    if args.replot:
        data = json.loads((args.replot / "results.json").read_text())
        rows = data["cases"]
        plot(args.replot, rows, list(dict.fromkeys(p for r in rows for p in r["results"])),
             data["meta"])
        return 0

    names = ["bw"] + [n for n in args.peers.split(",") if n]
    bad = [n for n in names if n not in ALL_PROVIDERS]
    if bad:
        p.error(f"unknown peers {bad}; choose from {ALL_PROVIDERS[1:]}")
    reps = args.reps or (30 if args.device == "cuda" else 5)
    cases = [c for c in suites.SUITES[args.suite] if args.filter in c.name]
    if args.device == "cpu":
        cases = [c for c in cases if c.dtype in ("float32", "float64")] or cases
    meta = machine_facts(args.device)
    meta["command"] = "python " + " ".join(shlex.quote(x) for x in
                                           [os.path.relpath(__file__, ROOT)] + (argv or sys.argv[1:]))
    meta.update(suite=args.suite, reps=reps, warmup=args.warmup, providers=names,
                l2_flush_bytes=L2_FLUSH_BYTES if args.device == "cuda" else 0)
    peak = measured_peak_tflops(args.device)
    meta["peak_bf16_tflops"] = peak
    # Ridge point of the roofline: the H200's 4.8 TB/s against the measured matmul rate.
    ridge = (peak * 1e12) / 4.8e12 if peak else 10.0
    timer = Timer(args.device)
    try:
        from tqdm import tqdm
        it = tqdm(cases, desc=f"{args.suite} on {args.device}", file=sys.stderr)
    except ImportError:
        it = cases
    rows = []
    started = time.perf_counter()
    for i, case in enumerate(it):
        if args.time_limit is not None and time.perf_counter() - started > args.time_limit:
            meta["left_out"] = [c.name for c in cases[i:]]
            print(f"time limit reached: {len(cases) - i} cases left out", file=sys.stderr)
            break
        if it is cases:
            print(f"[{i + 1}/{len(cases)}] {case.name}", file=sys.stderr, flush=True)
        rows.append(run_case(case, args.device, names, timer, reps, args.warmup))
        torch._dynamo.reset()  # keep compile caches from piling up across shapes
        if args.out:  # partial results survive an interrupted run
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "results.json").write_text(json.dumps(
                {"meta": meta, "partial": True, "cases": rows}, indent=1))
    geomean = summarize(rows, peak, ridge)
    if args.out:
        write_outputs(args.out, rows, meta, geomean)
    print_table(rows, geomean, peak)
    if meta.get("left_out"):
        print(f"left out by --time-limit: {len(meta['left_out'])} cases: {meta['left_out']}")
    wrong = [r["case"] for r in rows if not r["correct"]]
    if wrong:
        print(f"WRONG ANSWERS from bw.gemm_axpby: {wrong}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
