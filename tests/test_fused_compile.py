"""bw.gemm_fused under torch.library.opcheck (schema, fake tensor, autograd registration, aot
dispatch), FakeTensorMode (exact output strides) and torch.compile (fullgraph, dynamic shapes,
no recompile when only M changes, compiled backward)."""
import pytest
import torch
from torch._dynamo.testing import CompileCounterWithBackend
from torch._subclasses.fake_tensor import FakeTensorMode

from blackwell_ops import gemm_fused
from blackwell_ops.fused import ACTIVATIONS
from conftest import devices
from helpers import assert_close, fused_reference, sample_maker


def samples(device):
    r = sample_maker(device)
    out = []
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        out += [
            ((r(16, 8, dtype=dtype), r(8, 24, dtype=dtype), r(16, 24, dtype=dtype),
              r(24, dtype=dtype), r(16, 24, dtype=dtype)),
             {"alpha": 0.5, "beta": 2.0, "x_factor": -1.0, "activation": "gelu_tanh",
              "return_y": True}),
            ((r(3, 16, 8, dtype=dtype), r(8, 24, dtype=dtype), None, r(24)),
             {"activation": "relu", "out_dtype": torch.float32}),
            ((r(16, 8, dtype=dtype), r(3, 8, 24, dtype=dtype), r(3, 16, 24), None,
              r(3, 16, 24, dtype=torch.float64)), {"beta": 1.0, "activation": "silu"}),
            ((r(16, 8, dtype=dtype), r(8, 24, dtype=dtype)), {}),  # the defaults
        ]
    for activation in ACTIVATIONS:
        out += [
            ((r(16, 8, grad=True), r(8, 24, grad=True), r(16, 24, grad=True), r(24, grad=True),
              r(16, 24, grad=True)),
             {"alpha": 1.5, "beta": 0.5, "x_factor": 2.0, "activation": activation}),
            ((r(2, 16, 8, grad=True), r(8, 24, grad=True), None, r(24, grad=True)),
             {"activation": activation, "return_y": True}),
        ]
    out += [
        ((r(16, 8, dtype=torch.float64, grad=True), r(2, 8, 24, dtype=torch.float64, grad=True),
          None, r(24, dtype=torch.float64, grad=True)), {"activation": "gelu_erf"}),
        ((r(16, 8, grad=True), r(8, 24).mT.contiguous().mT.requires_grad_(), None, None,
          r(16, 24, grad=True)), {"activation": "silu", "x_factor": 0.0}),
        ((r(16, 0, grad=True), r(0, 24, grad=True), r(16, 24, grad=True), r(24, grad=True)),
         {"beta": 1.0, "activation": "gelu_tanh", "return_y": True}),
        ((r(0, 8), r(8, 24), None, r(24)), {"activation": "relu"}),
    ]
    return out


@pytest.mark.parametrize("device", devices())
def test_opcheck(device):
    for args, kwargs in samples(device):
        torch.library.opcheck(torch.ops.bw.gemm_fused.default, args, kwargs)


def test_fake_output_strides_match_real():
    cases = [((4, 8), (8, 3), False), ((2, 4, 8), (8, 3), True), ((4, 8), (2, 8, 3), False),
             ((4, 0), (0, 3), True)]
    for sa, sb, return_y in cases:
        a, b = torch.randn(*sa), torch.randn(*sb).mT.contiguous().mT
        bias = torch.randn(3, dtype=torch.float64)
        real = torch.ops.bw.gemm_fused(a, b, bias=bias, activation="silu", return_y=return_y,
                                       out_dtype=torch.bfloat16)
        with FakeTensorMode() as mode:
            fake = torch.ops.bw.gemm_fused(mode.from_tensor(a), mode.from_tensor(b),
                                           bias=mode.from_tensor(bias), activation="silu",
                                           return_y=return_y, out_dtype=torch.bfloat16)
        for f, r in zip(fake, real):
            assert f.shape == r.shape and f.stride() == r.stride() and f.dtype == r.dtype


def fn(a, b, bias, x):
    # Every float passed: with dynamic=True a float default read from the wrapper's __defaults__
    # becomes a symbolic input, and dynamo restarts the first compile once to specialize it
    # (gemm_axpby likewise; not a recompile, but CompileCounter counts it).
    d = gemm_fused(a, b, bias=bias, x=x, alpha=0.5, beta=0.0, x_factor=-1.0,
                   activation="gelu_tanh")
    return d * 2.0 + 1.0


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_fullgraph_dynamic_no_recompile_over_m(backend):
    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    compiled = torch.compile(fn, fullgraph=True, dynamic=True, backend=counter)
    b, bias = torch.randn(32, 24), torch.randn(24)
    for m in (8, 16, 40, 72):
        a, x = torch.randn(m, 32), torch.randn(m, 24)
        out = compiled(a, b, bias, x)
        ref = fused_reference(a, b, None, bias, x, 0.5, 0.0, -1.0, "gelu_tanh") * 2.0 + 1.0
        assert_close(out, ref, 1e-5, f"m={m}")
    assert counter.frame_count == 1, f"recompiled: {counter.frame_count} frames"


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_compiled_backward(backend, activation):
    torch._dynamo.reset()

    def step(a, b, c, bias, x):
        d, y = gemm_fused(a, b, c, bias, x, beta=0.5, activation=activation, return_y=True)
        return d.sum() + (y * y).sum()

    compiled = torch.compile(step, fullgraph=True, dynamic=True, backend=backend)
    shapes = [(2, 12, 32), (32, 24), (2, 12, 24), (24,), (2, 12, 24)]
    inputs = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
    compiled(*inputs).backward()
    grads = [t.grad.clone() for t in inputs]
    for t in inputs:
        t.grad = None
    step(*inputs).backward()
    for got, t in zip(grads, inputs):
        assert torch.allclose(got, t.grad, rtol=1e-10, atol=1e-10)
