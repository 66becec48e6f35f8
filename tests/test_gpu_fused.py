"""On a CUDA GPU: every compiled fused-epilogue kernel, through bw.gemm_fused, against the fp64
reference, for every option combination (C, beta == 0 with a NaN C, bias, X, x_factor == 0 with
a NaN X, Y returned or not, batched). Each case first asserts that the op takes that kernel
(`_C.explain_fused`), so a silent fallback to the composite fails the test. Marked gpu."""
import math

import pytest
import torch

from blackwell_ops import _C, gemm_fused
from helpers import (TOL, activation_tolerance, assert_close, fused_reference, gpu_arch,
                     kernel_params, kernels_for_this_gpu, rand, reference)

pytestmark = pytest.mark.gpu

DT = {"float16": torch.float16, "bfloat16": torch.bfloat16}


# 16-bit inputs here; the float8 fused kernels are tested in tests/test_gpu_quant.py.
FUSED_KERNELS = kernel_params([k for k in kernels_for_this_gpu("fused") if k["ab"] in DT],
                              "no compiled 16-bit fused kernel for this GPU (or no GPU)")


OPTIONS = {
    "all": dict(c=True, beta=0.5, bias=True, x=True, x_factor=3.0, return_y=True),
    "bare": dict(c=False, beta=0.0, bias=False, x=False, x_factor=1.0, return_y=False),
    "nan_c_beta0": dict(c="nan", beta=0.0, bias=True, x=True, x_factor=-0.5, return_y=True),
    "nan_x_factor0": dict(c=True, beta=1.0, bias=False, x="nan", x_factor=0.0, return_y=False),
    "bias_y": dict(c=False, beta=0.0, bias=True, x=False, x_factor=1.0, return_y=True),
}
SHAPES = [(256, 512, 128, None), (300, 520, 1000, None), (1, 136, 64, None), (128, 256, 64, 3)]


def test_fused_kernels_exist_for_this_gpu():
    if gpu_arch() not in (90, 100):
        pytest.skip(f"no kernels exist for compute capability {gpu_arch()}")
    assert kernels_for_this_gpu("fused"), "this build compiled no fused kernel for this GPU"


@pytest.mark.parametrize("kernel", FUSED_KERNELS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, filter(None, s))))
@pytest.mark.parametrize("opt", OPTIONS, ids=str)
def test_fused_kernel_vs_reference(kernel, shape, opt):
    m, n, k, l = shape
    o = OPTIONS[opt]
    dt = DT[kernel["ab"]]
    act = kernel["activation"]
    lead = (l,) if l else ()
    g = torch.Generator(device="cuda").manual_seed(m + 7 * n + 13 * k)
    a = rand((*lead, m, k), dt, "cuda", g)
    b = rand((*lead, k, n), dt, "cuda", g, transposed=True)  # b = W.T: the kernels' K-major b
    full = lambda: rand((*lead, m, n), dt, "cuda", g)  # noqa: E731
    nan = lambda: torch.full((*lead, m, n), math.nan, dtype=dt, device="cuda")  # noqa: E731
    c = {True: full, "nan": nan, False: lambda: None}[o["c"]]()
    x = {True: full, "nan": nan, False: lambda: None}[o["x"]]()
    bias = rand((n,), dt, "cuda", g) if o["bias"] else None
    args = (a, b, c, bias, x, 1.25, o["beta"], o["x_factor"], act, o["return_y"], None)
    path = _C.explain_fused(*args)
    assert path == f"kernel: {kernel['name']}", path
    out = gemm_fused(a, b, c, bias, x, alpha=1.25, beta=o["beta"], x_factor=o["x_factor"],
                     activation=act, return_y=o["return_y"])
    d, y = out if o["return_y"] else (out, None)
    torch.cuda.synchronize()
    ref = fused_reference(a, b, c, bias, x, 1.25, o["beta"], o["x_factor"], act)
    tol = activation_tolerance(TOL[dt], act)
    assert d.shape == ref.shape and d.dtype == dt and d.is_contiguous()
    assert_close(d, ref, tol, f"{kernel['name']} {shape} {opt}: D")
    if o["return_y"]:
        assert y.shape == ref.shape and y.dtype == dt
        assert_close(y, reference(a, b), TOL[dt], f"{kernel['name']} {shape} {opt}: Y")


@pytest.mark.parametrize("kernel", FUSED_KERNELS[:1])
def test_fused_kernel_path_in_training(kernel):
    """nn.Linear-style use with grad: the forward keeps Y from the same launch and the backward's
    GEMMs run; gradients match the fp64 reference's autograd."""
    dt = DT[kernel["ab"]]
    act = kernel["activation"]
    g = torch.Generator(device="cuda").manual_seed(5)
    x = rand((64, 256), dt, "cuda", g).requires_grad_()
    w = rand((128, 256), dt, "cuda", g).mul_(0.1).requires_grad_()
    bias = rand((128,), dt, "cuda", g).requires_grad_()
    assert _C.explain_fused(x, w.t(), None, bias, None, 1.0, 0.0, 1.0, act, True, None) == \
        f"kernel: {kernel['name']}"
    d = gemm_fused(x, w.t(), bias=bias, activation=act)
    grad = rand(d.shape, dt, "cuda", g)
    d.backward(grad)
    x64, w64, b64 = (t.detach().double().cpu().requires_grad_() for t in (x, w, bias))
    ref = fused_reference(x64, w64.t(), bias=b64, activation=act)
    ref.backward(grad.double().cpu())
    for got, want, name in ((x.grad, x64.grad, "dx"), (w.grad, w64.grad, "dW"),
                            (bias.grad, b64.grad, "dbias")):
        assert_close(got, want, 3 * TOL[dt], f"{kernel['name']} {name}")


@pytest.mark.parametrize("kernel", FUSED_KERNELS)
def test_run_kernel_fused_matches_the_op(kernel):
    """_C.run_kernel_fused (tests and tuning: one named kernel, no planner) launches the same
    kernel the op takes: the same D and Y bit for bit, and both match the fp64 reference."""
    dt = DT[kernel["ab"]]
    m, n, k = 300, 520, 1000
    g = torch.Generator(device="cuda").manual_seed(11)
    a = rand((m, k), dt, "cuda", g)
    b = rand((k, n), dt, "cuda", g, transposed=True)
    c, x = rand((m, n), dt, "cuda", g), rand((m, n), dt, "cuda", g)
    bias = rand((n,), dt, "cuda", g)
    args = (a, b, c, bias, x, 1.25, 0.5, 3.0, kernel["activation"], True, None)
    assert _C.explain_fused(*args) == f"kernel: {kernel['name']}"
    msg, out = _C.run_kernel_fused(*args, kernel["name"], True)
    assert msg.startswith("ok"), msg
    d_op, y_op = gemm_fused(a, b, c, bias, x, alpha=1.25, beta=0.5, x_factor=3.0,
                            activation=kernel["activation"], return_y=True)
    assert torch.equal(out[0], d_op) and torch.equal(out[1], y_op)
    act = kernel["activation"]
    tol = activation_tolerance(TOL[dt], act)
    assert_close(out[0], fused_reference(a, b, c, bias, x, 1.25, 0.5, 3.0, act), tol, "D")
    assert_close(out[1], reference(a, b), TOL[dt], "Y")
