#!/usr/bin/env python3
"""Training-step time of the tensor-parallel MLP block on blackwell_ops.nn.Linear against the same
block built from torch.nn.Linear, both Megatron-style over the GPUs of one host, side by side in
one run.

    torchrun --nproc-per-node 2 benchmarks/bench_tp_mlp.py --tokens 8192 --dim 4096 \\
        --out benchmarks/results/h200x2/tp_mlp
    torchrun --nproc-per-node 2 benchmarks/bench_tp_mlp.py --device cpu --tokens 64 --dim 32
    python benchmarks/bench_tp_mlp.py --device cpu --tokens 64 --dim 32   # world size 1

The block: out = fc2(gelu_tanh(fc1(x))), fc1: dim -> 4*dim with bias, fc2: 4*dim -> dim with
bias; fc1 ColwiseParallel, fc2 RowwiseParallel (examples/tp_mlp.py), x and out replicated. bw:
blackwell_ops.nn.Linear, the activation fused into fc1's GEMM, fc2 a split-K bw.gemm_fused with a
Partial output (one all-reduce forward, one backward). torch.nn: torch.nn.Linear and
torch.nn.functional.gelu(approximate="tanh"), parallelized the same way. Both start from the same
weights (same seed) and are first checked to give the same output, input gradient and weight
gradients within bf16 tolerance (the run aborts otherwise).

One step: forward, backward with a fixed output gradient (x requires grad, as in a real network,
so the backward's all-reduce of x's gradient is timed), and, with --optimizer sgd (the default),
an SGD update of the sharded weights (lr 1e-6); --optimizer none leaves the update out.
Timing on CUDA (NCCL): per step, the L2 is flushed (blackwell_ops.timing.L2_FLUSH_BYTES), the
device synchronized and the ranks barriered, then CUDA events on each rank's current stream
bracket the step; a step's time is the slowest rank's. The two providers alternate within each
repetition (order swapped every repetition), --warmup repetitions untimed, then --reps timed;
reported: median, p10, p90 in ms. On the CPU (gloo, --device cpu: a smoke test) the same loop
uses time.perf_counter. Rank 0 writes results.json, table.txt and command.txt into --out.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shlex
import statistics
import sys
import time

import torch
import torch.distributed as dist

from blackwell_ops.timing import L2_FLUSH_BYTES, quantile

_HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "examples")]
from bench_mlp import BwMLP, TorchMLP  # noqa: E402  (the blocks, without their residual here)
from tp_mlp import parallelize_mlp  # noqa: E402  (fc1 column-parallel, fc2 row-parallel)

TOL = 3e-2  # bf16 blocks computed in different orders / roundings (benchmarks/bench_mlp.py too)
PROVIDERS = ("torch.nn", "bw")


def rel(a, b) -> float:
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def _full(t):
    return t.full_tensor() if hasattr(t, "full_tensor") else t


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--dim", type=int, default=4096, help="model dim; the hidden dim is 4 * dim")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--optimizer", default="sgd", choices=["sgd", "none"],
                   help="sgd: each step ends with an SGD update (lr 1e-6); none: forward and "
                        "backward only")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                   help="cuda: NCCL, one GPU per rank; cpu: gloo (a smoke test, perf_counter)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=pathlib.Path, default=None)
    args = p.parse_args(argv)
    if args.reps < 1 or args.warmup < 0:
        p.error(f"--reps must be >= 1 and --warmup >= 0, got {args.reps} and {args.warmup}")
    return args


def _command_line(argv) -> str:
    """The launch command: torchrun's options reconstructed from its environment."""
    script = shlex.quote(sys.argv[0])
    rest = " ".join(shlex.quote(a) for a in argv)
    if "TORCHELASTIC_RUN_ID" in os.environ:  # started by torchrun
        local = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
        nodes = int(os.environ.get("WORLD_SIZE", "1")) // max(local, 1)
        launcher = f"torchrun --nproc-per-node {local}" + (f" --nnodes {nodes}" if nodes > 1
                                                            else "")
        return f"{launcher} {script} {rest}".rstrip()
    return f"python {script} {rest}".rstrip()


