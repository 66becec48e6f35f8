"""gemm_fused computes act(alpha * a @ b + beta * c + bias) + x_factor * x (and Y = a @ b) as
issue #5 specifies, on every device, against an fp64 reference."""
import ast
import itertools
import math
import os
import pathlib
import subprocess
import sys

import pytest
import torch

import blackwell_ops
from blackwell_ops import gemm_axpby, gemm_fused
from blackwell_ops.fused import ACTIVATIONS
from conftest import devices
from helpers import (assert_close, fused_reference, nan_with_inf, poison_next_alloc, rand,
                     reference, tolerance)

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
DIMS = [(2, 2), (3, 3), (3, 2), (2, 3)]  # a.dim(), b.dim(): batched and broadcast operands


def _operands(dims, dtype, device, g, l=2, m=17, n=24, k=33):
    a = rand((l, m, k) if dims[0] == 3 else (m, k), dtype, device, g)
    b = rand((l, k, n) if dims[1] == 3 else (k, n), dtype, device, g)
    out = (l, m, n) if 3 in dims else (m, n)
    return a, b, out


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", DIMS)
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_every_option(device, dtype, dims, activation):
    """Every combination of c (none, read, NaN with beta == 0), bias, x and return_y."""
    g = torch.Generator(device=device).manual_seed(ACTIVATIONS.index(activation) * 100
                                                   + dims[0] * 10 + dims[1])
    a, b, out = _operands(dims, dtype, device, g)
    c = rand(out, dtype, device, g)
    nan_c = nan_with_inf(out, dtype, device)
    bias = rand((out[-1],), dtype, device, g)
    x = rand(out, dtype, device, g)
    tol = tolerance(dtype, dtype, device)
    c_options = [(None, 0.0), (c, 1.25), (nan_c, 0.0)]
    for (cc, beta), bb, xx, return_y in itertools.product(c_options, [None, bias], [None, x],
                                                          [False, True]):
        what = (f"{activation} dims={dims} c={'no' if cc is None else 'yes'} beta={beta} "
                f"bias={bb is not None} x={xx is not None} return_y={return_y}")
        poison_next_alloc(out, dtype, device)
        result = gemm_fused(a, b, cc, bb, xx, alpha=-0.75, beta=beta, x_factor=0.5,
                            activation=activation, return_y=return_y)
        d, y = result if return_y else (result, None)
        assert d.shape == out and d.dtype == dtype and d.device.type == device, what
        assert d.is_contiguous(), what
        ref = fused_reference(a, b, cc, bb, xx, -0.75, beta, 0.5, activation)
        assert_close(d, ref, tol, what)
        if return_y:
            assert y.shape == out and y.dtype == dtype and y.is_contiguous(), what
            assert_close(y, reference(a, b), tol, what + " (Y)")


@pytest.mark.parametrize("device", devices())
def test_y_is_empty_unless_asked(device):
    a, b = torch.randn(4, 8, device=device), torch.randn(8, 3, device=device)
    d, y = torch.ops.bw.gemm_fused(a, b, out_dtype=torch.float16)
    assert y.shape == (0,) and y.dtype == torch.float16 and y.device == d.device
    d, y = torch.ops.bw.gemm_fused(a, b, return_y=True, out_dtype=torch.float16)
    assert y.shape == (4, 3) and y.dtype == torch.float16


@pytest.mark.parametrize("device", devices())
def test_without_extras_equals_gemm_axpby(device):
    g = torch.Generator(device=device).manual_seed(11)
    a, b = rand((3, 20, 12), torch.bfloat16, device, g), rand((12, 9), torch.bfloat16, device, g)
    c = rand((3, 20, 9), torch.float32, device, g)
    d, y = gemm_fused(a, b, c, alpha=1.5, beta=-2.0, return_y=True)
    assert torch.equal(d, gemm_axpby(a, b, c, alpha=1.5, beta=-2.0))  # the same composite
    assert torch.equal(y, gemm_axpby(a, b, out_dtype=torch.float32))


