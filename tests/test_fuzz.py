"""Property-based fuzzing of gemm_axpby against the fp64 reference (hypothesis).

Each example draws shapes (zero sizes, ones, tails), batch and broadcast structure, strides
(transposed views, stepped slices, storage offsets), dtypes, out_dtype, alpha/beta (zero, negative,
large), and whether c is given; it checks the result against the fp64 reference and that the fake
implementation promises exactly the real output's shape, strides and dtype. BW_FUZZ_EXAMPLES sets
the count (CI: 2000 on CPU); the GPU variant runs the same property on CUDA.
"""
import math
import os

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from blackwell_ops import gemm_axpby
from helpers import rel_err, reference, subnormal_floor

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXAMPLES = int(os.environ.get("BW_FUZZ_EXAMPLES", "300"))
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
# Error bound relative to ||ref||, by the coarsest type involved. With cancellation (beta * c
# against alpha * a @ b) a norm-wise bound stays meaningful where an element-wise one would not.
EPS = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 2e-5, torch.float64: 1e-12}


@st.composite
def matrix(draw, rows, cols, lead, dtype, device):
    """A (lead..., rows, cols) tensor with fresh data and a drawn memory layout."""
    layout = draw(st.sampled_from(["contiguous", "transposed", "stepped", "offset"]))
    shape = (*lead, rows, cols)
    gen_shape = (*lead, cols, rows) if layout == "transposed" else shape
    if layout == "stepped":
        gen_shape = (*shape[:-1], cols * 2)
    if layout == "offset":
        gen_shape = (*shape[:-1], cols + 1)
    seed = draw(st.integers(0, 2**31 - 1))
    g = torch.Generator(device=device).manual_seed(seed)
    base = torch.randn(gen_shape, generator=g, device=device, dtype=torch.float32).to(dtype)
    if layout == "transposed":
        t = base.mT
    elif layout == "stepped":
        t = base[..., ::2]
    elif layout == "offset":
        t = base[..., 1:]
    else:
        t = base
    assert t.shape == shape
    return t


@st.composite
def problems(draw, device="cpu"):
    dtype = draw(st.sampled_from(DTYPES))
    m, n, k = (draw(st.integers(0, 24)) for _ in range(3))
    batch = draw(st.sampled_from(["2d", "both", "a_only", "b_only"]))
    l = draw(st.integers(0, 3)) if batch != "2d" else None
    a_lead = (l,) if batch in ("both", "a_only") else ()
    b_lead = (l,) if batch in ("both", "b_only") else ()
    a = draw(matrix(m, k, a_lead, dtype, device))
    b = draw(matrix(k, n, b_lead, dtype, device))
    out_dtype = draw(st.sampled_from([None] + DTYPES))
    out_lead = (l,) if batch != "2d" else ()
    c = None
    if draw(st.booleans()):
        c_dtype = out_dtype or draw(st.sampled_from(DTYPES))
        c = draw(matrix(m, n, out_lead, c_dtype, device))
    scalars = st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.0, -3.25, 1e3])
    return a, b, c, draw(scalars), draw(scalars), out_dtype


def check(a, b, c, alpha, beta, out_dtype):
    d = gemm_axpby(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype)
    expected_dtype = out_dtype or (c.dtype if c is not None else a.dtype)
    lead = a.shape[:-2] or b.shape[:-2]
    assert d.shape == (*lead, a.shape[-2], b.shape[-1])
    assert d.dtype == expected_dtype and d.is_contiguous()
    ref = reference(a, b, c, alpha, beta)
    if d.numel():
        assert torch.isfinite(d).all()
        types = [a.dtype, expected_dtype] + ([c.dtype] if c is not None and beta else [])
        tol = max(EPS[t] for t in types)
        # Inputs and c are exact in the reference; the bound covers fp32 accumulation and the
        # rounding of the output, scaled for the sizes of the terms that were rounded.
        scale = (abs(alpha) * (a.double().abs() @ b.double().abs()).cpu().norm()
                 + (abs(beta) * c.double().abs().cpu().norm() if c is not None and beta else 0))
        # (plus the rounding of D's subnormal elements, a fixed spacing: subnormal_floor)
        err = (d.double().cpu() - ref).norm().item()
        bound = tol * scale.item() + subnormal_floor(expected_dtype, d.numel())
        assert err <= bound, f"error {err:.3e} vs bound {bound:.3e} (rel {rel_err(d, ref):.3e})"
    with FakeTensorMode() as mode:
        conv = [mode.from_tensor(t) if t is not None else None for t in (a, b, c)]
        f = gemm_axpby(conv[0], conv[1], conv[2], alpha=alpha, beta=beta, out_dtype=out_dtype)
    assert f.shape == d.shape and f.stride() == d.stride() and f.dtype == d.dtype


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems())
@example((torch.tensor([[0.0063]], dtype=torch.float16),  # a subnormal fp16 product (CI, session 38)
          torch.tensor([[0.0004]], dtype=torch.float16), None, 1.0, 0.0, None))
def test_fuzz_cpu(problem):
    check(*problem)


@pytest.mark.gpu
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems(device="cuda"))
def test_fuzz_cuda(problem):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's one-time warnings
        check(*problem)


def test_nan_in_scalars_propagates():
    a, b, c = torch.randn(4, 3), torch.randn(3, 5), torch.randn(4, 5)
    assert torch.isnan(gemm_axpby(a, b, c, alpha=math.nan, beta=1.0)).all()
    assert torch.isnan(gemm_axpby(a, b, c, alpha=1.0, beta=math.nan)).all()
