"""Invalid input to bw.gemm_fused: a ValueError/RuntimeError naming the argument, its value and
what was expected, raised identically by the real op (C++) and the fake implementation
(torch.compile, meta). The a/b/c/out_dtype checks are gemm_axpby's (tests/test_errors.py), shared;
a few of them are repeated here to pin the bw.gemm_fused prefix."""
import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import blackwell_ops.nn as bnn
from helpers import first_error

f16, f32 = torch.float16, torch.float32
ACTS = r"expected one of 'none', 'relu', 'gelu_tanh', 'gelu_erf', 'silu'"


def T(*shape, dtype=f32, device="cpu"):
    return torch.randn(*shape).to(dtype=dtype, device=device)


# (id, args builder (a, b, c, bias, x), kwargs, exception type, regex the message must match)
CASES = [
    ("bias_2d", lambda: (T(4, 8), T(8, 3), None, T(1, 3)), {}, ValueError,
     r"bias must have shape \[3\] \(N,\), got bias\.shape = \[1, 3\]"),
    ("bias_wrong_length", lambda: (T(4, 8), T(8, 3), None, T(4)), {}, ValueError,
     r"bias must have shape \[3\] \(N,\), got bias\.shape = \[4\]"),
    ("bias_0d", lambda: (T(4, 8), T(8, 3), None, torch.tensor(1.0)), {}, ValueError,
     r"bias must have shape \[3\] \(N,\), got bias\.shape = \[\]"),
    ("bias_full_output_shape", lambda: (T(4, 8), T(8, 3), None, T(4, 3)), {}, ValueError,
     r"bias must have shape \[3\] \(N,\), got bias\.shape = \[4, 3\]"),
    ("bias_batched", lambda: (T(2, 4, 8), T(8, 3), None, T(2, 3)), {}, ValueError,
     r"bias must have shape \[3\] \(N,\), got bias\.shape = \[2, 3\]"),
    ("bias_int", lambda: (T(4, 8), T(8, 3), None, torch.ones(3, dtype=torch.int64)), {},
     ValueError, r"bias\.dtype = torch\.int64 is not supported; expected one of torch\.float16"),
    ("bias_complex", lambda: (T(4, 8), T(8, 3), None, T(3).to(torch.complex64)), {}, ValueError,
     r"bias\.dtype = torch\.complex64 is not supported"),
    ("bias_on_meta", lambda: (T(4, 8), T(8, 3), None, T(3, device="meta")), {}, RuntimeError,
     r"bias must be on a's device cpu, got bias\.device = meta"),
    ("x_shape", lambda: (T(4, 8), T(8, 3), None, None, T(4, 4)), {}, ValueError,
     r"x must have the output's shape \[4, 3\] \(M, N\), got x\.shape = \[4, 4\]"),
    ("x_broadcast_not_allowed", lambda: (T(4, 8), T(8, 3), None, None, T(3)), {}, ValueError,
     r"x must have the output's shape \[4, 3\] \(M, N\), got x\.shape = \[3\]"),
    ("x_shape_batched", lambda: (T(2, 4, 8), T(8, 3), None, None, T(4, 3)), {}, ValueError,
     r"x must have the output's shape \[2, 4, 3\] \(L, M, N\), got x\.shape = \[4, 3\]"),
    ("x_shape_checked_even_with_x_factor_0", lambda: (T(4, 8), T(8, 3), None, None, T(5, 3)),
     {"x_factor": 0.0}, ValueError, r"got x\.shape = \[5, 3\]"),
    ("x_bool", lambda: (T(4, 8), T(8, 3), None, None, torch.ones(4, 3, dtype=torch.bool)), {},
     ValueError, r"x\.dtype = torch\.bool is not supported"),
    ("x_fp8", lambda: (T(4, 8), T(8, 3), None, None, T(4, 3).to(torch.float8_e4m3fn)), {},
     ValueError, r"x\.dtype = torch\.float8_e4m3fn is not supported"),
    ("x_on_meta", lambda: (T(4, 8), T(8, 3), None, None, T(4, 3, device="meta")), {},
     RuntimeError, r"x must be on a's device cpu, got x\.device = meta"),
    ("activation_unknown", lambda: (T(4, 8), T(8, 3)), {"activation": "gelu"}, ValueError,
     r"activation = 'gelu' is not supported; " + ACTS),
    ("activation_case", lambda: (T(4, 8), T(8, 3)), {"activation": "ReLU"}, ValueError,
     r"activation = 'ReLU' is not supported"),
    ("activation_empty", lambda: (T(4, 8), T(8, 3)), {"activation": ""}, ValueError,
     r"activation = '' is not supported"),
    ("a_1d_fused", lambda: (T(8), T(8, 4)), {}, ValueError,
     r"a must be 2-D \(M, K\) or 3-D \(L, M, K\), got a\.dim\(\) = 1 with shape \[8\]"),
    ("k_mismatch_fused", lambda: (T(4, 8), T(6, 3)), {}, ValueError,
     r"a and b disagree on K: a\.shape\[-1\] = 8 but b\.shape\[-2\] = 6"),
    ("b_dtype_mismatch_fused", lambda: (T(4, 8, dtype=f16), T(8, 3)), {}, ValueError,
     r"b\.dtype = torch\.float32 must equal a\.dtype = torch\.float16"),
    ("c_shape_fused", lambda: (T(4, 8), T(8, 3), T(4, 4)), {"beta": 1.0}, ValueError,
     r"c must have the output's shape \[4, 3\] \(M, N\), got c\.shape = \[4, 4\]"),
    ("out_dtype_int_fused", lambda: (T(4, 8), T(8, 3)), {"out_dtype": torch.int8}, ValueError,
     r"out_dtype = torch\.int8 is not supported; expected None or one of"),
    ("c_on_meta_fused", lambda: (T(4, 8), T(8, 3), T(4, 3, device="meta")), {}, RuntimeError,
     r"c must be on a's device cpu, got c\.device = meta"),
]


