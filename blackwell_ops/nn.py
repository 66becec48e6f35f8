"""torch.nn building blocks on bw.gemm_fused: a drop-in Linear with a fused activation and residual.

    import blackwell_ops.nn as bnn
    fc1 = bnn.Linear(1024, 4096, activation="gelu_erf")   # act(x @ W^T + b)
    fc2 = bnn.Linear(4096, 1024)
    y = fc2(fc1(x), residual=x)                            # x + fc2(gelu(fc1(x))), two GEMMs
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from .fused import check_activation, gemm_fused

__all__ = ["Linear", "linear"]

_LINEAR = "blackwell_ops.nn.linear: "


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: str = "none",
           residual: Optional[Tensor] = None, residual_factor: float = 1.0) -> Tensor:
    """act(x @ weight^T + bias) + residual_factor * residual, as one bw.gemm_fused call.

    Args:
        x: (*, in_features). Its leading dims are flattened into the GEMM's M and restored.
        weight: (out_features, in_features), x's dtype and device (as torch.nn.functional.linear);
            used as the transposed view weight.mT, never copied.
        bias: optional (out_features,).
        activation: "none", "relu", "gelu_tanh", "gelu_erf" (torch.nn.GELU()) or "silu".
        residual: optional, the output's shape (*, out_features); any float dtype.
        residual_factor: the residual's scale; 0 means residual is not read.

    Returns:
        (*, out_features) in x's dtype. Differentiable in x, weight, bias and residual.
    """
    if x.dim() < 1:
        raise ValueError(f"{_LINEAR}x must have at least 1 dimension (*, in_features), got "
                         f"x.shape = {list(x.shape)}")
    if weight.dim() != 2:
        raise ValueError(f"{_LINEAR}weight must be 2-D (out_features, in_features), got "
                         f"weight.shape = {list(weight.shape)}")
    out_shape = [*x.shape[:-1], weight.shape[0]]
    r = None
    if residual is not None:
        if list(residual.shape) != out_shape:
            raise ValueError(f"{_LINEAR}residual must have the output's shape {out_shape}, got "
                             f"residual.shape = {list(residual.shape)}")
        r = _rows(residual)
    d = gemm_fused(_rows(x), weight.mT, bias=bias, x=r, x_factor=residual_factor,
                   activation=activation)
    return d.reshape(out_shape)


def _rows(t: Tensor) -> Tensor:
    """(*, n) -> (prod(*), n): a view where the strides allow (any size, zero included)."""
    return t.flatten(0, -2) if t.dim() > 1 else t.unsqueeze(0)


class Linear(torch.nn.Linear):
    """torch.nn.Linear with a fused activation and an optional residual, through bw.gemm_fused.

    A drop-in for torch.nn.Linear: the same parameters (``weight`` (out_features, in_features),
    ``bias`` (out_features,)), the same initialisation, and it loads torch.nn.Linear's
    state_dict (it is a subclass). ``forward(x, residual=None, residual_factor=1.0)`` computes
    ``act(x @ weight^T + bias) + residual_factor * residual``; with the defaults it is exactly
    torch.nn.Linear's forward.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 activation: str = "none", device=None, dtype=None):
        check_activation(activation, "blackwell_ops.nn.Linear: ")
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.activation = activation

    def forward(self, x: Tensor, residual: Optional[Tensor] = None,
                residual_factor: float = 1.0) -> Tensor:
        return linear(x, self.weight, self.bias, self.activation, residual, residual_factor)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, activation={self.activation!r}"
