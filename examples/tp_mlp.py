"""Tensor-parallel MLP block on blackwell_ops.nn.Linear, with DTensor.

    torchrun --nproc-per-node 2 examples/tp_mlp.py                 # gloo, CPU processes
    torchrun --nproc-per-node 2 examples/tp_mlp.py --device cuda   # NCCL, one GPU per rank

fc1 (with a fused activation) is ColwiseParallel: its weight and bias are split over
out_features, each rank computes its slice of the hidden layer through the split-N rule of
bw.gemm_fused, with no communication. fc2 is RowwiseParallel: its weight is split over
in_features, so its input arrives sharded on the hidden dim (split K). bw.gemm_fused has no
split-K rule (the bias would be added once per rank; see blackwell_ops/distributed.py), so DTensor
redistributes fc2's operands to a strategy it offers; the output is then made Replicate. The
backward runs bw.gemm_axpby on DTensors (split K, as a Partial, for the input gradient).

Each rank checks the forward output and every parameter gradient against the same block run
unsharded on the full tensors, and rank 0 prints the largest relative error.
"""
from __future__ import annotations

import argparse
import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
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
                            activation: str = "gelu_erf", seed: int = 0) -> dict:
    """Build the block (same seed on every rank), run it unsharded and tensor-parallel on the
    same input, and return the relative errors of the output, the input's gradient and each
    parameter's gradient."""
    device = mesh.device_type
    torch.manual_seed(seed)
    ref = MLP(dim, hidden, activation, device=device)
    tp = MLP(dim, hidden, activation, device=device)
    tp.load_state_dict(ref.state_dict())
    x_ref = torch.randn(tokens, dim, device=device, requires_grad=True)
    x = x_ref.detach().clone().requires_grad_()
    grad_out = torch.randn(tokens, dim, device=device)

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--activation", default="gelu_erf")
    args = parser.parse_args()

    world = int(os.environ["WORLD_SIZE"])
    if args.device == "cuda":
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    mesh = init_device_mesh(args.device, (world,))  # gloo for cpu, nccl for cuda
    errors = check_against_unsharded(mesh, args.dim, args.hidden, args.tokens, args.activation)
    worst = max(errors.values())
    if dist.get_rank() == 0:
        for name, err in errors.items():
            print(f"{name:16s} relative error {err:.2e}")
        print(f"tensor-parallel MLP on {world} ranks ({args.device}): "
              f"{'OK' if worst < 1e-4 else 'MISMATCH'} (worst {worst:.2e})")
    dist.destroy_process_group()
    if worst >= 1e-4:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
