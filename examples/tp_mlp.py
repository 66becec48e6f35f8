"""Tensor-parallel MLP block on blackwell_ops.nn.Linear, with DTensor.

    torchrun --nproc-per-node 2 examples/tp_mlp.py                 # gloo, CPU processes
    torchrun --nproc-per-node 2 examples/tp_mlp.py --device cuda   # NCCL, one GPU per rank

fc1 (with a fused activation) is ColwiseParallel: its weight and bias are split over
out_features, each rank computes its slice of the hidden layer through the split-N rule of
bw.gemm_fused, with no communication. fc2 is RowwiseParallel: its weight is split over
in_features, so its input arrives sharded on the hidden dim, and bw.gemm_fused (activation
"none") runs its split-K rule on the local shards: the bias goes in as a Partial (each rank adds
bias / world_size), and fc2's output is a Partial sum, which RowwiseParallel reduces to Replicate.
So the forward has exactly one collective, one all-reduce, as in Megatron-LM; the backward has
one too (fc1's input gradient, a split-K Partial bw.gemm_axpby). Rank 0 prints fc2's output
placement before RowwiseParallel's redistribution and the collectives counted by CommDebugMode.

Each rank checks the forward output, the input's gradient and every parameter gradient against
the same block run unsharded on the full tensors, and rank 0 prints the relative errors.
"""
from __future__ import annotations

import argparse
import os
from typing import Dict, List

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                               parallelize_module)

import blackwell_ops.nn as bnn


class MLP(torch.nn.Module):
    """fc2(act(fc1(x))), the activation fused into fc1's GEMM."""

    def __init__(self, dim: int, hidden: int, activation: str = "gelu_erf", device=None,
                 dtype=None):
        super().__init__()
        self.fc1 = bnn.Linear(dim, hidden, activation=activation, device=device, dtype=dtype)
        self.fc2 = bnn.Linear(hidden, dim, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.fc1(x))


