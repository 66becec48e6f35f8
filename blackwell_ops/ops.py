"""Python side of the bw ops: documented wrappers, fake (meta) implementations and autograd.

The schemas live in csrc/bw_ops.cpp (TORCH_LIBRARY(bw, ...)). Argument validation is done by the
C++ implementation for real tensors; `_check_gemm_axpby` below repeats it for fake tensors (under
torch.compile and FakeTensorMode no C++ kernel runs) with the same messages, and
tests/test_errors.py checks that both raise the same exception with the same text.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

_SUPPORTED = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_SUPPORTED_STR = "torch.float16, torch.bfloat16, torch.float32, torch.float64"
_FLOAT8 = (torch.float8_e4m3fn, torch.float8_e5m2)
_INPUTS = _SUPPORTED + _FLOAT8 + (torch.int8,)
_INPUTS_STR = _SUPPORTED_STR + ", torch.float8_e4m3fn, torch.float8_e5m2, torch.int8"
_OP = "bw.gemm_axpby: "


def gemm_axpby(a: Tensor, b: Tensor, c: Optional[Tensor] = None, alpha: float = 1.0,
               beta: float = 0.0, out_dtype: Optional[torch.dtype] = None,
               scale_a: Optional[Tensor] = None, scale_b: Optional[Tensor] = None) -> Tensor:
    """D = alpha * scale_a * scale_b * (a @ b) + beta * c, accumulated in fp32 (int32 for int8
    inputs, fp64 for fp64 inputs).

    Args:
        a: (M, K) or (L, M, K). float16, bfloat16, float32, float64, float8_e4m3fn,
            float8_e5m2 or int8. float32 inputs run on TF32 tensor cores when
            ``torch.backends.cuda.matmul.allow_tf32`` (``torch.set_float32_matmul_precision``)
            allows it, as torch.mm does, and exactly otherwise.
        b: (K, N) or (L, K, N), same dtype and device as ``a`` (for float8, either float8 type).
            A 2-D ``a`` or ``b`` is shared by every batch of the other.
        c: optional, the output's shape: (M, N), or (L, M, N) when ``a`` or ``b`` is 3-D. Any
            of the four float dtypes (int32 too for int8 inputs). Not read when ``beta == 0``
            (NaN/Inf in it do not propagate, as in ``torch.addmm``).
        alpha, beta: Python floats; the epilogue computes in fp32 (integers, in int32, for an
            int32 output).
        out_dtype: the output's dtype; defaults to ``c.dtype`` if ``c`` is given, else
            ``a.dtype`` (bfloat16 for float8 inputs, int32 for int8). int8 inputs may also
            write int32 (exact).
        scale_a, scale_b: optional per-tensor scales: float32 tensors of one element on a's
            device (e.g. the dequantization scales of FP8/INT8 operands). Read on the device, so
            they can change without recompiling graphs. Not with an int32 output.

    Returns:
        D, contiguous, (M, N) or (L, M, N). With K == 0 it is ``beta * c`` (or zeros).

    On CUDA, a compiled CUTLASS kernel runs when one fits (sm_90a on compute capability 9.0,
    sm_100a on 10.0; the input/output types and layouts of the build; 16-byte aligned pointers
    and strides). sm_90a 8-bit and tf32 kernels take K-major a and b (a row-major, b = W.t());
    sm_100a ones every layout for e4m3 -> bf16, e5m2 x e4m3 -> bf16, int8 -> int32 and
    tf32 -> fp32 (K-major only for the rest); other layouts are copied K-major first, with a
    one-time warning. Otherwise a correct composite
    (cuBLAS) runs and a one-time warning names the reason. Differentiable in a, b and c (not in
    the scales).
    """
    return torch.ops.bw.gemm_axpby.default(a, b, c, alpha, beta, out_dtype, scale_a, scale_b)


def _check_on_device_of_a(op: str, name: str, t: Tensor, a: Tensor):
    if t.device != a.device:
        raise RuntimeError(f"{op}{name} must be on a's device {a.device}, got {name}.device = "
                           f"{t.device}")


def _check_float_dtype(op: str, name: str, t: Tensor):
    if t.dtype not in _SUPPORTED:
        raise ValueError(f"{op}{name}.dtype = {t.dtype} is not supported; expected one of "
                         f"{_SUPPORTED_STR}")


def _check_output_shape(op: str, name: str, t: Tensor, shape: list):
    if list(t.shape) != shape:
        raise ValueError(f"{op}{name} must have the output's shape {shape}"
                         f"{' (L, M, N)' if len(shape) == 3 else ' (M, N)'}, got {name}.shape = "
                         f"{list(t.shape)}")


def _check_scale(op: str, name: str, t: Optional[Tensor], a: Tensor):
    if t is None:
        return
    _check_on_device_of_a(op, name, t, a)
    if t.dtype != torch.float32 or t.numel() != 1:
        raise ValueError(f"{op}{name} must be a float32 tensor with one element (a per-tensor "
                         f"scale), got {name}.dtype = {t.dtype} with shape {list(t.shape)}")


def _check_gemm_axpby(a: Tensor, b: Tensor, c: Optional[Tensor], alpha: float, beta: float,
                      out_dtype: Optional[torch.dtype], scale_a: Optional[Tensor] = None,
                      scale_b: Optional[Tensor] = None, op: str = _OP):
    """Mirror of bw::ops::check_gemm_operands (csrc/ops/gemm_axpby.cpp), the checks every bw GEMM
    op shares; messages start with `op`. Returns (out shape, out dtype)."""
    if a.dim() not in (2, 3):
        raise ValueError(f"{op}a must be 2-D (M, K) or 3-D (L, M, K), got a.dim() = {a.dim()} "
                         f"with shape {list(a.shape)}")
    if b.dim() not in (2, 3):
        raise ValueError(f"{op}b must be 2-D (K, N) or 3-D (L, K, N), got b.dim() = {b.dim()} "
                         f"with shape {list(b.shape)}")
    _check_on_device_of_a(op, "b", b, a)
    if c is not None:
        _check_on_device_of_a(op, "c", c, a)
    if a.dtype not in _INPUTS:
        raise ValueError(f"{op}a.dtype = {a.dtype} is not supported; expected one of "
                         f"{_INPUTS_STR}")
    fp8 = a.dtype in _FLOAT8
    if b.dtype != a.dtype and not (fp8 and b.dtype in _FLOAT8):
        raise ValueError(f"{op}b.dtype = {b.dtype} must equal a.dtype = {a.dtype}"
                         f"{' (or be the other float8 type)' if fp8 else ''}")
    k = a.shape[-1]
    if b.shape[-2] != k:
        raise ValueError(f"{op}a and b disagree on K: a.shape[-1] = {k} but b.shape[-2] = "
                         f"{b.shape[-2]} (a: {list(a.shape)}, b: {list(b.shape)})")
    batched = a.dim() == 3 or b.dim() == 3
    if a.dim() == 3 and b.dim() == 3 and a.shape[0] != b.shape[0]:
        raise ValueError(f"{op}a and b disagree on the batch size L: a.shape[0] = {a.shape[0]} "
                         f"but b.shape[0] = {b.shape[0]}")
    m, n = a.shape[-2], b.shape[-1]
    if batched:
        l = a.shape[0] if a.dim() == 3 else b.shape[0]
        shape = [l, m, n]
    else:
        shape = [m, n]
    int8 = a.dtype == torch.int8
    extra = ", torch.int32" if int8 else ""
    if out_dtype is not None and out_dtype not in _SUPPORTED and not (
            int8 and out_dtype == torch.int32):
        raise ValueError(f"{op}out_dtype = {out_dtype} is not supported; expected None or one "
                         f"of {_SUPPORTED_STR}{extra}")
    if c is not None:
        if c.dtype not in _SUPPORTED and not (int8 and c.dtype == torch.int32):
            raise ValueError(f"{op}c.dtype = {c.dtype} is not supported; expected one of "
                             f"{_SUPPORTED_STR}{extra}")
        _check_output_shape(op, "c", c, shape)
    natural = torch.bfloat16 if fp8 else torch.int32 if int8 else a.dtype
    dtype = out_dtype if out_dtype is not None else (c.dtype if c is not None else natural)
    if dtype == torch.int32 and c is not None and c.dtype != torch.int32:
        raise ValueError(f"{op}c.dtype = {c.dtype} must be torch.int32 with an int32 output (an "
                         f"exact integer result)")
    if dtype == torch.int32:
        if alpha != round(alpha) or beta != round(beta):
            raise ValueError(f"{op}alpha = {_num(alpha)} and beta = {_num(beta)} must be "
                             f"integers with an int32 output (an exact integer result; ask for a "
                             f"float out_dtype to scale)")
        if scale_a is not None or scale_b is not None:
            raise ValueError(f"{op}scale_a and scale_b are not taken with an int32 output (an "
                             f"exact integer result; ask for a float out_dtype to scale)")
    _check_scale(op, "scale_a", scale_a, a)
    _check_scale(op, "scale_b", scale_b, a)
    return shape, dtype


def _num(v: float) -> str:
    """A double as C++'s ostream prints it (6 significant digits), for identical messages."""
    return f"{v:g}"


