"""On a CUDA GPU: the 8-bit (FP8, INT8) and TF32 kernels and the op paths around them (issue #9):
every compiled kernel of these input types against the fp64 reference, with per-tensor scales;
int32 outputs exact; the K-major copy for other layouts (and its one-time warning); fp32 inputs
on TF32 kernels only when torch allows TF32; the fused FP8 epilogue; autograd through FP8
operands; CUDA graph replay with changed scales. Marked gpu: skipped, with the reason, without
a GPU."""
import math
import warnings

import pytest
import torch

from blackwell_ops import _C, gemm_axpby, gemm_fused
from helpers import (assert_close, fused_reference, kernel_dtype, kernel_params,
                     kernel_tolerance, kernels_for_this_gpu, poison_next_alloc, rand,
                     rand_input, reference, scale_tensor, scaled_alpha)

pytestmark = pytest.mark.gpu

QUANT = ("float8_e4m3fn", "float8_e5m2", "int8", "tf32")


def _quant_kernels(epilogue):
    return [k for k in kernels_for_this_gpu(epilogue) if k["ab"] in QUANT]


AXPBY = kernel_params(_quant_kernels("axpby"), "no compiled 8-bit/tf32 axpby kernel for this GPU")
FUSED = kernel_params(_quant_kernels("fused"), "no compiled 8-bit fused kernel for this GPU")
LEAN = kernel_params(_quant_kernels("lean"), "no compiled 8-bit lean fused kernel for this GPU")


def _operands(k, m, n, kk, g, l=None):
    """a (M, K) and b (K, N) in the kernel's layout: K-major (a row-major, b = (N, K)^T, the only
    layout sm90 kernels of these types take) or MN-major (sm100 kernels have every layout)."""
    lead = () if l is None else (l,)
    a = rand_input((*lead, m, kk), kernel_dtype(k["ab"]), "cuda", g,
                   transposed=k["a_major"] == "MN")
    b = rand_input((*lead, kk, n), kernel_dtype(k["b"]), "cuda", g,
                   transposed=k["b_major"] == "K")
    return a, b


def _scaled_reference(a, b, c, alpha, beta, sa, sb):
    return reference(a, b, c, scaled_alpha(alpha, sa, sb), beta)


# K in 128-element k-tiles: 1, a partial one, 2 (partial), 8, 16, 11 and 25 (the sm90 FP8
# overlapped promotion runs k-tiles in straight-line groups of 8 (128x128 tiles) or 2 (128x256, 4
# chunks each), each handing its last batch to the next, then one at a time: one group, two, three
# (a group both taking and handing over), groups then single k-tiles). M and N in 128-wide
# tiles: 300 x 520 has 3 rows and 5 columns, so a 2x1 cluster's second CTA lies wholly past M
# and a 1x2 cluster's wholly past N: those CTAs load no tile (csrc/gemm/sm90/tma_loads.hpp).
SHAPES = [(128, 256, 128), (1, 16, 16), (127, 136, 200), (300, 520, 1024), (1024, 768, 2048),
          (256, 384, 1408), (136, 264, 3200)]


@pytest.mark.parametrize("kernel", AXPBY)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_quant_kernel_vs_reference(kernel, mnk, tf32_on):
    m, n, k = mnk
    cd = kernel_dtype(kernel["cd"])
    exact = cd == torch.int32
    g = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    a, b = _operands(kernel, m, n, k, g)
    c = rand_input((m, n), cd, "cuda", g)
    sa, sb = (None, None) if exact else (scale_tensor(0.75), scale_tensor(1.5))
    cases = ([(1.0, 1.0, c), (2.0, 0.0, None), (-3.0, 2.0, c)] if exact else
             [(1.0, 1.0, c), (1.0, 0.0, None), (-0.75, 1.5, c), (2.0, 0.0, c)])
    for alpha, beta, cc in cases:
        if cc is not None and beta == 0.0 and not exact:
            cc = torch.full_like(c, math.nan)  # beta == 0: never read
        poison_next_alloc((m, n), cd, "cuda")
        msg, d = _C.run_kernel(a, b, cc, alpha, beta, cd, kernel["name"], True,
                               scale_a=sa, scale_b=sb)
        if msg.startswith("precondition") and "not a multiple" in msg:
            pytest.skip(msg)  # the shape breaks 16-byte alignment
        assert msg.startswith("ok"), msg
        ref = _scaled_reference(a, b, cc, alpha, beta, sa, sb)
        assert d.dtype == cd and d.shape == (m, n) and d.is_contiguous()
        what = f"{kernel['name']} {mnk} alpha={alpha} beta={beta}"
        if exact:
            assert torch.equal(d.cpu().double(), ref), what + ": int32 output not exact"
        else:
            assert_close(d, ref, kernel_tolerance(kernel), what)


