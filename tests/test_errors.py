"""Invalid input: a ValueError/RuntimeError naming the argument, its value and what was expected,
raised identically by the real op (C++) and the fake implementation (torch.compile, meta)."""
import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from helpers import first_error

f16, f32 = torch.float16, torch.float32
E4M3 = torch.float8_e4m3fn


def T(*shape, dtype=f32, device="cpu"):
    return torch.randn(*shape).to(dtype=dtype, device=device)


def I8(*shape):
    return torch.randint(-128, 128, shape, dtype=torch.int8)


def I32(*shape):
    return torch.randint(-100, 100, shape, dtype=torch.int32)


def S(v):
    """A per-tensor scale."""
    return torch.tensor([v], dtype=f32)


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
    ("a_fp8_b_int8", lambda: (T(4, 8).to(E4M3), I8(8, 3)), {}, ValueError,
     r"b\.dtype = torch\.int8 must equal a\.dtype = torch\.float8_e4m3fn \(or be the other "
     r"float8 type\)"),
    ("a_int8_b_fp8", lambda: (I8(4, 8), T(8, 3).to(E4M3)), {}, ValueError,
     r"b\.dtype = torch\.float8_e4m3fn must equal a\.dtype = torch\.int8$"),
    ("a_uint8_still_refused", lambda: (I8(4, 8).to(torch.uint8), I8(8, 3).to(torch.uint8)), {},
     ValueError, r"a\.dtype = torch\.uint8 is not supported; expected one of .*torch\.int8"),
    ("int32_out_fractional_alpha", lambda: (I8(4, 8), I8(8, 3)), {"alpha": 0.5}, ValueError,
     r"alpha = 0\.5 and beta = 0 must be integers with an int32 output"),
    ("int32_out_fractional_beta", lambda: (I8(4, 8), I8(8, 3), I32(4, 3)), {"beta": 1.5},
     ValueError, r"alpha = 1 and beta = 1\.5 must be integers"),
    ("int32_out_with_scale", lambda: (I8(4, 8), I8(8, 3)), {"scale_a": S(2.0)}, ValueError,
     r"scale_a and scale_b are not taken with an int32 output"),
    ("int32_out_float_c", lambda: (I8(4, 8), I8(8, 3), T(4, 3)), {"out_dtype": torch.int32},
     ValueError, r"c\.dtype = torch\.float32 must be torch\.int32 with an int32 output"),
    ("int32_c_float_inputs", lambda: (T(4, 8), T(8, 3), I32(4, 3)), {}, ValueError,
     r"c\.dtype = torch\.int32 is not supported; expected one of torch\.float16, "
     r"torch\.bfloat16, torch\.float32, torch\.float64$"),
    ("fp8_out_int32", lambda: (T(4, 8).to(E4M3), T(8, 3).to(E4M3)), {"out_dtype": torch.int32},
     ValueError, r"out_dtype = torch\.int32 is not supported"),
    ("scale_float64", lambda: (T(4, 8), T(8, 3)), {"scale_a": S(2.0).double()}, ValueError,
     r"scale_a must be a float32 tensor with one element \(a per-tensor scale\), got "
     r"scale_a\.dtype = torch\.float64 with shape \[1\]"),
    ("scale_two_elements", lambda: (T(4, 8), T(8, 3)), {"scale_b": T(2)}, ValueError,
     r"scale_b must be a float32 tensor with one element .* with shape \[2\]"),
    ("scale_on_meta", lambda: (T(4, 8), T(8, 3)), {"scale_b": S(1.0).to("meta")}, RuntimeError,
     r"scale_b must be on a's device cpu, got scale_b\.device = meta"),
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
        fake_kwargs = {k: mode.from_tensor(v) if isinstance(v, torch.Tensor) else v
                       for k, v in kwargs.items()}
        fake = first_error(lambda: torch.ops.bw.gemm_axpby(*fake_args, **fake_kwargs))
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


def test_forgotten_warnings_show_again():
    import warnings

    from blackwell_ops import _C
    msg = "bw.gemm_axpby: test warning, shown again once forgotten"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _C._warn_once(msg)
        _C._warn_once(msg)
        _C._forget_warnings()
        _C._warn_once(msg)
        _C._warn_once(msg)
    assert [str(x.message) for x in w] == [msg, msg]


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