def _init(device: str):
    """(rank, world size, local rank); a one-process group when not started by torchrun."""
    backend = "nccl" if device == "cuda" else "gloo"
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("bench_tp_mlp.py --device cuda needs CUDA GPUs (use --device cpu for a "
                         "smoke test)")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    kw = {}
    if device == "cuda":
        torch.cuda.set_device(local_rank)
        kw["device_id"] = torch.device("cuda", local_rank)
    if "RANK" in os.environ:
        dist.init_process_group(backend, **kw)
    else:
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, **kw)
    return dist.get_rank(), dist.get_world_size(), local_rank


def _all_ranks_ok(ok: bool, device: str) -> bool:
    flag = torch.tensor([1 if ok else 0], dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def check_same_answer(models, x, grad):
    """Relative differences bw vs torch.nn: output, x's gradient, every parameter's gradient."""
    got = {}
    for name, model in models.items():
        model.zero_grad(set_to_none=True)
        x.grad = None
        out = model(x)
        out.backward(grad)
        got[name] = {"out": _full(out).detach().clone(), "x.grad": x.grad.detach().clone()}
        for pname, p in model.named_parameters():
            got[name][f"{pname}.grad"] = _full(p.grad).detach().clone()
    errs = {k: rel(got["bw"][k], got["torch.nn"][k]) for k in got["torch.nn"]}
    for model in models.values():
        model.zero_grad(set_to_none=True)
    x.grad = None
    return errs


def make_step(model, x, grad, optimizer: str):
    opt = torch.optim.SGD(model.parameters(), lr=1e-6) if optimizer == "sgd" else None

    def step():
        if opt is not None:
            opt.zero_grad(set_to_none=True)
        else:
            model.zero_grad(set_to_none=True)
        x.grad = None
        out = model(x)
        _wait(out)
        out.backward(grad)
        if opt is not None:
            opt.step()
    return step


def _wait(out):
    """Make the current stream wait for RowwiseParallel's output all-reduce, as the next layer's
    read of the output would (it is asynchronous, and backward alone never waits for it; without
    this the step's end event could precede the collective). Both providers get the same."""
    from torch.distributed._functional_collectives import AsyncCollectiveTensor
    if isinstance(out, AsyncCollectiveTensor):
        out.trigger_wait()


def time_steps(steps, reps, warmup, device):
    """{provider: [ms of each timed step on this rank]}, providers alternating, order swapped
    every repetition; a barrier (and on CUDA an L2 flush) before every step."""
    cuda = device == "cuda"
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device) if cuda else None
    names = list(steps)
    times = {n: [] for n in names}
    for rep in range(warmup + reps):
        for name in (names if rep % 2 == 0 else names[::-1]):
            if cuda:
                flush.zero_()
                torch.cuda.synchronize()
            dist.barrier()
            if cuda:
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                steps[name]()
                end.record()
                end.synchronize()
                ms = start.elapsed_time(end)
            else:
                t0 = time.perf_counter()
                steps[name]()
                ms = (time.perf_counter() - t0) * 1e3
            if rep >= warmup:
                times[name].append(ms)
    return times


def summarize(per_rank_times):
    """Per provider: median / p10 / p90 over steps of the slowest rank's time, and each rank's
    own median."""
    out = {}
    for name in per_rank_times[0]:
        steps = [max(rank[name][i] for rank in per_rank_times)
                 for i in range(len(per_rank_times[0][name]))]
        out[name] = {"median_ms": statistics.median(steps), "p10_ms": quantile(steps, 0.1),
                     "p90_ms": quantile(steps, 0.9),
                     "per_rank_median_ms": [statistics.median(r[name]) for r in per_rank_times],
                     "steps_ms": steps}
    return out