def _call(args, kwargs, return_y=False):
    return torch.ops.bw.gemm_fused(*args, return_y=return_y, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_real_op_error(case):
    _, make, kwargs, exc, pattern = case
    with pytest.raises(exc, match=pattern) as info:
        _call(make(), kwargs)
    assert str(info.value).startswith("bw.gemm_fused: ")


@pytest.mark.parametrize("case", [c for c in CASES if "meta" not in c[0]],
                         ids=[c[0] for c in CASES if "meta" not in c[0]])
@pytest.mark.parametrize("return_y", [False, True])
def test_fake_raises_the_same(case, return_y):
    _, make, kwargs, exc, pattern = case
    args = make()
    real = first_error(lambda: _call(args, kwargs, return_y))
    with FakeTensorMode() as mode:
        fake_args = [None if t is None else mode.from_tensor(t) for t in args]
        fake = first_error(lambda: _call(fake_args, kwargs, return_y))
    assert real[0] is exc and fake[0] is exc
    assert re.search(pattern, fake[1]), fake[1]
    assert real[1] == fake[1]


def test_wrong_argument_types_are_type_errors():
    with pytest.raises((TypeError, RuntimeError)):
        torch.ops.bw.gemm_fused(T(4, 8), T(8, 3), bias="b")
    with pytest.raises((TypeError, RuntimeError)):
        torch.ops.bw.gemm_fused(T(4, 8), T(8, 3), activation=1)


@pytest.mark.gpu
def test_cpu_cuda_mix():
    a, b = T(4, 8, device="cuda"), T(8, 3, device="cuda")
    with pytest.raises(RuntimeError, match=r"bias must be on a's device cuda:0, got bias\.device = "
                                           r"cpu"):
        torch.ops.bw.gemm_fused(a, b, bias=T(3))
    with pytest.raises(RuntimeError, match=r"x must be on a's device cuda:0, got x\.device = cpu"):
        torch.ops.bw.gemm_fused(a, b, x=T(4, 3))
    with pytest.raises(RuntimeError, match=r"bias must be on a's device cpu, got bias\.device = "
                                           r"cuda:0"):
        torch.ops.bw.gemm_fused(T(4, 8), T(8, 3), bias=T(3, device="cuda"))


def test_linear_errors():
    with pytest.raises(ValueError, match=r"blackwell_ops\.nn\.Linear: activation = 'gelu' is not "
                                         r"supported; " + ACTS):
        bnn.Linear(4, 3, activation="gelu")
    fc = bnn.Linear(4, 3)
    with pytest.raises(ValueError, match=r"blackwell_ops\.nn\.linear: residual must have the "
                                         r"output's shape \[2, 5, 3\], got residual\.shape = "
                                         r"\[10, 3\]"):
        fc(T(2, 5, 4), residual=T(10, 3))
    with pytest.raises(ValueError, match=r"weight must be 2-D \(out_features, in_features\), got "
                                         r"weight\.shape = \[3\]"):
        bnn.linear(T(2, 4), T(3))
    with pytest.raises(ValueError, match=r"x must have at least 1 dimension"):
        bnn.linear(torch.tensor(1.0), T(3, 1))
    with pytest.raises(ValueError, match=r"bw\.gemm_fused: a and b disagree on K"):
        fc(T(2, 5))  # in_features mismatch: the op names the GEMM's operands
