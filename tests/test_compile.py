"""torch.compile: fullgraph, dynamic shapes, no recompile when only M changes, autograd; on a
GPU (marked gpu), Inductor's graphs around the kernels themselves: bf16, FP8 with scale tensors
and the fused epilogue, forward and a training step."""
import pytest
import torch
from torch._dynamo.testing import CompileCounterWithBackend

from blackwell_ops import _C, gemm_axpby, gemm_fused
from helpers import (TOL, assert_close, fused_reference, out_tolerance, rand, reference,
                     scale_tensor, scaled_alpha)


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


# On a GPU -------------------------------------------------------------------------------------
# The CPU tests above run the composite; these run the CUDA kernels inside Inductor's graphs
# (its generated Triton code before and after the op). Each case asks the planner, on the same
# concrete inputs, which path the op takes (skipping, with its reason, in a build without the
# kernel), and then checks in the profiler that a compiled call of the graph launched a CUTLASS
# kernel: the composite's numbers are right too, so only the launch shows the kernel ran.

BF16, E4M3 = torch.bfloat16, torch.float8_e4m3fn


def _kernel_path(path: str) -> str:
    if not path.startswith("kernel: "):
        pytest.skip(f"this build has no kernel for the case: {path}")
    return path


def _cutlass_kernels_launched(fn, *args):
    """fn(*args), and the names of the CUTLASS kernels (GemmUniversal) it launched."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        out = fn(*args)
        torch.cuda.synchronize()
    return out, [e.name for e in prof.events() if "GemmUniversal" in e.name]


def _gpu_case(case, m, g):
    """(function, inputs, fp64 reference, tolerance, the op's path) of one GPU compile case."""
    k, n = 256, 384
    if case == "bf16":
        a, b, c = rand((m, k), BF16, "cuda", g), rand((k, n), BF16, "cuda", g), \
            rand((m, n), BF16, "cuda", g)
        path = _C.explain(a, b, c, 0.5, 1.0)
        return fn, (a, b, c), torch.relu(reference(a, b, c, 0.5, 1.0)) + 1.0, TOL[BF16], path
    if case == "float8_e4m3fn":
        a, b = rand((m, k), E4M3, "cuda", g), rand((k, n), E4M3, "cuda", g, transposed=True)
        c = rand((m, n), BF16, "cuda", g)
        # New scale values each call: tensors, so the graph reads them on the device.
        sa, sb = scale_tensor(0.25 * (1 + m % 3)), scale_tensor(2.0 + m % 5)

        def f8(a, b, c, sa, sb):
            return gemm_axpby(a, b, c, alpha=1.0, beta=-1.0, scale_a=sa, scale_b=sb) * 2.0

        path = _C.explain(a, b, c, 1.0, -1.0, None, sa, sb)
        return f8, (a, b, c, sa, sb), 2.0 * reference(a, b, c, scaled_alpha(1.0, sa, sb), -1.0), \
            out_tolerance(E4M3, BF16), path
    assert case == "fused_bf16"
    a, b = rand((m, k), BF16, "cuda", g), rand((k, n), BF16, "cuda", g, transposed=True)
    bias = rand((n,), BF16, "cuda", g)

    def ff(a, b, bias):
        return gemm_fused(a, b, bias=bias, alpha=1.0, beta=0.0, x_factor=1.0,
                          activation="gelu_tanh") * 2.0 + 1.0

    path = _C.explain_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", False, None)
    ref = fused_reference(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh") * 2.0 + 1.0
    return ff, (a, b, bias), ref, 2 * TOL[BF16], path  # gelu's slope and tanh.approx


@pytest.mark.gpu
@pytest.mark.parametrize("case", ["bf16", "float8_e4m3fn", "fused_bf16"])
def test_inductor_fullgraph_dynamic_on_gpu_runs_the_kernels(case):
    """Inductor, fullgraph, dynamic: one compile for four M (two of them not tile multiples),
    each result against the fp64 reference, the last call profiled for the kernel launch; FP8
    with a new product of the scales every call."""
    pytest.importorskip("triton", reason="Inductor's GPU backend needs triton")
    torch._dynamo.reset()
    counter = CompileCounterWithBackend("inductor")
    compiled = None
    for m in (128, 200, 520, 1024):
        g = torch.Generator(device="cuda").manual_seed(m)
        f, inputs, ref, tol, path = _gpu_case(case, m, g)
        _kernel_path(path)
        compiled = compiled or torch.compile(f, fullgraph=True, dynamic=True, backend=counter)
        if m == 1024:
            out, launched = _cutlass_kernels_launched(compiled, *inputs)
            assert launched, f"{case}: the compiled graph launched no CUTLASS kernel ({path})"
        else:
            out = compiled(*inputs)
        assert out.is_cuda and out.dtype == BF16 and out.shape == ref.shape
        assert_close(out, ref, tol, f"{case} m={m}, {path}")
    assert counter.frame_count == 1, f"recompiled: {counter.frame_count} frames"


@pytest.mark.gpu
def test_inductor_training_step_on_gpu():
    """A compiled Linear + bias + gelu_tanh step in bf16: the gemm_fused forward (Y kept for the
    backward) on its kernel, checked in the profiler; the backward's gemm_axpby calls on kernels
    where the build has their layouts, else on the composite. Loss and gradients against fp64
    autograd."""
    pytest.importorskip("triton", reason="Inductor's GPU backend needs triton")
    torch._dynamo.reset()
    g = torch.Generator(device="cuda").manual_seed(3)
    x = rand((200, 256), BF16, "cuda", g).requires_grad_()
    w = rand((384, 256), BF16, "cuda", g).mul_(0.1).requires_grad_()
    bias = rand((384,), BF16, "cuda", g).requires_grad_()
    target = rand((200, 384), BF16, "cuda", g)
    _kernel_path(_C.explain_fused(x, w.t(), None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", True,
                                  None))

    def step(x, w, bias, target):
        d = gemm_fused(x, w.t(), bias=bias, alpha=1.0, beta=0.0, x_factor=1.0,
                       activation="gelu_tanh")
        return ((d.float() - target.float()) ** 2).mean()

    loss, launched = _cutlass_kernels_launched(
        torch.compile(step, fullgraph=True, backend="inductor"), x, w, bias, target)
    assert launched, "the compiled forward launched no CUTLASS kernel"
    loss.backward()
    x64, w64, b64 = (t.detach().double().cpu().requires_grad_() for t in (x, w, bias))
    ref = ((fused_reference(x64, w64.t(), bias=b64, activation="gelu_tanh")
            - target.double().cpu()) ** 2).mean()
    ref.backward()
    assert_close(loss.detach().reshape(1), ref.detach().reshape(1), 2 * TOL[BF16], "loss")
    for got, want, name in ((x.grad, x64.grad, "dx"), (w.grad, w64.grad, "dW"),
                            (bias.grad, b64.grad, "dbias")):
        assert got is not None and got.dtype == BF16, name
        assert_close(got, want, 3 * TOL[BF16], name)