def write_results(args, argv, meta, errs, results, ratio):
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(
        dict(meta, rel_diff_bw_vs_torch=errs, results=results, ratio_torch_over_bw=ratio),
        indent=1) + "\n")
    lines = [f"tensor-parallel MLP training step, {meta['world_size']} x {meta['device_name']}, "
             f"{meta['backend']}, torch {meta['torch']}",
             f"tokens {meta['tokens']}, dim {meta['dim']} -> hidden {meta['hidden']} -> dim "
             f"{meta['dim']}, {meta['dtype']}, step = {meta['step']}",
             f"{meta['timing']}", "",
             f"{'provider':10} {'median ms':>10} {'p10 ms':>10} {'p90 ms':>10}  per-rank median ms"]
    for name, r in results.items():
        per_rank = ", ".join(f"{t:.3f}" for t in r["per_rank_median_ms"])
        lines.append(f"{name:10} {r['median_ms']:10.3f} {r['p10_ms']:10.3f} {r['p90_ms']:10.3f}"
                     f"  {per_rank}")
    lines += ["", f"torch.nn / bw (median): {ratio:.3f}x (> 1: bw faster)",
              "relative difference bw vs torch.nn: "
              + ", ".join(f"{k} {v:.2e}" for k, v in errs.items())]
    (args.out / "table.txt").write_text("\n".join(lines) + "\n")
    (args.out / "command.txt").write_text(_command_line(argv) + "\n")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    rank, world, local_rank = _init(args.device)
    try:
        return _run(args, argv, rank, world, local_rank)
    finally:
        dist.destroy_process_group()


def _run(args, argv, rank, world, local_rank) -> int:
    from torch.distributed.device_mesh import init_device_mesh
    device = args.device
    dtype = getattr(torch, args.dtype)
    dim, hidden = args.dim, 4 * args.dim
    mesh = init_device_mesh(device, (world,))
    kw = dict(device=device, dtype=dtype)
    torch.manual_seed(args.seed)  # the same weights and data on every rank
    ref = TorchMLP(dim, hidden, residual=False, **kw)
    ours = BwMLP(dim, hidden, residual=False, **kw)
    ours.load_state_dict(ref.state_dict())
    models = {"torch.nn": parallelize_mlp(ref, mesh), "bw": parallelize_mlp(ours, mesh)}
    x = torch.randn(args.tokens, dim, **kw).requires_grad_()
    grad = torch.randn(args.tokens, dim, **kw)

    errs = check_same_answer(models, x, grad)
    ok = _all_ranks_ok(all(v < TOL for v in errs.values()), device)
    if rank == 0:
        print(f"relative difference bw vs torch.nn (tolerance {TOL:.0e}): "
              + ", ".join(f"{k} {v:.2e}" for k, v in errs.items()), flush=True)
    if not ok:
        if rank == 0:
            print("WRONG: the two blocks disagree; not timing them", file=sys.stderr)
        return 1

    steps = {name: make_step(m, x, grad, args.optimizer) for name, m in models.items()}
    times = time_steps(steps, args.reps, args.warmup, device)
    per_rank = [None] * world
    dist.all_gather_object(per_rank, times)
    if rank != 0:
        return 0
    results = summarize(per_rank)
    ratio = results["torch.nn"]["median_ms"] / results["bw"]["median_ms"]
    for name, r in results.items():
        print(f"{name:10} median {r['median_ms']:9.3f} ms  (p10 {r['p10_ms']:.3f}, p90 "
              f"{r['p90_ms']:.3f})", flush=True)
    print(f"torch.nn / bw: {ratio:.3f}x")
    if args.out:
        cuda = device == "cuda"
        step = ("forward + backward (fixed output gradient, x requires grad)"
                + (" + SGD update" if args.optimizer == "sgd" else ", no optimizer update"))
        timing = ("CUDA events per rank, L2 flushed and ranks barriered before each step; a "
                  "step's time is the slowest rank's" if cuda else
                  "time.perf_counter per rank, ranks barriered before each step; a step's time "
                  "is the slowest rank's")
        meta = dict(device=device, backend="nccl" if cuda else "gloo", world_size=world,
                    device_name=torch.cuda.get_device_name(local_rank) if cuda else "cpu",
                    torch=torch.__version__, tokens=args.tokens, dim=dim, hidden=hidden,
                    dtype=args.dtype, reps=args.reps, warmup=args.warmup, step=step,
                    optimizer=args.optimizer, timing=timing, command=_command_line(argv),
                    tolerance=TOL, providers=list(PROVIDERS))
        write_results(args, argv, meta, errs, results, ratio)
        print(f"wrote {args.out}/results.json, table.txt, command.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