@torch.library.register_fake("bw::gemm_axpby")
def _gemm_axpby_fake(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None, scale_a=None,
                     scale_b=None):
    shape, dtype = _check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b)
    return a.new_empty(shape, dtype=dtype)  # contiguous, like the real output


def _needs_grad(ctx, n_tensors: int = 3):
    # The dispatcher drops trailing arguments equal to their defaults (c=None, ...), so
    # needs_input_grad can be shorter than the schema: pad it to the op's n_tensors tensor inputs.
    return tuple(ctx.needs_input_grad) + (False,) * n_tensors


def _gemm_axpby_setup_context(ctx, inputs, output):
    a, b, c, alpha, beta, _, scale_a, scale_b = tuple(inputs) + (None,) * (8 - len(inputs))
    ctx.alpha, ctx.beta = alpha, beta
    ctx.c_dtype = c.dtype if c is not None else None
    need = _needs_grad(ctx)
    saved_a = a if need[1] else None  # dB needs A
    saved_b = b if need[0] else None  # dA needs B
    ctx.a_meta = (a.dim(), a.dtype)
    ctx.b_meta = (b.dim(), b.dtype)
    ctx.save_for_backward(saved_a, saved_b, scale_a, scale_b)


def _grad_operand(t: Tensor, grad: Tensor) -> Tensor:
    """t as an operand of a backward GEMM with `grad`: 16-bit and wider operands as they are
    (grad is cast to them); a float8 operand upcast to grad's dtype (exact: float8 values are
    bfloat16/float16/float32 values), since grad itself must not be rounded to float8."""
    return t.to(grad.dtype) if t.dtype in _FLOAT8 else t


