"""Property-based fuzzing of gemm_fused against the fp64 reference (hypothesis), on top of
tests/test_fuzz.py's gemm_axpby problems (shapes, batching, layouts, dtypes, out_dtype, c, alpha,
beta): adds bias (strided views too), x, x_factor, the activation and return_y, and checks D and Y
against the reference and that the fake implementation promises exactly the real outputs' shapes,
strides and dtypes. BW_FUZZ_EXAMPLES sets the count, as for gemm_axpby."""
import warnings

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from blackwell_ops import gemm_fused
from blackwell_ops.fused import ACTIVATIONS
from conftest import devices
from helpers import fused_reference, reference, subnormal_floor

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from test_fuzz import DTYPES, EPS, EXAMPLES, matrix, problems  # noqa: E402

# |act(p)| <= |p| and |act'(p)| <= 1.13 for every activation here (gelu's and silu's slopes peak
# just above 1), so an error in P grows by at most this factor through the activation.
LIPSCHITZ = 1.13


@st.composite
def fused_problems(draw, device="cpu"):
    a, b, c, alpha, beta, out_dtype = draw(problems(device))
    lead, m, n = a.shape[:-2] or b.shape[:-2], a.shape[-2], b.shape[-1]
    bias = draw(matrix(1, n, (), draw(st.sampled_from(DTYPES)), device))[0] \
        if draw(st.booleans()) else None
    x = draw(matrix(m, n, lead, draw(st.sampled_from(DTYPES)), device)) \
        if draw(st.booleans()) else None
    x_factor = draw(st.sampled_from([0.0, 1.0, -1.0, 0.5, -3.25]))
    activation = draw(st.sampled_from(ACTIVATIONS))
    return (a, b, c, bias, x, alpha, beta, x_factor, activation, draw(st.booleans()), out_dtype)


def _norm(t):
    return t.double().abs().cpu().norm() if t is not None else torch.tensor(0.0)


def check(a, b, c, bias, x, alpha, beta, x_factor, activation, return_y, out_dtype):
    d, y = torch.ops.bw.gemm_fused(a, b, c, bias, x, alpha, beta, x_factor, activation, return_y,
                                   out_dtype)
    expected_dtype = out_dtype or (c.dtype if c is not None else a.dtype)
    shape = (*(a.shape[:-2] or b.shape[:-2]), a.shape[-2], b.shape[-1])
    assert d.shape == shape and d.dtype == expected_dtype and d.is_contiguous()
    assert y.shape == (shape if return_y else (0,)) and y.dtype == expected_dtype
    if d.numel():
        ref = fused_reference(a, b, c, bias, x, alpha, beta, x_factor, activation)
        read = [t for t, on in ((c, beta), (bias, 1), (x, x_factor)) if t is not None and on]
        tol = max(EPS[t] for t in [a.dtype, expected_dtype] + [t.dtype for t in read])
        assert torch.isfinite(d).all()
        # As in test_fuzz: a norm-wise bound scaled by the terms that were rounded, through the
        # activation's slope, plus the rounding of D itself (||D|| <= that same scale).
        rows = d.numel() // max(shape[-1], 1)
        product = abs(alpha) * (a.double().abs() @ b.double().abs()).cpu().norm()
        p_scale = (product + (abs(beta) * _norm(c) if beta else 0) + rows ** 0.5 * _norm(bias))
        scale = LIPSCHITZ * p_scale + (abs(x_factor) * _norm(x) if x_factor else 0)
        floor = subnormal_floor(expected_dtype, d.numel())  # D's and Y's subnormals (helpers)
        err = (d.double().cpu() - ref).norm().item()
        assert err <= 2 * tol * float(scale) + floor, (err, float(scale), tol)
        if return_y:
            y_err = (y.double().cpu() - reference(a, b)).norm().item()
            y_scale = (a.double().abs() @ b.double().abs()).cpu().norm().item()
            assert y_err <= tol * y_scale + floor, (y_err, y_scale, tol)
    with FakeTensorMode() as mode:
        conv = [mode.from_tensor(t) if t is not None else None for t in (a, b, c, bias, x)]
        fake = torch.ops.bw.gemm_fused(*conv, alpha, beta, x_factor, activation, return_y,
                                       out_dtype)
    for f, r in zip(fake, (d, y)):
        assert f.shape == r.shape and f.stride() == r.stride() and f.dtype == r.dtype


@pytest.mark.parametrize("device", devices())
def test_fuzz_fused(device):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(fused_problems(device))
    def fuzz(problem):
        check(*problem)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the CUDA composite's one-time warning
        fuzz()


def test_fused_problems_cover_every_option():
    seen = set()

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck),
              database=None)
    @given(fused_problems())
    def record(problem):
        _, _, c, bias, x, _, _, _, activation, return_y, _ = problem
        seen.update({activation, ("c", c is not None), ("bias", bias is not None),
                     ("x", x is not None), ("y", return_y)})

    record()
    assert set(ACTIVATIONS) | {(k, v) for k in ("c", "bias", "x", "y") for v in (0, 1)} <= seen
