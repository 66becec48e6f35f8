#!/usr/bin/env python3
"""Training-step time of a transformer MLP block built from blackwell_ops.nn.Linear against the
same block built from torch.nn, eager and under torch.compile, side by side in one process.

    python benchmarks/bench_mlp.py --tokens 8192 --dim 4096 --out benchmarks/results/h200/mlp

The block: out = fc2(act(fc1(x))) + x, fc1: dim -> 4*dim with bias and GELU (tanh), fc2: 4*dim ->
dim with bias. In blackwell_ops the activation is fused into fc1's GEMM (whose pre-activation Y
is kept for the backward from the same launch) and the residual into fc2's. One step is forward,
backward with a fixed output gradient, and an SGD update. Before timing, the two blocks (same
weights) are checked to give the same output and weight gradients within bf16 tolerance.
Timing: bench_gemm.py's (median of --reps steps, L2 flushed before each, the variants timed in
interleaved rounds, each burst after --warmup untimed steps of the same variant).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import statistics
import sys

import torch

import blackwell_ops.nn as bnn
from blackwell_ops.timing import Timer, quantile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_gemm import GPU_WARMUP, interleaved_times  # noqa: E402  (one timing method)


# The two blocks compared here and in bench_tp_mlp.py (which leaves out the residual: under
# RowwiseParallel fc2's output is reduced across ranks, and the residual would be added per rank).
class TorchMLP(torch.nn.Module):
    def __init__(self, dim, hidden, residual=True, **kw):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim, hidden, **kw)
        self.fc2 = torch.nn.Linear(hidden, dim, **kw)
        self.residual = residual

    def forward(self, x):
        out = self.fc2(torch.nn.functional.gelu(self.fc1(x), approximate="tanh"))
        return out + x if self.residual else out


class BwMLP(torch.nn.Module):
    def __init__(self, dim, hidden, residual=True, **kw):
        super().__init__()
        self.fc1 = bnn.Linear(dim, hidden, activation="gelu_tanh", **kw)
        self.fc2 = bnn.Linear(hidden, dim, **kw)
        self.residual = residual

    def forward(self, x):
        return self.fc2(self.fc1(x), residual=x if self.residual else None)


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--dim", type=int, default=4096)
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=GPU_WARMUP,
                   help="untimed steps before each timed burst (default %(default)s)")
    p.add_argument("--compile-modes", default="default", help="comma-separated torch.compile modes")
    p.add_argument("--out", type=pathlib.Path, default=None)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench_mlp.py needs a CUDA GPU", file=sys.stderr)
        return 2
    dt = getattr(torch, args.dtype)
    kw = dict(device="cuda", dtype=dt)
    torch.manual_seed(0)
    ref = TorchMLP(args.dim, 4 * args.dim, **kw)
    ours = BwMLP(args.dim, 4 * args.dim, **kw)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(args.tokens, args.dim, **kw)
    grad = torch.randn(args.tokens, args.dim, **kw)

    # Same answer first: output and every parameter's gradient.
    checks = {}
    for name, m in (("torch", ref), ("bw", ours)):
        m.zero_grad(set_to_none=True)
        out = m(x)
        out.backward(grad)
        checks[name] = (out.detach(), {k: v.grad.detach().clone() for k, v in m.named_parameters()})
    errs = {"out": rel(checks["bw"][0], checks["torch"][0])}
    errs.update({k: rel(checks["bw"][1][k], checks["torch"][1][k]) for k in checks["torch"][1]})
    print("relative difference bw vs torch.nn:", {k: f"{v:.2e}" for k, v in errs.items()})
    ok = all(v < 3e-2 for v in errs.values())

    def step_fn(model):
        opt = torch.optim.SGD(model.parameters(), lr=1e-6)

        def step():
            opt.zero_grad(set_to_none=True)
            model(x).backward(grad)
            opt.step()
        return step

    variants = {"torch.nn eager": ref, "bw eager": ours}
    for mode in filter(None, args.compile_modes.split(",")):
        variants[f"torch.nn compile-{mode}"] = torch.compile(ref, mode=mode, fullgraph=True)
        variants[f"bw compile-{mode}"] = torch.compile(ours, mode=mode, fullgraph=True)
    steps = {name: step_fn(model) for name, model in variants.items()}
    for step in steps.values():  # compile (and autotune) before any timing
        step()
    results = {}
    for name, times in interleaved_times(steps, Timer("cuda"), args.reps, args.warmup).items():
        results[name] = {"median_ms": statistics.median(times), "p20_ms": quantile(times, 0.2),
                         "p80_ms": quantile(times, 0.8)}
        print(f"{name:28} {results[name]['median_ms']:8.3f} ms", flush=True)
    best_torch = min(v["median_ms"] for k, v in results.items() if k.startswith("torch"))
    best_bw = min(v["median_ms"] for k, v in results.items() if k.startswith("bw"))
    print(f"best bw step vs best torch.nn step: {best_torch / best_bw:.3f}x "
          f"({best_bw:.3f} ms vs {best_torch:.3f} ms)")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "mlp.json").write_text(json.dumps(dict(
            gpu=torch.cuda.get_device_name(), torch=torch.__version__, tokens=args.tokens,
            dim=args.dim, dtype=args.dtype, reps=args.reps, warmup=args.warmup, rel_diff=errs,
            correct=ok, results=results,
            speedup=best_torch / best_bw), indent=1))
        (args.out / "command.txt").write_text(
            "python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *sys.argv[1:]]) + "\n")
    if not ok:
        print("WRONG: the blocks disagree", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
