"""torch.compile: fullgraph, dynamic shapes, no recompile when only M changes, autograd."""
import pytest
import torch
from torch._dynamo.testing import CompileCounterWithBackend

from blackwell_ops import gemm_axpby
from helpers import assert_close, reference


def fn(a, b, c):
    return torch.relu(gemm_axpby(a, b, c, alpha=0.5, beta=1.0)) + 1.0


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_fullgraph_dynamic_no_recompile_over_m(backend):
    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    compiled = torch.compile(fn, fullgraph=True, dynamic=True, backend=counter)
    b = torch.randn(32, 24)
    for m in (8, 16, 40, 72):
        a, c = torch.randn(m, 32), torch.randn(m, 24)
        out = compiled(a, b, c)
        ref = torch.relu(reference(a, b, c, 0.5, 1.0)) + 1.0
        assert_close(out, ref, 1e-5, f"m={m}")
    assert counter.frame_count == 1, f"recompiled: {counter.frame_count} frames"


def test_compiled_backward():
    torch._dynamo.reset()
    compiled = torch.compile(fn, fullgraph=True, dynamic=True, backend="aot_eager")
    a = torch.randn(12, 32, dtype=torch.float64, requires_grad=True)
    b = torch.randn(32, 24, dtype=torch.float64, requires_grad=True)
    c = torch.randn(12, 24, dtype=torch.float64, requires_grad=True)
    compiled(a, b, c).sum().backward()
    grads = [t.grad.clone() for t in (a, b, c)]
    for t in (a, b, c):
        t.grad = None
    fn(a, b, c).sum().backward()
    for got, t in zip(grads, (a, b, c)):
        assert torch.allclose(got, t.grad)


def test_fake_output_strides_match_real():
    from torch._subclasses.fake_tensor import FakeTensorMode
    cases = [((4, 8), (8, 3)), ((2, 4, 8), (8, 3)), ((4, 8), (2, 8, 3))]
    for sa, sb in cases:
        a, b = torch.randn(*sa), torch.randn(*sb).mT.contiguous().mT
        real = gemm_axpby(a, b)
        with FakeTensorMode() as mode:
            fake = gemm_axpby(mode.from_tensor(a), mode.from_tensor(b))
        assert fake.shape == real.shape and fake.stride() == real.stride()
        assert fake.dtype == real.dtype
