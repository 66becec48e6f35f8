"""On a CUDA GPU: calls whose sizes or addresses TMA cannot take as they are (N or K off the
16-byte grid, a storage offset, a column-major a for 8-bit inputs) run the kernels on padded
copies (csrc/bw_ops_cuda.cpp, pad_call), not the cuBLAS composite. Each case goes through the
public op, checks the path (`_C.explain`: a kernel, after padding) and compares against the fp64
reference with the output poisoned beforehand; the one-time warning is checked once. Marked gpu:
skipped, with the reason, without a GPU or without a kernel for the case's types in this build."""
import math
import warnings

import pytest
import torch

from blackwell_ops import _C, gemm_axpby, gemm_fused
from helpers import (activation_tolerance, assert_close, fused_reference, out_tolerance,
                     poison_next_alloc, rand_input, reference, scale_tensor, scaled_alpha,
                     TF32_TOL)

pytestmark = pytest.mark.gpu

BF16, F16, F32 = torch.bfloat16, torch.float16, torch.float32
E4M3, E5M2, I8, I32 = torch.float8_e4m3fn, torch.float8_e5m2, torch.int8, torch.int32


def _in(shape, dtype, g, layout="row"):
    """An input in one of three layouts: "row" (unit-stride last dim), "col" (the transpose of a
    row-major tensor), "offset" (row-major, 16-byte misaligned: one element into a buffer)."""
    if layout == "col":
        return rand_input(shape, dtype, "cuda", g, transposed=True)
    if layout == "offset":
        flat = rand_input((math.prod(shape) + 1,), dtype, "cuda", g)
        return flat[1:].view(shape)
    return rand_input(shape, dtype, "cuda", g)


# name -> (ab, b's dtype, out dtype, (L, M, N, K), a layout, b layout, c?, scales?, what is padded)
# "b col" is b = W.t() of a row-major W (N, K): K-major, the layout 8-bit/tf32 kernels read.
AXPBY = {
    "bf16_n_unaligned": (BF16, BF16, BF16, (None, 1024, 1001, 1024), "row", "row", True, False, "N"),
    "bf16_k_unaligned": (BF16, BF16, BF16, (None, 1024, 768, 1020), "row", "row", True, False, "K"),
    "bf16_both_kmajor_b": (BF16, BF16, BF16, (None, 1537, 1001, 1999), "row", "col", True, False,
                           "N K"),
    # M = 1001: a column-major a's rows are 16-byte misaligned, so no kernel takes it as it is
    # (with M = 1000, a kernel for a column-major a takes it unpadded, whatever K is).
    "bf16_col_a_k": (BF16, BF16, BF16, (None, 1001, 1024, 1030), "col", "row", False, False, "K"),
    "fp16_to_fp32": (F16, F16, F32, (None, 2048, 1003, 2050), "row", "row", True, False, "N K"),
    "bf16_batched": (BF16, BF16, BF16, (3, 1000, 1000, 1030), "row", "row", True, False, "K"),
    "bf16_batched_shared_b": (BF16, BF16, BF16, (2, 1024, 512, 1020), "row", "row", False, False,
                              "K"),
    "bf16_storage_offset": (BF16, BF16, BF16, (None, 1024, 1024, 1024), "offset", "row", True, False,
                            ""),
    "e4m3_k_unaligned": (E4M3, E4M3, BF16, (None, 1024, 1024, 2040), "row", "col", True, True, "K"),
    "e4m3_n_unaligned": (E4M3, E4M3, BF16, (None, 2048, 2044, 4096), "row", "col", True, True,
                         "N"),
    "e5m2xe4m3_row_b": (E5M2, E4M3, BF16, (None, 1024, 2048, 2040), "row", "row", False, True, "K"),
    "int8_to_int32": (I8, I8, I32, (None, 2048, 2046, 4000), "row", "col", True, False, "N"),
    "int8_to_bf16": (I8, I8, BF16, (None, 2048, 2044, 4096), "row", "col", False, True, "N"),
    "tf32": (F32, F32, F32, (None, 1536, 1023, 1025), "row", "col", True, False, "N K"),
}