@pytest.mark.parametrize("kernel", AXPBY)
def test_quant_kernel_batched(kernel, tf32_on):
    l, m, n, k = 3, 200, 136, 256
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(11)
    a, b = _operands(kernel, m, n, k, g, l=l)
    c = rand_input((l, m, n), cd, "cuda", g)
    alpha, beta = (2.0, -1.0) if cd == torch.int32 else (0.5, -1.0)
    msg, d = _C.run_kernel(a, b, c, alpha, beta, cd, kernel["name"], True)
    assert msg.startswith("ok"), msg
    ref = reference(a, b, c, alpha, beta)
    if cd == torch.int32:
        assert torch.equal(d.cpu().double(), ref)
    else:
        assert_close(d, ref, kernel_tolerance(kernel), kernel["name"])


@pytest.mark.parametrize("kernel", AXPBY)
def test_op_routes_quant_inputs_to_the_kernel(kernel, tf32_on):
    """The public op takes the compiled kernel for these types, with the scales."""
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(12)
    a, b = _operands(kernel, 512, 384, 256, g)
    scales = {} if cd == torch.int32 else dict(scale_a=scale_tensor(0.5), scale_b=scale_tensor(3.0))
    path = _C.explain(a, b, None, 1.0, 0.0, cd, **scales)
    tag = "_".join(kernel["name"].split("_")[:5])  # sm90_e4m3_bf16_ak_bk
    assert path.startswith(f"kernel: {tag}_"), path
    d = gemm_axpby(a, b, out_dtype=cd, **scales)
    ref = _scaled_reference(a, b, None, 1.0, 0.0, scales.get("scale_a"), scales.get("scale_b"))
    if cd == torch.int32:
        assert torch.equal(d.cpu().double(), ref)
    else:
        assert_close(d, ref, kernel_tolerance(kernel))


def _have(name_part):
    return any(name_part in k["name"] for k in _quant_kernels("axpby"))


needs_e4m3 = pytest.mark.skipif(not _have("_e4m3_bf16_"), reason="no e4m3 -> bf16 kernel here")


@needs_e4m3
def test_fp8_other_layouts_are_copied_k_major_only_where_no_kernel_reads_them():
    """sm90 (wgmma reads 8-bit operands K-major only): copied, with one warning. sm100 (UMMA reads
    them MN-major too): no copy where the build has the layout's kernel (x @ W for e4m3 -> bf16
    in the default build)."""
    g = torch.Generator(device="cuda").manual_seed(3)
    a = rand((256, 512), torch.float8_e4m3fn, "cuda", g)
    b = rand((512, 384), torch.float8_e4m3fn, "cuda", g)  # row-major (K, N): MN-major
    sa, sb = scale_tensor(0.5), scale_tensor(2.0)
    native = any(k["a_major"] == "K" and k["b_major"] == "MN" and k["ab"] == "float8_e4m3fn"
                 and k["b"] == "float8_e4m3fn" and k["cd"] == "bfloat16"
                 for k in _quant_kernels("axpby"))
    assert not native or torch.cuda.get_device_capability()[0] == 10  # no such sm90 kernel
    plan = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)
    assert ("after a copy" in plan) != native, plan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = gemm_axpby(a, b, scale_a=sa, scale_b=sb)
    msgs = [str(w.message) for w in caught if "K-major" in str(w.message)]
    assert len(msgs) <= 1 and all("copied b K-major" in m for m in msgs), msgs
    if native:
        assert not msgs, msgs
    assert d.dtype == torch.bfloat16
    assert_close(d, reference(a, b, alpha=1.0), 1e-2, "MN-major b")


