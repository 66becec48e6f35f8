"""Autograd: exact gradients (gradcheck in fp64) and a backward that runs through bw.gemm_axpby."""
import pytest
import torch
from torch.autograd import gradcheck

from blackwell_ops import gemm_axpby
from conftest import devices


def _r(*shape, device, grad=True):
    return torch.randn(*shape, dtype=torch.float64, device=device).requires_grad_(grad)


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("dims", [(2, 2), (3, 3), (3, 2), (2, 3)])
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (0.5, 2.0)])
def test_gradcheck(device, dims, alpha, beta):
    torch.manual_seed(0)
    l, m, n, k = 2, 5, 4, 3
    a = _r(*((l, m, k) if dims[0] == 3 else (m, k)), device=device)
    b = _r(*((l, k, n) if dims[1] == 3 else (k, n)), device=device)
    c = _r(*((l, m, n) if 3 in dims else (m, n)), device=device)
    assert gradcheck(lambda a, b, c: gemm_axpby(a, b, c, alpha=alpha, beta=beta), (a, b, c))


@pytest.mark.parametrize("device", devices())
def test_gradcheck_transposed_inputs(device):
    a = _r(6, 4, device=device).detach().mT.requires_grad_()
    b = _r(5, 6, device=device).detach().mT.requires_grad_()
    assert gradcheck(lambda a, b: gemm_axpby(a, b, alpha=-2.0), (a, b))


def test_beta_zero_grad_of_c_is_zero_even_with_inf_grad():
    a, b, c = _r(3, 2, device="cpu"), _r(2, 4, device="cpu"), _r(3, 4, device="cpu")
    d = gemm_axpby(a, b, c, beta=0.0)
    grad = torch.full_like(d, float("inf"))
    (gc,) = torch.autograd.grad(d, c, grad)
    assert (gc == 0).all()


def test_only_needed_grads_are_computed():
    a = _r(3, 2, device="cpu")
    b = _r(2, 4, device="cpu", grad=False)
    d = gemm_axpby(a, b)
    (ga,) = torch.autograd.grad(d.sum(), a)
    assert torch.allclose(ga, torch.ones(3, 4, dtype=torch.float64) @ b.T)


def test_backward_calls_bw_op():
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    a, b = _r(3, 2, device="cpu"), _r(2, 4, device="cpu")
    d = gemm_axpby(a, b)
    with Record():
        d.backward(torch.ones_like(d))
    assert seen.count("bw.gemm_axpby.default") == 2, seen


@pytest.mark.parametrize("device", devices())
def test_low_precision_backward_matches_fp64(device):
    torch.manual_seed(1)
    a64, b64 = torch.randn(64, 32, dtype=torch.float64), torch.randn(32, 48, dtype=torch.float64)
    g64 = torch.randn(64, 48, dtype=torch.float64)
    a = a64.to(device, torch.bfloat16).requires_grad_()
    b = b64.to(device, torch.bfloat16).requires_grad_()
    d = gemm_axpby(a, b, alpha=2.0)
    d.backward(g64.to(device, torch.bfloat16))
    ga_ref = 2.0 * g64.bfloat16().double() @ b64.bfloat16().double().T
    gb_ref = 2.0 * a64.bfloat16().double().T @ g64.bfloat16().double()
    for got, ref in ((a.grad, ga_ref), (b.grad, gb_ref)):
        err = ((got.double().cpu() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err
