"""bw.gemm_fused: the documented wrapper, its fake (meta) implementation and its autograd.

The schema lives in csrc/bw_ops.cpp; validation and the composite in csrc/ops/gemm_fused.cpp.
`_check_gemm_fused` repeats the C++ validation for fake tensors with the same messages (a, b, c
and out_dtype through gemm_axpby's shared checks), and tests/test_fused_errors.py checks that both
raise the same exception with the same text.
"""
from __future__ import annotations

from typing import Optional, Tuple, Union

import torch
from torch import Tensor

from .ops import (_check_float_dtype, _check_gemm_axpby, _check_on_device_of_a,
                  _check_output_shape, _matmul_grads, _needs_grad, _scaled_grad)

ACTIVATIONS = ("none", "relu", "gelu_tanh", "gelu_erf", "silu")
# What each activation name means, as the eager torch function (references, benchmarks' peers).
ACTIVATION_FN = {
    "none": lambda p: p,
    "relu": torch.relu,
    "gelu_tanh": lambda p: torch.nn.functional.gelu(p, approximate="tanh"),
    "gelu_erf": torch.nn.functional.gelu,
    "silu": torch.nn.functional.silu,
}
_OP = "bw.gemm_fused: "


def gemm_fused(a: Tensor, b: Tensor, c: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               x: Optional[Tensor] = None, alpha: float = 1.0, beta: float = 0.0,
               x_factor: float = 1.0, activation: str = "none", return_y: bool = False,
               out_dtype: Optional[torch.dtype] = None, scale_a: Optional[Tensor] = None,
               scale_b: Optional[Tensor] = None) -> Union[Tensor, Tuple[Tensor, Tensor]]:
    """D = act(alpha * scale_a * scale_b * (a @ b) + beta * c + bias) + x_factor * x, in one op.

    The product accumulates in fp32 (fp64 for fp64 inputs); the epilogue runs in that type and D is
    rounded once to ``out_dtype``.

    Args:
        a, b, c, alpha, beta, out_dtype, scale_a, scale_b: exactly as in
            :func:`blackwell_ops.gemm_axpby` (float8, int8 and tf32 inputs, per-tensor scales):
            a is (M, K) or (L, M, K), b is (K, N) or (L, K, N) (a 2-D operand is shared by every
            batch), c has D's shape and is not read when ``beta == 0``; out_dtype defaults to
            c's dtype, else a's (bfloat16 for float8); an int32 output is not offered.
        bias: optional (N,) vector, added to every row of every batch. Any of the four float
            dtypes.
        x: optional, D's shape (a residual). Any of the four float dtypes. Not read when
            ``x_factor == 0`` (like c with beta == 0).
        activation: "none", "relu", "gelu_tanh", "gelu_erf" or "silu" (torch.nn.functional's
            relu, gelu(approximate="tanh"), gelu, silu).
        return_y: also return Y = a @ b (the accumulator, rounded to D's dtype).

    Returns:
        D, contiguous, (M, N) or (L, M, N); or (D, Y) when ``return_y``. With K == 0,
        D = act(beta * c + bias) + x_factor * x.

    Differentiable in a, b, c, bias and x, exactly for every activation. When autograd will need
    act'(P) (an activation, and a, b, c or bias requiring grad), this wrapper asks the op for Y
    as well and the backward rebuilds P = alpha * Y + beta * c + bias from it (docs/design.md).
    On CUDA a fused CUTLASS kernel runs when one fits (x @ W.T layout: K-major a and b; float16,
    bfloat16, or float8_e4m3fn -> bfloat16; bias/x in the output dtype, 16-byte aligned);
    otherwise a cuBLAS + ATen composite runs, with a one-time warning naming the reason.
    """
    keep_y = return_y or _backward_needs_y(activation, a, b, c, bias)
    d, y = torch.ops.bw.gemm_fused.default(a, b, c, bias, x, alpha, beta, x_factor, activation,
                                           keep_y, out_dtype, scale_a, scale_b)
    return (d, y) if return_y else d