def _axpby_case(name, g):
    ab, bt, cd, (l, m, n, k), la, lb, with_c, scaled, padded = AXPBY[name]
    lead = () if l is None else (l,)
    b_lead = () if name.endswith("shared_b") else lead
    a = _in((*lead, m, k), ab, g, la)
    b = _in((*b_lead, k, n), bt, g, lb)
    c = rand_input((*lead, m, n), cd, "cuda", g) if with_c else None
    sa, sb = (scale_tensor(0.5), scale_tensor(1.25)) if scaled else (None, None)
    return a, b, c, sa, sb, cd, padded


def _expect_padded(path, padded):
    if not path.startswith("kernel: "):
        pytest.skip(f"no kernel for these types in this build, even padded: {path}")
    assert "after padding" in path, path
    for dim in padded.split():
        assert f"{dim} = " in path.split("padded to")[1].split("(")[0], path


@pytest.mark.parametrize("name", list(AXPBY))
def test_axpby_runs_padded(name, tf32_on):
    g = torch.Generator(device="cuda").manual_seed(len(name) * 7919)
    a, b, c, sa, sb, cd, padded = _axpby_case(name, g)
    exact = cd == I32
    cases = [(1.0, 1.0), (2.0, -3.0)] if exact else [(1.5, -0.5), (0.75, 0.0)]
    for alpha, beta in cases:
        cc = c
        if c is not None and beta == 0.0:
            cc = torch.full_like(c, math.nan)  # beta == 0: never read, padded or not
        path = _C.explain(a, b, cc, alpha, beta, cd, sa, sb)
        _expect_padded(path, padded)
        poison_next_alloc(c.shape if c is not None else (*a.shape[:-1], b.shape[-1]), cd, "cuda")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = gemm_axpby(a, b, cc, alpha, beta, cd, scale_a=sa, scale_b=sb)
        s = scaled_alpha(alpha, sa, sb)
        ref = reference(a, b, cc, s, beta)
        assert d.shape == ref.shape and d.dtype == cd and d.is_contiguous(), (d.shape, d.stride())
        if exact:
            assert torch.equal(d.cpu().double(), ref), f"{name}: int32 output not exact ({path})"
        else:
            tol = max(out_tolerance(a.dtype, cd), TF32_TOL if a.dtype == F32 else 0.0)
            assert_close(d, ref, tol, f"{name} alpha={alpha} beta={beta}: {path}")


def test_padding_warns_once_naming_the_sizes(fresh_warnings):
    g = torch.Generator(device="cuda").manual_seed(5)
    a = rand_input((1024, 1000), BF16, "cuda", g)  # K = 1000: fine; N = 1003 is not
    b = rand_input((1000, 1003), BF16, "cuda", g)
    path = _C.explain(a, b)
    _expect_padded(path, "N")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d1 = gemm_axpby(a, b)
        d2 = gemm_axpby(a, b)
    msgs = [str(x.message) for x in w if "bw.gemm_axpby" in str(x.message)]
    assert len(msgs) == 1 and "N = 1003" in msgs[0] and "padded to N = 1008" in msgs[0], msgs
    for d in (d1, d2):
        assert_close(d, reference(a, b), out_tolerance(BF16, BF16))


def test_small_product_is_not_padded(fresh_warnings):
    """A product too small to hide the copies (few rows: a weight copy would double its traffic)
    keeps the cuBLAS composite, and the path says why."""
    g = torch.Generator(device="cuda").manual_seed(9)
    a = rand_input((64, 1024), BF16, "cuda", g)
    b = rand_input((1024, 1001), BF16, "cuda", g)
    path = _C.explain(a, b)
    assert path.startswith("composite") and "padded copies would cost more" in path, path
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d = gemm_axpby(a, b)
    msgs = [str(x.message) for x in w if "bw.gemm_axpby" in str(x.message)]
    assert len(msgs) == 1 and "padded copies would cost more" in msgs[0], msgs
    assert_close(d, reference(a, b), out_tolerance(BF16, BF16))