def parallelize_mlp(mlp: MLP, mesh: DeviceMesh) -> MLP:
    """Megatron-style tensor parallelism over a 1-D mesh: fc1 column-wise, fc2 row-wise. The
    block takes and returns plain (replicated) tensors."""
    return parallelize_module(mlp, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    return ((out.double() - ref.double()).norm() / ref.double().norm().clamp_min(1e-30)).item()


def check_against_unsharded(mesh: DeviceMesh, dim: int = 64, hidden: int = 256, tokens: int = 32,
                            activation: str = "gelu_erf", seed: int = 0,
                            dtype: torch.dtype = torch.float32) -> Dict[str, float]:
    """Build the block (same seed on every rank), run it unsharded and tensor-parallel on the
    same input, and return the relative errors of the output, the input's gradient and each
    parameter's gradient. Parameters, input and output gradient are in `dtype`; the unsharded
    block runs in `dtype` too (so the errors measure the sharding, not the precision)."""
    device = mesh.device_type
    ref, tp, x_ref, grad_out = _block_and_data(dim, hidden, tokens, activation, seed, dtype, device)
    x = x_ref.detach().clone().requires_grad_()

    out_ref = ref(x_ref)
    out_ref.backward(grad_out)

    tp = parallelize_mlp(tp, mesh)
    out = tp(x)
    out.backward(grad_out)

    errors = {"output": relative_error(out, out_ref), "x.grad": relative_error(x.grad, x_ref.grad)}
    for name, p in tp.named_parameters():
        g = p.grad.full_tensor() if hasattr(p.grad, "full_tensor") else p.grad
        errors[f"{name}.grad"] = relative_error(g, ref.get_parameter(name).grad)
    return errors


def trace_tp_step(mesh: DeviceMesh, dim: int = 64, hidden: int = 256, tokens: int = 32,
                  activation: str = "gelu_erf", seed: int = 0,
                  dtype: torch.dtype = torch.float32) -> Dict[str, object]:
    """One forward and backward of the tensor-parallel block, recording fc2's output placements
    as its bw.gemm_fused call returned them (a forward hook that runs before RowwiseParallel's
    output redistribution) and the collectives of the forward and of the backward (CommDebugMode:
    {collective name: count})."""
    device = mesh.device_type
    _, tp, x, grad_out = _block_and_data(dim, hidden, tokens, activation, seed, dtype, device)
    tp = parallelize_mlp(tp, mesh)
    seen: Dict[str, List[str]] = {}

    def record(module, inputs, output):
        seen["fc2_output"] = [repr(p) for p in output.placements]

    # prepend: run before the hook parallelize_module registered (the output redistribution)
    handle = tp.fc2.register_forward_hook(record, prepend=True)
    with CommDebugMode() as fwd:
        out = tp(x)
    with CommDebugMode() as bwd:
        # a loss that reads the output (as training does): RowwiseParallel's all-reduce is
        # asynchronous and is waited for where the output is first read
        (out * grad_out).sum().backward()
    handle.remove()
    return {"fc2_output": seen["fc2_output"], "forward_comms": _comm_counts(fwd),
            "backward_comms": _comm_counts(bwd)}


def _comm_counts(mode: CommDebugMode) -> Dict[str, int]:
    # keys are functional-collective ops such as _c10d_functional.all_reduce
    return {str(op).split(".")[-1]: n for op, n in mode.get_comm_counts().items() if n}


def _block_and_data(dim, hidden, tokens, activation, seed, dtype, device):
    """(unsharded block, a copy to parallelize, input (requires grad), output gradient)."""
    torch.manual_seed(seed)
    ref = MLP(dim, hidden, activation, device=device, dtype=dtype)
    tp = MLP(dim, hidden, activation, device=device, dtype=dtype)
    tp.load_state_dict(ref.state_dict())
    x = torch.randn(tokens, dim, device=device, dtype=dtype, requires_grad=True)
    grad_out = torch.randn(tokens, dim, device=device, dtype=dtype)
    return ref, tp, x, grad_out


# What the block should do on any 1-D mesh of more than one rank: fc2's gemm_fused returns a
# Partial (split K, no gather of its K-sharded operands), reduced by the forward's one all-reduce.
EXPECTED_FC2_OUTPUT = ["Partial(sum)"]
EXPECTED_FORWARD_COMMS = {"all_reduce": 1}
EXPECTED_BACKWARD_COMMS = {"all_reduce": 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--activation", default="gelu_erf")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--tol", type=float, default=None,
                        help="largest relative error accepted (default 1e-4 for float32, 1e-2 "
                             "for 16-bit dtypes)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    tol = args.tol if args.tol is not None else (1e-4 if dtype == torch.float32 else 1e-2)

    world = int(os.environ["WORLD_SIZE"])
    if args.device == "cuda":
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 stays fp32 (the 1e-4 tolerance)
    mesh = init_device_mesh(args.device, (world,))  # gloo for cpu, nccl for cuda
    shape = (args.dim, args.hidden, args.tokens, args.activation)
    errors = check_against_unsharded(mesh, *shape, dtype=dtype)
    trace = trace_tp_step(mesh, *shape, dtype=dtype)
    worst = max(errors.values())
    ok = worst < tol
    if world > 1:
        ok = ok and (trace["fc2_output"] == EXPECTED_FC2_OUTPUT
                     and trace["forward_comms"] == EXPECTED_FORWARD_COMMS
                     and trace["backward_comms"] == EXPECTED_BACKWARD_COMMS)
    if dist.get_rank() == 0:
        for name, err in errors.items():
            print(f"{name:16s} relative error {err:.2e}")
        print(f"fc2's gemm_fused output placements (before RowwiseParallel): "
              f"{trace['fc2_output']}")
        print(f"collectives: forward {trace['forward_comms']}, backward {trace['backward_comms']}")
        print(f"tensor-parallel MLP on {world} ranks ({args.device}, {args.dtype}): "
              f"{'OK' if ok else 'MISMATCH'} (worst relative error {worst:.2e}, tolerance "
              f"{tol:.0e})")
    dist.destroy_process_group()
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