def _backward_needs_y(activation: str, *inputs: Optional[Tensor]) -> bool:
    """Whether autograd will need act'(P), hence P, hence Y (dX alone never needs it)."""
    return (activation != "none" and torch.is_grad_enabled()
            and any(t is not None and t.requires_grad for t in inputs))


def check_activation(activation: str, op: str = _OP) -> None:
    """ValueError unless `activation` is one of ACTIVATIONS (the C++ op's message)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"{op}activation = '{activation}' is not supported; expected one of "
                         + ", ".join(f"'{name}'" for name in ACTIVATIONS))


def _check_gemm_fused(a, b, c, bias, x, alpha, beta, activation, out_dtype, scale_a=None,
                      scale_b=None):
    """Mirror of bw::ops::check_gemm_fused (csrc/ops/gemm_fused.cpp): (out shape, out dtype)."""
    shape, dtype = _check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b, op=_OP)
    if dtype == torch.int32:
        raise ValueError(f"{_OP}out_dtype = torch.int32 is not supported by the fused epilogue "
                         f"(its activations compute in floating point); use bw.gemm_axpby, or a "
                         f"float out_dtype")
    check_activation(activation)
    if bias is not None:
        _check_on_device_of_a(_OP, "bias", bias, a)
        _check_float_dtype(_OP, "bias", bias)
        n = shape[-1]
        if bias.dim() != 1 or bias.shape[0] != n:
            raise ValueError(f"{_OP}bias must have shape [{n}] (N,), got bias.shape = "
                             f"{list(bias.shape)}")
    if x is not None:
        _check_on_device_of_a(_OP, "x", x, a)
        _check_float_dtype(_OP, "x", x)
        _check_output_shape(_OP, "x", x, shape)
    return shape, dtype


@torch.library.register_fake("bw::gemm_fused")
def _gemm_fused_fake(a, b, c=None, bias=None, x=None, alpha=1.0, beta=0.0, x_factor=1.0,
                     activation="none", return_y=False, out_dtype=None, scale_a=None,
                     scale_b=None):
    shape, dtype = _check_gemm_fused(a, b, c, bias, x, alpha, beta, activation, out_dtype,
                                     scale_a, scale_b)
    d = a.new_empty(shape, dtype=dtype)  # contiguous, like the real outputs
    y = a.new_empty(shape if return_y else (0,), dtype=dtype)
    return d, y


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def _gemm_fused_setup_context(ctx, inputs, output):
    a, b, c, bias, x, alpha, beta, x_factor, activation, return_y, _, scale_a, scale_b = (
        tuple(inputs) + (None,) * (13 - len(inputs)))
    need = _needs_grad(ctx, 5)  # a, b, c, bias, x
    ctx.alpha, ctx.beta, ctx.x_factor = alpha, beta, x_factor
    ctx.activation, ctx.return_y = activation, return_y
    ctx.a_meta = (a.dim(), a.dtype)
    ctx.b_meta = (b.dim(), b.dtype)
    ctx.c_dtype = c.dtype if c is not None else None
    ctx.bias_dtype = bias.dtype if bias is not None else None
    ctx.x_dtype = x.dtype if x is not None else None
    # dP = dD * act'(P) needs P = alpha * acc + beta * c + bias; acc is Y when the op returned it
    # (gemm_fused asks for it whenever this holds), else it is recomputed (one more GEMM).
    ctx.need_p = activation != "none" and any(need[:4])
    recompute_acc = ctx.need_p and not return_y
    ctx.set_materialize_grads(False)  # an unused Y (or D) gets no gradient: no zeros to add
    ctx.save_for_backward(
        a if need[1] or recompute_acc else None,  # dB needs A
        b if need[0] or recompute_acc else None,  # dA needs B
        c if ctx.need_p and beta != 0 else None,  # c is not read when beta == 0
        bias if ctx.need_p else None,
        output[1] if ctx.need_p and return_y else None,
        scale_a, scale_b)


def _product_scale(ctx, scale_a, scale_b):
    """alpha * scale_a * scale_b: a float, or a one-element tensor when a scale is given."""
    s = ctx.alpha
    for t in (scale_a, scale_b):
        if t is not None:
            s = s * t.reshape(())
    return s


def _preactivation(ctx, a, b, c, bias, y, scale) -> Tensor:
    """P = alpha * scale_a * scale_b * acc + beta * c + bias (scale: _product_scale), in fp32
    (fp64 for fp64 inputs)."""
    w = _acc_dtype(ctx.a_meta[1])
    acc = y.to(w) if y is not None else torch.ops.bw.gemm_axpby.default(a, b, None, 1.0, 0.0, w)
    p = acc * scale
    if c is not None:
        p = p + ctx.beta * c.to(w)
    if bias is not None:
        p = p + bias.to(w)
    return p


def _activation_grad(activation: str, grad: Tensor, p: Tensor) -> Tensor:
    """grad * act'(p) in p's dtype, through ATen's own activation backward ops (the derivatives
    of torch.nn.functional's relu, gelu and silu)."""
    grad = grad.to(p.dtype)
    if activation == "relu":
        return torch.ops.aten.threshold_backward.default(grad, p, 0)
    if activation == "gelu_tanh":
        return torch.ops.aten.gelu_backward.default(grad, p, approximate="tanh")
    if activation == "gelu_erf":
        return torch.ops.aten.gelu_backward.default(grad, p)
    return torch.ops.aten.silu_backward.default(grad, p)