def test_bw_pad_environment_variable(monkeypatch):
    """BW_PAD=1 pads a call the cost rule declines; BW_PAD=0 never pads (the composite)."""
    g = torch.Generator(device="cuda").manual_seed(10)
    a, b = rand_input((64, 1024), BF16, "cuda", g), rand_input((1024, 1001), BF16, "cuda", g)
    for mode, expect in (("1", "kernel"), ("0", "composite"), ("", "composite")):
        monkeypatch.setenv("BW_PAD", mode)
        path = _C.explain(a, b)
        if mode == "1":
            _expect_padded(path, "N")
        assert path.startswith(expect), (mode, path)
        assert ("padded copies would cost more" in path) == (mode == ""), (mode, path)
        poison_next_alloc((64, 1001), BF16, "cuda")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = gemm_axpby(a, b)
        assert_close(d, reference(a, b), out_tolerance(BF16, BF16), f"BW_PAD={mode!r}: {path}")


# name -> (ab, out dtype, (M, N, K), c?, bias?, x?, return_y, activation, what is padded)
FUSED = {
    "bf16_all_operands": (BF16, BF16, (2048, 1001, 2048), True, True, True, True, "gelu_tanh", "N"),
    "bf16_k_unaligned": (BF16, BF16, (2048, 1024, 1020), False, True, False, False, "relu", "K"),
    "bf16_y_only": (BF16, BF16, (2048, 1001, 2052), True, False, False, True, "silu", "N K"),
    "e4m3_bias_gelu": (E4M3, BF16, (2048, 2044, 2040), True, True, False, False, "gelu_tanh",
                       "N K"),
}


@pytest.mark.parametrize("name", list(FUSED))
def test_fused_runs_padded(name):
    ab, cd, (m, n, k), with_c, with_bias, with_x, return_y, act, padded = FUSED[name]
    g = torch.Generator(device="cuda").manual_seed(len(name) * 104729)
    eight_bit = ab.itemsize == 1
    a = rand_input((m, k), ab, "cuda", g)
    b = rand_input((k, n), ab, "cuda", g, transposed=True)  # W.t(): the fused kernels' layout
    c = rand_input((m, n), cd, "cuda", g) if with_c else None
    bias = rand_input((n,), cd, "cuda", g) if with_bias else None
    x = rand_input((m, n), cd, "cuda", g) if with_x else None
    sa, sb = (scale_tensor(0.5), scale_tensor(1.25)) if eight_bit else (None, None)
    alpha, beta, x_factor = 0.75, (0.5 if with_c else 0.0), (-1.5 if with_x else 0.0)
    path = _C.explain_fused(a, b, c, bias, x, alpha, beta, x_factor, act, return_y, cd, sa, sb)
    _expect_padded(path, padded)
    poison_next_alloc((m, n), cd, "cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = gemm_fused(a, b, c, bias, x, alpha=alpha, beta=beta, x_factor=x_factor,
                         activation=act, return_y=return_y, out_dtype=cd, scale_a=sa,
                         scale_b=sb)
    d, y = out if return_y else (out, None)
    s = scaled_alpha(alpha, sa, sb)
    tol = activation_tolerance(out_tolerance(ab, cd), act)
    ref = fused_reference(a, b, c, bias, x, s, beta, x_factor, act)
    assert d.shape == (m, n) and d.is_contiguous()
    assert_close(d, ref, tol, f"{name} D: {path}")
    if return_y:
        assert y.shape == (m, n) and y.is_contiguous()  # Y = a @ b: the accumulator, unscaled
        assert_close(y, reference(a, b), out_tolerance(ab, cd), f"{name} Y: {path}")