def _matmul_grads(ctx, grad: Tensor, a: Optional[Tensor], b: Optional[Tensor], alpha: float,
                  need_a: bool, need_b: bool, scale_a: Optional[Tensor] = None,
                  scale_b: Optional[Tensor] = None):
    """(dA, dB) of alpha * scale_a * scale_b * a @ b for the gradient `grad` of the product,
    each None unless needed: dA = alpha * sa * sb * grad @ B^T, dB = alpha * sa * sb * A^T @ grad.
    The GEMMs run through bw.gemm_axpby on transposed views: no copies, every majorness (float8
    operands are upcast: see _grad_operand). A 2-D operand shared by every batch gets the sum
    over L. ctx.a_meta / ctx.b_meta hold (dim, dtype) of a and b. A float8 operand's gradient
    comes back in grad's dtype (autograd rounds it to the input's dtype)."""
    a_dim, a_dtype = ctx.a_meta
    b_dim, b_dtype = ctx.b_meta
    grad_a = grad_b = None
    scales = dict(scale_a=scale_a, scale_b=scale_b)
    if need_a:
        bb = _grad_operand(b, grad)
        g = grad.to(bb.dtype)
        out = g.dtype if a_dtype in _FLOAT8 else a_dtype
        grad_a = gemm_axpby(g, bb.mT, alpha=alpha, out_dtype=out, **scales)
        if a_dim == 2 and grad_a.dim() == 3:  # a was shared by every batch
            grad_a = grad_a.sum(0)
    if need_b:
        aa = _grad_operand(a, grad)
        g = grad.to(aa.dtype)
        out = g.dtype if b_dtype in _FLOAT8 else b_dtype
        if b_dim == 2 and g.dim() == 3:  # b was shared: sum_l A_l^T G_l as one GEMM over L*M
            grad_b = gemm_axpby(aa.reshape(-1, aa.shape[-1]).mT, g.reshape(-1, g.shape[-1]),
                                alpha=alpha, out_dtype=out, **scales)
        else:
            grad_b = gemm_axpby(aa.mT, g, alpha=alpha, out_dtype=out, **scales)
    return grad_a, grad_b


def _gemm_axpby_backward(ctx, grad):
    # D = alpha * sa * sb * A @ B + beta * C  =>  dA = alpha * sa * sb * dD @ B^T,
    # dB = alpha * sa * sb * A^T @ dD, dC = beta * dD; the scales get no gradient.
    a, b, scale_a, scale_b = ctx.saved_tensors
    need = _needs_grad(ctx)
    grad_a, grad_b = _matmul_grads(ctx, grad, a, b, ctx.alpha, need[0], need[1], scale_a,
                                   scale_b)
    grad_c = None
    if need[2]:
        grad_c = _scaled_grad(grad, ctx.beta, ctx.c_dtype)
    return grad_a, grad_b, grad_c, None, None, None, None, None


def _scaled_grad(grad: Tensor, factor: float, dtype: torch.dtype) -> Tensor:
    """factor * grad in `dtype`, exactly zero when factor == 0: a factor of 0 means the input was
    not read (c with beta == 0), so its gradient is 0, not 0 * grad (NaN where grad is infinite)."""
    return (grad * factor if factor != 0 else torch.zeros_like(grad)).to(dtype)


torch.library.register_autograd("bw::gemm_axpby", _gemm_axpby_backward,
                                setup_context=_gemm_axpby_setup_context)