@needs_e4m3
def test_fp8_scales_are_read_on_the_device_in_cuda_graphs():
    """Changing a scale tensor's value changes the replayed result (no recapture, no sync)."""
    g = torch.Generator(device="cuda").manual_seed(4)
    a = rand((256, 256), torch.float8_e4m3fn, "cuda", g)
    b = rand((256, 256), torch.float8_e4m3fn, "cuda", g, transposed=True)
    sa, sb = scale_tensor(1.0), scale_tensor(1.0)
    gemm_axpby(a, b, scale_a=sa, scale_b=sb)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        d = gemm_axpby(a, b, scale_a=sa, scale_b=sb)
    for va, vb in [(1.0, 1.0), (0.25, 3.0), (-2.0, 0.5)]:
        sa.fill_(va)
        sb.fill_(vb)
        graph.replay()
        torch.cuda.synchronize()
        assert_close(d, reference(a, b, alpha=va * vb), 1e-2, f"scales {va}, {vb}")


@needs_e4m3
def test_fp8_autograd_through_the_op():
    """Gradients w.r.t. float8 operands (computed from upcast operands, in the gradient's dtype,
    then rounded to float8 by autograd) and w.r.t. c match the fp64 reference's."""
    g = torch.Generator(device="cuda").manual_seed(5)
    a = rand((256, 128), torch.float8_e4m3fn, "cuda", g)
    w = rand((192, 128), torch.float8_e4m3fn, "cuda", g)
    c = rand((256, 192), torch.bfloat16, "cuda", g).requires_grad_()
    sa, sb = scale_tensor(0.5), scale_tensor(2.0)
    a.requires_grad_()
    d = gemm_axpby(a, w.t(), c, alpha=1.5, beta=0.5, scale_a=sa, scale_b=sb)
    gd = rand((256, 192), torch.bfloat16, "cuda", g)
    d.backward(gd)
    ga_ref = 1.5 * (gd.double() @ w.double()).cpu()  # alpha * sa * sb = 1.5
    assert a.grad.dtype == torch.float8_e4m3fn
    assert_close(a.grad, ga_ref, 0.08, "dA (rounded to e4m3)")
    assert_close(c.grad, 0.5 * gd.double().cpu(), 1e-2, "dC")


def test_fp32_inputs_use_tf32_kernels_only_when_allowed():
    if not _have("_tf32_f32_"):
        pytest.skip("no tf32 kernel in this build")
    g = torch.Generator(device="cuda").manual_seed(6)
    a = rand((512, 256), torch.float32, "cuda", g)
    b = rand((256, 384), torch.float32, "cuda", g, transposed=True)
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        path = _C.explain(a, b)
        assert path.startswith("composite") and "full fp32 precision" in path, path
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact = gemm_axpby(a, b)
        assert_close(exact, reference(a, b), 1e-5, "exact fp32 path")
        torch.backends.cuda.matmul.allow_tf32 = True
        path = _C.explain(a, b)
        assert path.startswith("kernel: sm") and "_tf32_f32_" in path, path
        assert_close(gemm_axpby(a, b), reference(a, b), 5e-3, "tf32 kernel")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


@pytest.mark.parametrize("kernel", FUSED)
@pytest.mark.parametrize("with_extras", [True, False], ids=["bias_c_x_y", "plain"])
def test_fused_fp8_kernel_vs_reference(kernel, with_extras):
    m, n, k = 384, 512, 1408  # 11 k-tiles of 128: groups and single k-tiles (see SHAPES)
    cd = kernel_dtype(kernel["cd"])
    act = kernel["activation"]
    g = torch.Generator(device="cuda").manual_seed(7)
    a, b = _operands(kernel, m, n, k, g)
    sa, sb = scale_tensor(0.5), scale_tensor(1.25)
    kw = dict(alpha=0.75, activation=act, scale_a=sa, scale_b=sb, out_dtype=cd)
    c = bias = x = None
    if with_extras:
        c, x = rand((m, n), cd, "cuda", g), rand((m, n), cd, "cuda", g)
        bias = rand((n,), cd, "cuda", g)
        kw.update(c=c, bias=bias, x=x, beta=-0.5, x_factor=0.25, return_y=True)
    _C.pin_kernel(kernel["name"])  # the op's planner takes this kernel only (several may fit)
    try:
        path = _C.explain_fused(a, b, c, bias, x, kw["alpha"], kw.get("beta", 0.0),
                                kw.get("x_factor", 1.0), act, kw.get("return_y", False), cd, sa, sb)
        assert path == f"kernel: {kernel['name']}", path
        out = gemm_fused(a, b, **kw)
    finally:
        _C.pin_kernel("")
    d, y = out if with_extras else (out, None)
    ref = fused_reference(a, b, c, bias, x, 0.75 * 0.5 * 1.25, kw.get("beta", 0.0),
                          kw.get("x_factor", 1.0), act)
    assert_close(d, ref, 2 * kernel_tolerance(kernel), f"{kernel['name']} D")
    if y is not None:
        assert_close(y, reference(a, b), kernel_tolerance(kernel), f"{kernel['name']} Y")


