"""On a CUDA GPU: every compiled kernel for this GPU against the fp64 reference, the fallback and
its warning, CUDA graphs and streams. Marked gpu: skipped, with the reason, without a GPU."""
import math
import warnings

import pytest
import torch

from blackwell_ops import _C, gemm_axpby
from helpers import (TOL, assert_close, gpu_arch, kernel_params, kernels_for_this_gpu,
                     poison_next_alloc, rand, reference)

pytestmark = pytest.mark.gpu

DT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


# The 16-bit axpby kernels; the fused-epilogue ones are tested through bw.gemm_fused in
# tests/test_gpu_fused.py (and by name through run_kernel_fused there), the 8-bit and tf32
# ones in tests/test_gpu_quant.py.
KERNELS = kernel_params([k for k in kernels_for_this_gpu("axpby") if k["ab"] in DT],
                        "no compiled 16-bit axpby kernel for this GPU (or no GPU)")


def _operands(k, m, n, kk, l=None, g=None, share=None):
    """a, b laid out the way kernel config k expects; l: batch; share: 'a' or 'b' is 2-D."""
    ab = DT[k["ab"]]
    lead = () if l is None else (l,)
    a_lead = () if share == "a" else lead
    b_lead = () if share == "b" else lead
    a = rand((*a_lead, m, kk), ab, "cuda", g, transposed=k["a_major"] == "MN")
    b = rand((*b_lead, kk, n), ab, "cuda", g, transposed=k["b_major"] == "K")
    return a, b


SHAPES = [(128, 256, 64), (1, 8, 8), (8, 1, 8), (127, 129, 72), (300, 520, 1000),
          (1024, 768, 2048)]


def test_there_are_kernels_for_this_gpu():
    if gpu_arch() not in (90, 100):
        pytest.skip(f"no kernels exist for compute capability {gpu_arch()}")
    assert kernels_for_this_gpu("axpby"), "this build compiled no kernel for this GPU"


def _run(kernel, a, b, c, alpha, beta, out_dtype):
    """Launch exactly this kernel (bypassing the planner, so every compiled kernel is tested)."""
    msg, d = _C.run_kernel(a, b, c, alpha, beta, out_dtype, kernel["name"], True)
    if msg.startswith("precondition") and "not a multiple" in msg:
        pytest.skip(msg)  # the shape breaks this layout's 16-byte alignment
    if msg.startswith("mismatch") and 1 in (*a.shape[-2:], b.shape[-1]):
        pytest.skip("a dim of size 1 has no majorness: the operand reads as the other layout")
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    return d


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_kernel_vs_reference(kernel, mnk):
    m, n, k = mnk
    cd = DT[kernel["cd"]]
    g = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    a, b = _operands(kernel, m, n, k, g=g)
    c = rand((m, n), cd, "cuda", g)
    for alpha, beta, cc in [(1.0, 1.0, c), (1.0, 0.0, None), (-0.75, 1.5, c), (2.0, 0.0, c)]:
        if cc is not None and beta == 0.0:
            cc = torch.full_like(c, math.nan)  # beta == 0: never read
        poison_next_alloc((m, n), cd, "cuda")
        d = _run(kernel, a, b, cc, alpha, beta, cd)
        assert d.dtype == cd and d.shape == (m, n) and d.is_contiguous()
        assert_close(d, reference(a, b, cc, alpha, beta), TOL[cd],
                     f"{kernel['name']} {mnk} alpha={alpha} beta={beta}")


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("share", [None, "a", "b"])
def test_kernel_batched(kernel, share):
    l, m, n, k = 3, 200, 136, 264
    cd = DT[kernel["cd"]]
    g = torch.Generator(device="cuda").manual_seed(11)
    a, b = _operands(kernel, m, n, k, l=l, g=g, share=share)
    c = rand((l, m, n), cd, "cuda", g)
    poison_next_alloc((l, m, n), cd, "cuda")
    d = _run(kernel, a, b, c, 0.5, -1.0, cd)
    assert_close(d, reference(a, b, c, 0.5, -1.0), TOL[cd], f"{kernel['name']} share={share}")


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_nan_inf_propagate_like_addmm(kernel):
    cd = DT[kernel["cd"]]
    g = torch.Generator(device="cuda").manual_seed(5)
    a, b = _operands(kernel, 256, 256, 128, g=g)
    a[3, 5] = math.nan
    b[7, 9] = math.inf
    d = _run(kernel, a, b, None, 1.0, 0.0, cd).float()
    e = torch.mm(a.float(), b.float())
    assert torch.equal(torch.isnan(d), torch.isnan(e))
    assert torch.equal(torch.isinf(d), torch.isinf(e))


@pytest.mark.parametrize("kernel", KERNELS)
def test_op_routes_to_a_kernel_of_the_right_family(kernel):
    """The public op takes a compiled kernel for every aligned layout/type a kernel exists for,
    and gives the kernel's answer."""
    cd = DT[kernel["cd"]]
    g = torch.Generator(device="cuda").manual_seed(12)
    a, b = _operands(kernel, 512, 384, 256, g=g)
    c = rand((512, 384), cd, "cuda", g)
    path = _C.explain(a, b, c, 1.0, 1.0, cd)
    tag = "_".join(kernel["name"].split("_")[:5])  # sm90_bf16_bf16_ak_bmn
    assert path.startswith(f"kernel: {tag}_"), path
    d = gemm_axpby(a, b, c, beta=1.0, out_dtype=cd)
    assert_close(d, reference(a, b, c, 1.0, 1.0), TOL[cd])


