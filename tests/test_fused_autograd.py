"""gemm_fused autograd: exact gradients for every activation w.r.t. a, b, c, bias and x (gradcheck
in fp64), the Y-based rebuild of P, and a backward whose GEMMs are bw.gemm_axpby calls."""
import pytest
import torch
from torch.autograd import gradcheck
from torch.utils._python_dispatch import TorchDispatchMode

from blackwell_ops import gemm_fused
from blackwell_ops.fused import ACTIVATIONS
from conftest import devices
from helpers import fused_reference

INPUTS = ("a", "b", "c", "bias", "x")


def _inputs(dims, device, grad, l=2, m=5, n=4, k=3, seed=0):
    """(a, b, c, bias, x) in fp64; those named in `grad` require grad."""
    torch.manual_seed(seed)
    out = (l, m, n) if 3 in dims else (m, n)
    shapes = {"a": (l, m, k) if dims[0] == 3 else (m, k), "b": (l, k, n) if dims[1] == 3 else (k, n),
              "c": out, "bias": (n,), "x": out}
    return [torch.randn(*shapes[name], dtype=torch.float64, device=device)
            .requires_grad_(name in grad) for name in INPUTS]


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("wrt", INPUTS + ("all",))
@pytest.mark.parametrize("dims", [(2, 2), (3, 2), (2, 3)])
def test_gradcheck(device, activation, wrt, dims):
    inputs = _inputs(dims, device, INPUTS if wrt == "all" else (wrt,))
    fn = lambda *t: gemm_fused(*t, alpha=0.75, beta=-1.5, x_factor=0.5, activation=activation)
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_gradcheck_through_y_too(device, activation):
    # Y = a @ b is an output as well: a loss on both D and Y.
    inputs = _inputs((3, 3), device, INPUTS)

    def fn(*t):
        d, y = gemm_fused(*t, alpha=2.0, beta=0.5, activation=activation, return_y=True)
        return d, y.sin()
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_gradcheck_direct_op_without_y(activation):
    # Called as torch.ops.bw.gemm_fused with return_y=False, the backward recomputes a @ b.
    inputs = _inputs((3, 2), "cpu", INPUTS)
    fn = lambda *t: torch.ops.bw.gemm_fused(*t, 1.25, 1.0, -1.0, activation, False)[0]
    assert gradcheck(fn, inputs)


def test_gradcheck_transposed_inputs():
    a, b, c, bias, x = _inputs((2, 2), "cpu", INPUTS)
    a = a.detach().mT.contiguous().mT.requires_grad_()
    b = b.detach().mT.contiguous().mT.requires_grad_()
    assert gradcheck(lambda *t: gemm_fused(*t, beta=1.0, activation="silu"), (a, b, c, bias, x))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_grads_match_torch_autograd(activation):
    # The same function written with torch ops: identical gradients (both exact in fp64).
    ours = _inputs((3, 2), "cpu", INPUTS, seed=3)
    ref = [t.detach().clone().requires_grad_() for t in ours]
    g = torch.randn(2, 5, 4, dtype=torch.float64)
    gemm_fused(*ours, alpha=0.5, beta=2.0, x_factor=-3.0, activation=activation).backward(g)
    fused_reference(*ref, alpha=0.5, beta=2.0, x_factor=-3.0, activation=activation).backward(g)
    for name, o, r in zip(INPUTS, ours, ref):
        assert torch.allclose(o.grad, r.grad, rtol=1e-12, atol=1e-12), name


def test_unread_inputs_get_exactly_zero_grad_even_with_inf_grad():
    a, b, c, bias, x = _inputs((2, 2), "cpu", INPUTS)
    d = gemm_fused(a, b, c, bias, x, beta=0.0, x_factor=0.0, activation="gelu_tanh")
    gc, gx = torch.autograd.grad(d, (c, x), torch.full_like(d, float("inf")))
    assert (gc == 0).all() and (gx == 0).all()


class _Record(TorchDispatchMode):
    """Records the bw ops that run and the shape of gemm_fused's Y."""

    def __init__(self):
        super().__init__()
        self.ops, self.y_shapes = [], []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if str(func).startswith("bw."):
            self.ops.append(str(func))
        if func is torch.ops.bw.gemm_fused.default:
            self.y_shapes.append(tuple(out[1].shape))
        return out


@pytest.mark.parametrize("activation", ["none", "gelu_erf"])
def test_backward_gemms_are_bw_gemm_axpby(activation):
    a, b, c, bias, x = _inputs((2, 2), "cpu", INPUTS)
    d = gemm_fused(a, b, c, bias, x, beta=1.0, activation=activation)
    with _Record() as rec:
        d.backward(torch.ones_like(d))
    assert rec.ops == ["bw.gemm_axpby.default"] * 2  # dA and dB; P is rebuilt from Y, no GEMM


def test_direct_op_without_y_recomputes_the_product():
    a, b, c, bias, x = _inputs((2, 2), "cpu", INPUTS)
    d, _ = torch.ops.bw.gemm_fused(a, b, c, bias, x, activation="relu")
    with _Record() as rec:
        d.backward(torch.ones_like(d))
    assert rec.ops == ["bw.gemm_axpby.default"] * 3


def test_y_is_kept_only_when_the_backward_needs_it():
    cases = [  # (activation, inputs requiring grad besides x, grad mode) -> Y's shape
        ("gelu_tanh", ("a",), True, (5, 4)), ("gelu_tanh", ("bias",), True, (5, 4)),
        ("gelu_tanh", ("a",), False, (0,)), ("gelu_tanh", (), True, (0,)),  # only x: dX = dD
        ("none", ("a", "b", "c", "bias"), True, (0,)),                     # act' = 1
    ]
    for activation, grads, enabled, y_shape in cases:
        inputs = _inputs((2, 2), "cpu", grads + ("x",))
        with torch.set_grad_enabled(enabled), _Record() as rec:
            gemm_fused(*inputs, activation=activation)
        assert rec.y_shapes == [y_shape], (activation, grads, enabled)


def test_only_needed_grads_are_computed():
    a, b, c, bias, x = _inputs((2, 2), "cpu", ("bias",))
    d = gemm_fused(a, b, c, bias, x, activation="relu")
    with _Record() as rec:
        (gbias,) = torch.autograd.grad(d.sum(), bias)
    assert rec.ops == []  # dbias needs no GEMM
    p = a @ b + bias
    assert torch.allclose(gbias, (p > 0).double().sum(0))


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("activation", ["gelu_tanh", "silu"])
def test_low_precision_backward_matches_fp64(device, activation):
    torch.manual_seed(1)
    a64, b64 = torch.randn(64, 32, dtype=torch.float64), torch.randn(32, 48, dtype=torch.float64)
    bias64, g64 = torch.randn(48, dtype=torch.float64), torch.randn(64, 48, dtype=torch.float64)
    a, b, bias = (t.bfloat16().to(device).requires_grad_() for t in (a64, b64, bias64))
    gemm_fused(a, b, bias=bias, alpha=0.5, activation=activation).backward(
        g64.bfloat16().to(device))
    ref = [t.bfloat16().double().requires_grad_() for t in (a64, b64, bias64)]
    fused_reference(ref[0], ref[1], bias=ref[2], alpha=0.5, activation=activation).backward(
        g64.bfloat16().double())
    for got, r in zip((a.grad, b.grad, bias.grad), ref):
        err = ((got.double().cpu() - r.grad).norm() / r.grad.norm()).item()
        assert err < 1e-2, err
