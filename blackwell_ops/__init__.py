"""blackwell_ops: fused CUTLASS GEMMs for PyTorch, as torch.ops.bw.*.

    import blackwell_ops
    d = blackwell_ops.gemm_axpby(a, b, c, alpha=1.0, beta=1.0)   # alpha * a @ b + beta * c

Importing the package loads the native module (which registers torch.ops.bw.* and the compiled
kernels) and the Python registrations (fake tensors, autograd).
"""
import torch  # noqa: F401  (the native module links against torch's libraries)

from . import _C  # noqa: F401  (registers torch.ops.bw.*)
from .ops import gemm_axpby

__all__ = ["gemm_axpby"]
__version__ = "0.1.0"