def _full_twin(lean):
    """The compiled full fused kernel of a lean one's configuration, or None."""
    name = lean["name"].replace("_lean_", "_fused_")
    return next((k for k in _quant_kernels("fused") if k["name"] == name), None)


@pytest.mark.parametrize("kernel", LEAN)
@pytest.mark.parametrize("with_extras", [True, False], ids=["bias_c", "plain"])
def test_lean_fp8_kernel_vs_reference_and_full_kernel(kernel, with_extras):
    """A lean fused kernel (no X/Y nodes): D against the fp64 reference, and equal (torch.equal:
    -0 == +0; the full tree's + 0 * X turns a -0 into +0) to the full kernel of the same
    configuration, which computes the same tree plus X and Y."""
    m, n, k = 384, 512, 3200  # 25 k-tiles: chained groups, then single k-tiles
    cd = kernel_dtype(kernel["cd"])
    act = kernel["activation"]
    g = torch.Generator(device="cuda").manual_seed(11)
    a, b = _operands(kernel, m, n, k, g)
    sa, sb = scale_tensor(0.5), scale_tensor(1.25)
    c = bias = None
    if with_extras:
        c, bias = rand((m, n), cd, "cuda", g), rand((n,), cd, "cuda", g)
    beta = -0.5 if with_extras else 0.0

    def run(name):
        msg, out = _C.run_kernel_fused(a, b, c, bias, None, 0.75, beta, 1.0, act, False, cd, name,
                                       True, None, sa, sb)
        assert out is not None, msg
        return out[0]

    d = run(kernel["name"])
    ref = fused_reference(a, b, c, bias, None, 0.75 * 0.5 * 1.25, beta, 1.0, act)
    assert_close(d, ref, 2 * kernel_tolerance(kernel), f"{kernel['name']} D")
    full = _full_twin(kernel)
    if full is not None:
        assert torch.equal(d, run(full["name"])), "lean and full kernels differ"


@pytest.mark.parametrize("kernel", LEAN)
def test_lean_kernel_refuses_x_and_y_and_the_planner_takes_a_full_one(kernel):
    m, n, k = 256, 512, 1024
    cd = kernel_dtype(kernel["cd"])
    act = kernel["activation"]
    g = torch.Generator(device="cuda").manual_seed(5)
    a, b = _operands(kernel, m, n, k, g)
    x = rand((m, n), cd, "cuda", g)
    for xx, return_y in ((x, False), (None, True)):
        msg, out = _C.run_kernel_fused(a, b, None, None, xx, 1.0, 0.0, 1.0, act, return_y, cd,
                                       kernel["name"], False)
        assert out is None and msg.startswith("mismatch: a lean fused kernel"), msg
        path = _C.explain_fused(a, b, None, None, xx, 1.0, 0.0, 1.0, act, return_y, cd)
        assert "_lean_" not in path, path
    # Without either, the host path runs (can_implement, workspace, Params) on the lean kernel.
    msg, _ = _C.run_kernel_fused(a, b, None, None, None, 1.0, 0.0, 1.0, act, False, cd,
                                 kernel["name"], False)
    assert msg.startswith("ok"), msg


def test_int8_int32_output_is_exact_at_large_k():
    """int32 accumulation: exact where an fp32 accumulator would round (|sum| > 2^24)."""
    if not _have("_s8_s32_"):
        pytest.skip("no int8 -> int32 kernel in this build")
    m, n, k = 128, 128, 8192
    a = torch.full((m, k), 127, dtype=torch.int8, device="cuda")
    b = torch.full((n, k), 127, dtype=torch.int8, device="cuda").t()
    a[0, 0] = 1  # one odd term: 127*127*8191 + 127 is not representable in fp32
    d = gemm_axpby(a, b)
    assert d.dtype == torch.int32
    assert d[0, 0].item() == 127 * 127 * (k - 1) + 127
    assert d[1, 1].item() == 127 * 127 * k
    assert torch.equal(d.cpu().double(), reference(a, b))


def test_int32_output_rejects_fractional_alpha():
    a = torch.ones(64, 64, dtype=torch.int8, device="cuda")
    with pytest.raises(ValueError, match="must be integers with an int32 output"):
        gemm_axpby(a, a.t(), alpha=0.5)


