"""On a CUDA GPU: the scale kernels (Epilogue::Scale: D = alpha * acc, built without C, so no C
buffers in shared memory and delayed TMA stores; csrc/gemm/epilogue.hpp). Every compiled one
against the fp64 reference (FP8 with per-tensor scales) with D poisoned beforehand, bit for bit
against the axpby kernel of the same config on the same call, and refusing a call that reads C.
Marked gpu: skipped, with the reason, without a GPU or without scale kernels in this build."""
import math
import re

import pytest
import torch

from blackwell_ops import _C
from helpers import (assert_close, kernel_dtype, kernel_params, kernel_tolerance,
                     kernels_for_this_gpu, poison_next_alloc, rand_input, reference, scale_tensor,
                     scaled_alpha)

pytestmark = pytest.mark.gpu

SCALE = kernel_params(kernels_for_this_gpu("scale"), "no compiled scale kernel for this GPU")
SHAPES = [(128, 256, 128), (127, 136, 200), (300, 520, 1024), (1024, 768, 2048), (136, 264, 3200)]


def _operands(k, m, n, kk, g, l=None):
    lead = () if l is None else (l,)
    a = rand_input((*lead, m, kk), kernel_dtype(k["ab"]), "cuda", g, transposed=k["a_major"] == "MN")
    b = rand_input((*lead, kk, n), kernel_dtype(k["b"]), "cuda", g, transposed=k["b_major"] == "K")
    return a, b


def _scales(k):
    fp8 = k["ab"].startswith("float8")
    return (scale_tensor(0.5), scale_tensor(1.25)) if fp8 else (None, None)


def _run(k, a, b, c, alpha, beta, sa, sb, name=None):
    msg, d = _C.run_kernel(a, b, c, alpha, beta, kernel_dtype(k["cd"]), name or k["name"], True,
                           None, sa, sb)
    if msg.startswith("precondition") and "not a multiple" in msg:
        pytest.skip(msg)  # the shape breaks this layout's 16-byte alignment
    assert msg.startswith("ok"), msg
    return d


@pytest.mark.parametrize("kernel", SCALE)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_scale_kernel_vs_reference(kernel, mnk):
    m, n, k = mnk
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    a, b = _operands(kernel, m, n, k, g)
    sa, sb = _scales(kernel)
    # no C; and a C with beta == 0, which the kernel never reads (NaN would show)
    for alpha, c in [(1.0, None), (-1.5, torch.full((m, n), math.nan, dtype=cd, device="cuda"))]:
        poison_next_alloc((m, n), cd, "cuda")
        d = _run(kernel, a, b, c, alpha, 0.0, sa, sb)
        assert d.dtype == cd and d.shape == (m, n) and d.is_contiguous()
        assert_close(d, reference(a, b, None, scaled_alpha(alpha, sa, sb)),
                     kernel_tolerance(kernel), f"{kernel['name']} {mnk} alpha={alpha}")


@pytest.mark.parametrize("kernel", SCALE)
def test_scale_kernel_batched(kernel):
    l, m, n, k = 3, 200, 136, 264
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(17)
    a, b = _operands(kernel, m, n, k, g, l=l)
    sa, sb = _scales(kernel)
    poison_next_alloc((l, m, n), cd, "cuda")
    d = _run(kernel, a, b, None, 0.75, 0.0, sa, sb)
    assert_close(d, reference(a, b, None, scaled_alpha(0.75, sa, sb)), kernel_tolerance(kernel),
                 kernel["name"])


@pytest.mark.parametrize("kernel", SCALE)
def test_scale_kernel_equals_the_axpby_kernel(kernel):
    """Same mainloop, and the axpby tree without C computes alpha * acc the same way: the same
    bits, on a problem of several waves of tiles."""
    axpby = re.sub(r"_scale(_e\d+x\d+)?$", "_axpby", kernel["name"])
    if axpby not in {k["name"] for k in _C.compiled_kernels()}:
        pytest.skip(f"{axpby} is not in this build")
    g = torch.Generator(device="cuda").manual_seed(18)
    a, b = _operands(kernel, 2048, 3072, 1024, g)
    sa, sb = _scales(kernel)
    d1 = _run(kernel, a, b, None, 1.25, 0.0, sa, sb)
    d2 = _run(kernel, a, b, None, 1.25, 0.0, sa, sb, name=axpby)
    assert torch.equal(d1, d2), (d1 - d2).abs().max()


@pytest.mark.parametrize("kernel", SCALE)
def test_scale_kernel_refuses_a_call_that_reads_c(kernel):
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(19)
    a, b = _operands(kernel, 256, 256, 256, g)
    c = rand_input((256, 256), cd, "cuda", g)
    sa, sb = _scales(kernel)
    msg, d = _C.run_kernel(a, b, c, 1.0, 1.0, cd, kernel["name"], True, None, sa, sb)
    assert d is None and "without C" in msg, msg