def _gemm_fused_backward(ctx, grad_d, grad_y):
    # P = alpha * A @ B + beta * C + bias, D = act(P) + x_factor * X, Y = A @ B:
    # dP = dD * act'(P); dA = alpha * dP @ B^T (+ dY @ B^T), dB likewise; dC = beta * dP;
    # dbias = sum of dP over rows and batches; dX = x_factor * dD.
    a, b, c, bias, y, scale_a, scale_b = ctx.saved_tensors
    need = _needs_grad(ctx, 5)
    scale = _product_scale(ctx, scale_a, scale_b)
    grad_p = grad_d
    if grad_d is not None and ctx.need_p:
        grad_p = _activation_grad(ctx.activation, grad_d,
                                  _preactivation(ctx, a, b, c, bias, y, scale))
    grad_acc, gemm_alpha, scales = grad_p, ctx.alpha, (scale_a, scale_b)
    if grad_y is not None and ctx.return_y:  # Y = acc is an output too: its gradient adds in
        w = _acc_dtype(ctx.a_meta[1])
        grad_acc = grad_y.to(w) if grad_p is None else scale * grad_p.to(w) + grad_y.to(w)
        gemm_alpha, scales = 1.0, (None, None)
    grad_a = grad_b = grad_c = grad_bias = grad_x = None
    if grad_acc is not None:
        grad_a, grad_b = _matmul_grads(ctx, grad_acc, a, b, gemm_alpha, need[0], need[1],
                                       *scales)
    if grad_p is not None and need[2]:
        grad_c = _scaled_grad(grad_p, ctx.beta, ctx.c_dtype)
    if grad_p is not None and need[3]:
        grad_bias = grad_p.sum(dim=tuple(range(grad_p.dim() - 1)),
                               dtype=_acc_dtype(ctx.a_meta[1])).to(ctx.bias_dtype)
    if grad_d is not None and need[4]:
        grad_x = _scaled_grad(grad_d, ctx.x_factor, ctx.x_dtype)
    return grad_a, grad_b, grad_c, grad_bias, grad_x, None, None, None, None, None, None, None, None


torch.library.register_autograd("bw::gemm_fused", _gemm_fused_backward,
                                setup_context=_gemm_fused_setup_context)
