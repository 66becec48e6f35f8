"""blackwell_ops: fused CUTLASS GEMMs for PyTorch, as torch.ops.bw.*.

    import blackwell_ops
    d = blackwell_ops.gemm_axpby(a, b, c, alpha=1.0, beta=1.0)   # alpha * a @ b + beta * c
    d = blackwell_ops.gemm_fused(a, b, bias=bias, x=r, activation="silu")  # silu(a @ b + bias) + r
    fc = blackwell_ops.nn.Linear(1024, 4096, activation="gelu_erf")  # nn.Linear, fused gelu

Importing the package loads the native module (which registers torch.ops.bw.* and the compiled
kernels) and the Python registrations (fake tensors, autograd, and the DTensor sharding rules of
blackwell_ops.distributed where torch.distributed.tensor is available).
"""
import importlib

import torch  # noqa: F401  (the native module links against torch's libraries)

from . import _C  # noqa: F401  (registers torch.ops.bw.*)
from . import nn
from .fused import gemm_fused
from .ops import gemm_axpby


def _dtensor_available() -> bool:
    if not torch.distributed.is_available():
        return False
    try:
        importlib.import_module("torch.distributed.tensor.experimental")
    except ImportError:
        return False
    return True


if _dtensor_available():
    from . import distributed  # noqa: F401  (DTensor sharding rules for torch.ops.bw.*)

__all__ = ["gemm_axpby", "gemm_fused", "nn"]
__version__ = "0.1.0"