@pytest.mark.parametrize("device", devices())
def test_out_dtype_and_mixed_epilogue_dtypes(device):
    g = torch.Generator(device=device).manual_seed(2)
    a, b = rand((16, 24), torch.float16, device, g), rand((24, 8), torch.float16, device, g)
    c32 = rand((16, 8), torch.float32, device, g)
    bias64 = rand((8,), torch.float64, device, g)
    x_bf16 = rand((16, 8), torch.bfloat16, device, g)
    assert gemm_fused(a, b, bias=bias64, x=x_bf16).dtype == torch.float16    # a's dtype
    d, y = gemm_fused(a, b, c32, bias64, x_bf16, beta=1.0, activation="silu", return_y=True)
    assert d.dtype == y.dtype == torch.float32                                # c's dtype
    assert_close(d, fused_reference(a, b, c32, bias64, x_bf16, 1.0, 1.0, 1.0, "silu"),
                 tolerance(torch.float16, torch.float32))
    assert_close(y, reference(a, b), tolerance(torch.float16, torch.float32))
    d = gemm_fused(a, b, c32, bias64, beta=0.5, activation="gelu_erf",
                   out_dtype=torch.bfloat16)                                   # explicit
    assert d.dtype == torch.bfloat16
    assert_close(d, fused_reference(a, b, c32, bias64, None, 1.0, 0.5, 1.0, "gelu_erf"),
                 tolerance(torch.float16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("a_t,b_t", [(False, True), (True, False), (True, True)])
def test_transposed_views(device, a_t, b_t):
    g = torch.Generator(device=device).manual_seed(1)
    a = rand((48, 56), torch.bfloat16, device, g, transposed=a_t)
    b = rand((56, 40), torch.bfloat16, device, g, transposed=b_t)
    bias, x = rand((40,), torch.bfloat16, device, g), rand((48, 40), torch.bfloat16, device, g)
    d = gemm_fused(a, b, bias=bias, x=x.mT.contiguous().mT, x_factor=-1.0, activation="relu")
    assert_close(d, fused_reference(a, b, None, bias, x, 1.0, 0.0, -1.0, "relu"),
                 tolerance(torch.bfloat16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
def test_unread_operands_do_not_propagate_nan(device):
    # c with beta == 0 and x with x_factor == 0 are not read: NaN/Inf in them do not propagate.
    g = torch.Generator(device=device).manual_seed(3)
    a, b = rand((32, 16), torch.bfloat16, device, g), rand((16, 24), torch.bfloat16, device, g)
    poison = nan_with_inf((32, 24), torch.bfloat16, device)
    d = gemm_fused(a, b, poison, x=poison, alpha=2.0, beta=0.0, x_factor=0.0,
                   activation="gelu_tanh")
    assert_close(d, fused_reference(a, b, None, None, None, 2.0, 0.0, 0.0, "gelu_tanh"),
                 tolerance(torch.bfloat16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
def test_nan_in_bias_and_x_propagates(device):
    a, b = torch.randn(4, 8, device=device), torch.randn(8, 3, device=device)
    bias, x = torch.randn(3, device=device), torch.randn(4, 3, device=device)
    bias[1], x[2, 0] = math.nan, math.inf
    d = gemm_fused(a, b, bias=bias, x=x).cpu()
    assert torch.isnan(d[:, 1]).all() and torch.isinf(d[2, 0])
    assert torch.isfinite(d[[0, 1, 3]][:, [0, 2]]).all()


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("dims", [(2, 2), (3, 2)])
def test_k_zero(device, activation, dims):
    # The product is an empty sum: D = act(beta * c + bias) + x_factor * x, Y = 0.
    g = torch.Generator(device=device).manual_seed(5)
    a, b, out = _operands(dims, torch.bfloat16, device, g, k=0)
    c, x = rand(out, torch.bfloat16, device, g), rand(out, torch.bfloat16, device, g)
    bias = rand((out[-1],), torch.float32, device, g)
    d, y = gemm_fused(a, b, c, bias, x, alpha=3.0, beta=0.5, x_factor=-2.0,
                      activation=activation, return_y=True)
    assert d.shape == y.shape == out
    assert_close(d, fused_reference(a, b, c, bias, x, 3.0, 0.5, -2.0, activation), 1e-2)
    assert (y == 0).all()


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("shape", [(0, 8, 8), (8, 0, 8), (0, 0, 0), (0, 8, 0)])
def test_empty_outputs(device, shape):
    m, n, k = shape
    a, b = torch.randn(m, k, device=device), torch.randn(k, n, device=device)
    c, x, bias = torch.randn(m, n, device=device), torch.randn(m, n, device=device), \
        torch.randn(n, device=device)
    d, y = gemm_fused(a, b, c, bias, x, beta=1.0, activation="silu", return_y=True)
    assert d.shape == y.shape == (m, n)


@pytest.mark.parametrize("device", devices())
def test_zero_batch(device):
    a, b = torch.randn(0, 4, 8, device=device), torch.randn(8, 2, device=device)
    d, y = gemm_fused(a, b, bias=torch.randn(2, device=device), activation="relu",
                      return_y=True)
    assert d.shape == y.shape == (0, 4, 2)


@pytest.mark.parametrize("device", devices())
def test_fp32_accumulation_and_epilogue(device):
    # 4096 ones sum to 4096 (exact in fp16 and fp32); an fp16 accumulator stalls at 2048. The
    # epilogue runs in fp32 too: 4096 - 4095.5 keeps its 0.5 before D is rounded.
    k = 4096
    a = torch.ones(8, k, dtype=torch.float16, device=device)
    b = torch.ones(k, 16, dtype=torch.float16, device=device)
    bias = torch.full((16,), -4095.5, dtype=torch.float32, device=device)
    d, y = gemm_fused(a, b, bias=bias, activation="relu", return_y=True)
    assert (y.cpu() == 4096.0).all() and (d.cpu() == 0.5).all()


@pytest.mark.gpu
def test_cuda_composite_warns_once():
    # In a fresh process: the warning is once per process, and other tests may have shown it.
    probe = (
        "import warnings, torch, blackwell_ops\n"
        "a, b = torch.randn(8, 4, device='cuda'), torch.randn(4, 8, device='cuda')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    for _ in range(3):\n"
        "        blackwell_ops.gemm_fused(a, b, activation='relu')\n"
        "print([str(x.message) for x in w if 'bw.gemm_fused' in str(x.message)])\n")
    root = str(pathlib.Path(blackwell_ops.__file__).resolve().parent.parent)
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0, r.stderr[-3000:]
    messages = ast.literal_eval(r.stdout.strip().splitlines()[-1])
    # fp32 inputs: no fused kernel takes them, so the composite runs and says why, once.
    assert len(messages) == 1 and "no kernel takes float32 inputs" in messages[0], messages
