"""Invalid input: a ValueError/RuntimeError naming the argument, its value and what was expected,
raised identically by the real op (C++) and the fake implementation (torch.compile, meta)."""
import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from helpers import first_error

f16, f32 = torch.float16, torch.float32


def T(*shape, dtype=f32, device="cpu"):
    return torch.randn(*shape).to(dtype=dtype, device=device)


# (id, args builder, kwargs, exception type, regex the message must match)
CASES = [
    ("a_1d", lambda: (T(8), T(8, 4)), {}, ValueError,
     r"a must be 2-D \(M, K\) or 3-D \(L, M, K\), got a\.dim\(\) = 1 with shape \[8\]"),
    ("a_4d", lambda: (T(1, 2, 3, 4), T(4, 4)), {}, ValueError, r"a must be 2-D .* a\.dim\(\) = 4"),
    ("b_1d", lambda: (T(4, 8), T(8)), {}, ValueError,
     r"b must be 2-D \(K, N\) or 3-D \(L, K, N\), got b\.dim\(\) = 1 with shape \[8\]"),
    ("k_mismatch", lambda: (T(4, 8), T(6, 3)), {}, ValueError,
     r"a and b disagree on K: a\.shape\[-1\] = 8 but b\.shape\[-2\] = 6"),
    ("k_mismatch_batched", lambda: (T(2, 4, 8), T(2, 7, 3)), {}, ValueError,
     r"disagree on K: a\.shape\[-1\] = 8 but b\.shape\[-2\] = 7"),
    ("l_mismatch", lambda: (T(2, 4, 8), T(3, 8, 3)), {}, ValueError,
     r"a and b disagree on the batch size L: a\.shape\[0\] = 2 but b\.shape\[0\] = 3"),
    ("a_int", lambda: (torch.ones(4, 8, dtype=torch.int32), torch.ones(8, 3, dtype=torch.int32)),
     {}, ValueError, r"a\.dtype = torch\.int32 is not supported; expected one of torch\.float16"),
    ("a_complex", lambda: (T(4, 8).to(torch.complex64), T(8, 3).to(torch.complex64)), {},
     ValueError, r"a\.dtype = torch\.complex64 is not supported"),
    ("b_dtype_mismatch", lambda: (T(4, 8, dtype=f16), T(8, 3)), {}, ValueError,
     r"b\.dtype = torch\.float32 must equal a\.dtype = torch\.float16"),
    ("out_dtype_int", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.int8}, ValueError,
     r"out_dtype = torch\.int8 is not supported; expected None or one of"),
    ("out_dtype_fp8", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.float8_e4m3fn}, ValueError,
     r"out_dtype = torch\.float8_e4m3fn is not supported"),
    ("c_shape", lambda: (T(4, 8), T(8, 3), T(4, 4)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[4, 3\] \(M, N\), got c\.shape = \[4, 4\]"),
    ("c_broadcast_not_allowed", lambda: (T(4, 8), T(8, 3), T(3)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[4, 3\] \(M, N\), got c\.shape = \[3\]"),
    ("c_shape_batched", lambda: (T(2, 4, 8), T(8, 3), T(4, 3)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[2, 4, 3\] \(L, M, N\), got c\.shape = \[4, 3\]"),
    ("c_dtype", lambda: (T(4, 8), T(8, 3), torch.ones(4, 3, dtype=torch.int64)), {}, ValueError,
     r"c\.dtype = torch\.int64 is not supported"),
    ("b_on_meta", lambda: (T(4, 8), T(8, 3, device="meta")), {}, RuntimeError,
     r"b must be on a's device cpu, got b\.device = meta"),
    ("c_on_meta", lambda: (T(4, 8), T(8, 3), T(4, 3, device="meta")), {}, RuntimeError,
     r"c must be on a's device cpu, got c\.device = meta"),
    ("a_0d", lambda: (torch.tensor(1.0), T(8, 4)), {}, ValueError,
     r"a must be 2-D .* got a\.dim\(\) = 0 with shape \[\]"),
    ("b_4d", lambda: (T(4, 8), T(1, 1, 8, 4)), {}, ValueError,
     r"b must be 2-D .* got b\.dim\(\) = 4 with shape \[1, 1, 8, 4\]"),
    ("b_0d", lambda: (T(4, 8), torch.tensor(2.0)), {}, ValueError, r"b\.dim\(\) = 0"),
    ("a_bool", lambda: (torch.ones(4, 8, dtype=torch.bool), torch.ones(8, 3, dtype=torch.bool)),
     {}, ValueError, r"a\.dtype = torch\.bool is not supported"),
    ("a_int64", lambda: (torch.ones(4, 8, dtype=torch.int64), torch.ones(8, 3, dtype=torch.int64)),
     {}, ValueError, r"a\.dtype = torch\.int64 is not supported"),
    ("a_uint8", lambda: (torch.ones(4, 8, dtype=torch.uint8), torch.ones(8, 3, dtype=torch.uint8)),
     {}, ValueError, r"a\.dtype = torch\.uint8 is not supported"),
    ("a_fp8", lambda: (T(4, 8).to(torch.float8_e4m3fn), T(8, 3).to(torch.float8_e4m3fn)), {},
     ValueError, r"a\.dtype = torch\.float8_e4m3fn is not supported"),
    ("b_int_a_float", lambda: (T(4, 8), torch.ones(8, 3, dtype=torch.int32)), {}, ValueError,
     r"b\.dtype = torch\.int32 must equal a\.dtype = torch\.float32"),
    ("b_bf16_a_f16", lambda: (T(4, 8, dtype=f16), T(8, 3, dtype=torch.bfloat16)), {}, ValueError,
     r"b\.dtype = torch\.bfloat16 must equal a\.dtype = torch\.float16"),
    ("out_dtype_complex", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.complex64}, ValueError,
     r"out_dtype = torch\.complex64 is not supported"),
    ("out_dtype_bool", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.bool}, ValueError,
     r"out_dtype = torch\.bool is not supported"),
    ("out_dtype_int32", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.int32}, ValueError,
     r"out_dtype = torch\.int32 is not supported"),
    ("c_3d_for_2d_output", lambda: (T(4, 8), T(8, 3), T(1, 4, 3)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[4, 3\] \(M, N\), got c\.shape = \[1, 4, 3\]"),
    ("c_transposed_shape", lambda: (T(4, 8), T(8, 3), T(3, 4)), {"beta": 1.0}, ValueError,
     r"got c\.shape = \[3, 4\]"),
    ("c_wrong_batch", lambda: (T(2, 4, 8), T(2, 8, 3), T(3, 4, 3)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[2, 4, 3\] \(L, M, N\), got c\.shape = \[3, 4, 3\]"),
    ("c_shape_checked_even_with_beta_0", lambda: (T(4, 8), T(8, 3), T(5, 3)), {"beta": 0.0},
     ValueError, r"got c\.shape = \[5, 3\]"),
    ("c_complex", lambda: (T(4, 8), T(8, 3), T(4, 3).to(torch.complex64)), {}, ValueError,
     r"c\.dtype = torch\.complex64 is not supported"),
    ("c_bool", lambda: (T(4, 8), T(8, 3), torch.ones(4, 3, dtype=torch.bool)), {}, ValueError,
     r"c\.dtype = torch\.bool is not supported"),
    ("k_mismatch_2d_a_3d_b", lambda: (T(4, 8), T(2, 9, 3)), {}, ValueError,
     r"a\.shape\[-1\] = 8 but b\.shape\[-2\] = 9"),
    ("k_mismatch_3d_a_2d_b", lambda: (T(2, 4, 8), T(7, 3)), {}, ValueError,
     r"a\.shape\[-1\] = 8 but b\.shape\[-2\] = 7"),
    ("a_on_meta", lambda: (T(4, 8, device="meta"), T(8, 3)), {}, RuntimeError,
     r"b must be on a's device meta, got b\.device = cpu"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_real_op_error(case):
    _, make, kwargs, exc, pattern = case
    with pytest.raises(exc, match=pattern) as info:
        torch.ops.bw.gemm_axpby(*make(), **kwargs)
    assert "bw.gemm_axpby: " in str(info.value)


@pytest.mark.parametrize("case", [c for c in CASES if "meta" not in c[0]],
                         ids=[c[0] for c in CASES if "meta" not in c[0]])
def test_fake_raises_the_same(case):
    _, make, kwargs, exc, pattern = case
    args = make()
    real = first_error(lambda: torch.ops.bw.gemm_axpby(*args, **kwargs))
    with FakeTensorMode() as mode:
        fake_args = [mode.from_tensor(t) for t in args]
        fake = first_error(lambda: torch.ops.bw.gemm_axpby(*fake_args, **kwargs))
    assert real[0] is exc and fake[0] is exc
    assert re.search(pattern, fake[1]), fake[1]
    assert real[1] == fake[1]


def test_no_crash_on_huge_k_mismatch():
    with pytest.raises(ValueError, match="disagree on K"):
        torch.ops.bw.gemm_axpby(torch.empty(1, 2**20), torch.empty(1, 1))


def test_wrong_argument_types_are_type_errors():
    with pytest.raises((TypeError, RuntimeError)):
        torch.ops.bw.gemm_axpby(T(4, 8), "b")
    with pytest.raises((TypeError, RuntimeError)):
        torch.ops.bw.gemm_axpby(T(4, 8), T(8, 3), alpha="2")


@pytest.mark.gpu
def test_cpu_cuda_mix():
    with pytest.raises(RuntimeError, match=r"b must be on a's device cuda:0, got b\.device = cpu"):
        torch.ops.bw.gemm_axpby(T(4, 8, device="cuda"), T(8, 3))
    with pytest.raises(RuntimeError, match=r"c must be on a's device cpu, got c\.device = cuda:0"):
        torch.ops.bw.gemm_axpby(T(4, 8), T(8, 3), T(4, 3, device="cuda"), beta=1.0)


def test_fallback_warning_is_a_python_warning_shown_once():
    import warnings

    from blackwell_ops import _C
    msg = "bw.gemm_axpby: test warning, unique to this test"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _C._warn_once(msg)
        _C._warn_once(msg)
    assert [str(x.message) for x in w] == [msg]
    assert w[0].category is UserWarning


def test_fallback_warning_honours_error_filter():
    import warnings

    from blackwell_ops import _C
    msg = "bw.gemm_axpby: test warning turned into an error"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="turned into an error"):
            _C._warn_once(msg)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _C._warn_once(msg)  # not marked as shown: it warns once it can
    assert len(w) == 1