def test_fallback_is_correct_and_warns_once_with_reason(fresh_warnings):
    """No kernel takes exact fp32 (TF32 off, torch's default): the cuBLAS composite runs and
    says why, once. (Unaligned sizes run the kernels padded: tests/test_gpu_padding.py.)"""
    g = torch.Generator(device="cuda").manual_seed(6)
    a = rand((64, 96), torch.float32, "cuda", g)
    b = rand((96, 72), torch.float32, "cuda", g)
    assert "no kernel takes float32" in _C.explain(a, b)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d1 = gemm_axpby(a, b, alpha=2.0)
        d2 = gemm_axpby(a, b, alpha=2.0)
    msgs = [str(x.message) for x in w if "bw.gemm_axpby" in str(x.message)]
    assert len(msgs) == 1 and "no kernel takes float32" in msgs[0] and "cuBLAS" in msgs[0], msgs
    for d in (d1, d2):
        assert_close(d, reference(a, b, None, 2.0), 1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fallback_dtypes(dtype):
    g = torch.Generator(device="cuda").manual_seed(7)
    a, b = rand((96, 64), dtype, "cuda", g), rand((64, 80), dtype, "cuda", g)
    c = rand((96, 80), dtype, "cuda", g)
    path = _C.explain(a, b, c, 1.0, 1.0)  # fp32: tf32 is off by default, so exact fp32
    assert path.startswith("composite") and ("no kernel takes float32" in path
                                             or "no kernel computes float64" in path), path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = gemm_axpby(a, b, c, alpha=0.5, beta=2.0)
    assert_close(d, reference(a, b, c, 0.5, 2.0), 1e-4 if dtype == torch.float32 else 1e-12)


def test_storage_offset_runs_on_an_aligned_copy():
    g = torch.Generator(device="cuda").manual_seed(8)
    base = rand((1, 1024 * 1024 + 1), torch.float16, "cuda", g)
    a = base[0, 1:].view(1024, 1024)  # 2-byte offset: the pointer is not 16-byte aligned
    b = rand((1024, 512), torch.float16, "cuda", g)
    path = _C.explain(a, b)
    if not path.startswith("kernel"):
        pytest.skip(f"no fp16 kernel in this build: {path}")
    assert "after padding" in path and "(of a)" in path, path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = gemm_axpby(a, b)
    assert_close(d, reference(a, b), TOL[torch.float16])


def test_no_sm100_kernel_routed_on_hopper():
    if gpu_arch() != 90:
        pytest.skip("Hopper-only check")
    a = torch.randn(512, 512, device="cuda", dtype=torch.bfloat16)
    path = _C.explain(a, a)
    assert path.startswith("kernel: sm90_"), path


def test_cuda_graph_capture_and_replay():
    g = torch.Generator(device="cuda").manual_seed(9)
    a, b = rand((256, 512), torch.bfloat16, "cuda", g), rand((512, 384), torch.bfloat16, "cuda", g)
    c = rand((256, 384), torch.bfloat16, "cuda", g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        gemm_axpby(a, b, c, alpha=1.0, beta=1.0)  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = gemm_axpby(a, b, c, alpha=1.0, beta=1.0)
    for seed in (1, 2):
        g2 = torch.Generator(device="cuda").manual_seed(100 + seed)
        a.copy_(rand(a.shape, a.dtype, "cuda", g2))
        b.copy_(rand(b.shape, b.dtype, "cuda", g2))
        c.copy_(rand(c.shape, c.dtype, "cuda", g2))
        graph.replay()
        torch.cuda.synchronize()
        assert_close(out, reference(a, b, c, 1.0, 1.0), TOL[torch.bfloat16], f"replay {seed}")


def test_non_default_stream():
    g = torch.Generator(device="cuda").manual_seed(10)
    a, b = rand((1024, 1024), torch.bfloat16, "cuda", g), rand((1024, 1024), torch.bfloat16,
                                                               "cuda", g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        d = gemm_axpby(a, b, alpha=3.0)
        d2 = d * 1.0  # work queued behind ours on the same stream
    torch.cuda.current_stream().wait_stream(s)
    assert_close(d2, reference(a, b, None, 3.0), TOL[torch.bfloat16])


def test_no_host_sync():
    a = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 384, device="cuda", dtype=torch.bfloat16)
    gemm_axpby(a, b)  # first call: lazy init outside the check
    torch.cuda.set_sync_debug_mode("error")
    try:
        gemm_axpby(a, b, alpha=2.0)
    finally:
        torch.cuda.set_sync_debug_mode("default")


def test_opcheck_on_cuda_kernel_path():
    a = torch.randn(128, 64, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(64, 256, device="cuda", dtype=torch.bfloat16)
    c = torch.randn(128, 256, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.bw.gemm_axpby.default, (a, b, c), {"beta": 1.0})
