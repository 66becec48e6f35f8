"""Reference, tolerances and input makers shared by the tests."""
from __future__ import annotations

import math

import torch

# torch.nn.functional's activations, by the name bw.gemm_fused takes.
from blackwell_ops.fused import ACTIVATION_FN as ACTIVATION_REF  # noqa: F401

# Relative (Frobenius) error bounds against an fp64 reference, by output dtype: one rounding of
# the output dominates (bf16 keeps 8 bits, fp16 11), fp32 accumulation adds ~1e-6.
TOL = {torch.bfloat16: 1e-2, torch.float16: 2e-3, torch.float32: 1e-5, torch.float64: 1e-12,
       torch.int32: 0.0}
# tf32 inputs (fp32 with a 10-bit mantissa on the tensor cores): the inputs' rounding dominates.
TF32_TOL = 5e-3
# FP8 inputs: the FP8 tensor-core accumulator keeps fewer bits than fp32 between CUTLASS's
# promotions into fp32 registers (and than cuBLAS's), so an fp32 output is off by ~1e-4
# relative (measured on the H200: 1.1e-5 to 1.3e-4 over the test shapes).
FP8_ACC_TOL = 5e-4


def out_tolerance(in_dtype, out_dtype) -> float:
    """The relative error bound of an output of out_dtype computed from in_dtype inputs."""
    tol = TOL[out_dtype]
    if in_dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        tol = max(tol, FP8_ACC_TOL)
    return tol


def kernel_dtype(name: str) -> torch.dtype:
    """The torch dtype of a kernel config's type name (_C.compiled_kernels(): "bfloat16",
    "float8_e4m3fn", "int8", "int32", ...); "tf32" is float32 in memory."""
    return torch.float32 if name == "tf32" else getattr(torch, name)


def kernel_tolerance(kernel: dict) -> float:
    """The relative error bound of a kernel's output against the fp64 reference."""
    tol = out_tolerance(kernel_dtype(kernel["ab"]), kernel_dtype(kernel["cd"]))
    return max(tol, TF32_TOL) if kernel["ab"] == "tf32" else tol


def activation_tolerance(tol: float, activation: str) -> float:
    """tol for a fused output through `activation`: the activation's slope (at most ~1.13 for
    GELU) scales the pre-activation's rounding error, and tanh.approx in CUTLASS's GELU_taylor
    adds ~1e-3 relative to the activation's output."""
    return tol * (2 if activation in ("gelu_tanh", "silu", "gelu_erf") else 1)


def scale_tensor(v, device="cuda"):
    """A per-tensor scale, as the ops take it: a float32 tensor of one element."""
    return torch.tensor([v], dtype=torch.float32, device=device)


def rand_input(shape, dtype, device, gen=None, transposed=False):
    """Fresh random data of any input dtype: N(0,1) rounded to the dtype for floats (float8
    included), uniform integers in [-128, 127] for int8 and [-1000, 1000] for int32;
    transposed as in rand()."""
    if dtype in (torch.int8, torch.int32):
        lo, hi = (-128, 128) if dtype == torch.int8 else (-1000, 1001)
        if transposed:
            shape = (*shape[:-2], shape[-1], shape[-2])
        t = torch.randint(lo, hi, shape, dtype=dtype, device=device, generator=gen)
        return t.mT if transposed else t
    return rand(shape, dtype, device, gen, transposed)


def tolerance(in_dtype, out_dtype, device="cpu"):
    tol = TOL[out_dtype]
    if in_dtype == torch.float32 and device != "cpu":
        tol = max(tol, 1e-4)  # cuBLAS fp32 may split K differently; tf32 stays off by default
    return tol


def scaled_alpha(alpha, scale_a=None, scale_b=None) -> float:
    """alpha * scale_a * scale_b, the factor the kernels apply to the product (absent scales: 1)."""
    for scale in (scale_a, scale_b):
        if scale is not None:
            alpha *= scale.item()
    return alpha


def reference(a, b, c=None, alpha=1.0, beta=0.0):
    """alpha * a @ b + beta * c in fp64 on the CPU; c is not read when beta == 0."""
    ref = alpha * torch.matmul(a.double().cpu(), b.double().cpu())
    if c is not None and beta != 0:
        ref = ref + beta * c.double().cpu()
    return ref


def subnormal_floor(dtype, numel: int) -> float:
    """An absolute floor for the norm-wise error bounds of the fuzz tests: one ulp of dtype's
    subnormal range per element, in norm. Below dtype's smallest normal a rounding's error is
    that fixed spacing, not a fraction of the value, so a bound relative to the terms' sizes
    fails there: 0.0063 x 0.0004 in fp16 is 2.5e-6, a subnormal (spacing 6e-8), rounded
    with an error of 1.4e-8 against a relative bound of 5.6e-9 (CI, session 38)."""
    fi = torch.finfo(dtype)
    return fi.smallest_normal * fi.eps * numel ** 0.5


def rel_err(out, ref) -> float:
    out = out.double().cpu()
    ref = ref.double().cpu()
    num = (out - ref).norm().item()
    den = ref.norm().item()
    if den == 0:
        return num
    return num / den


def assert_close(out, ref, tol, what=""):
    assert torch.isfinite(out.double()).all(), f"{what}: non-finite values in the output"
    err = rel_err(out, ref)
    assert err <= tol, f"{what}: relative error {err:.3e} > {tol:.1e}"


def rand(shape, dtype, device, gen=None, transposed=False):
    """Fresh N(0,1) data; transposed=True returns a view whose last two dims are swapped in
    memory (column-major), with the logical shape asked for."""
    if transposed:
        shape = (*shape[:-2], shape[-1], shape[-2])
    t = torch.randn(shape, dtype=torch.float32, device=device, generator=gen).to(dtype)
    return t.mT if transposed else t


def nan_with_inf(shape, dtype, device):
    """All NaN but one Inf: a tensor an op must not read (c with beta == 0, ...)."""
    t = torch.full(shape, math.nan, dtype=dtype, device=device)
    t.view(-1)[0] = math.inf
    return t


def sample_maker(device, seed=0):
    """r(*shape, dtype=float32, grad=False): fresh N(0,1) tensors from one seeded generator, for
    opcheck sample lists."""
    g = torch.Generator(device=device).manual_seed(seed)

    def r(*shape, dtype=torch.float32, grad=False):
        t = torch.randn(*shape, generator=g, device=device).to(dtype)
        return t.requires_grad_(grad)

    return r


def first_error(fn):
    """(exception type, first line of its message) raised by fn(), or (None, None). C++ errors
    carry a trailing traceback note in debug builds, hence the first line only."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e).splitlines()[0]
    return None, None


def poison_next_alloc(shape, dtype, device):
    """Fill a block the caching allocator will hand to the next allocation of this size with NaN,
    so an output element the op never writes shows up as NaN."""
    if device == "cuda":
        fill = math.nan if dtype.is_floating_point else torch.iinfo(dtype).min
        p = torch.full(shape, fill, dtype=dtype, device=device)
        del p




def fused_reference(a, b, c=None, bias=None, x=None, alpha=1.0, beta=0.0, x_factor=1.0,
                    activation="none"):
    """act(alpha * a @ b + beta * c + bias) + x_factor * x in fp64 on the CPU; c is not read when
    beta == 0, nor x when x_factor == 0."""
    p = reference(a, b, c, alpha, beta)
    if bias is not None:
        p = p + bias.double().cpu()
    d = ACTIVATION_REF[activation](p)
    if x is not None and x_factor != 0:
        d = d + x_factor * x.double().cpu()
    return d


def gpu_arch() -> int:
    """This GPU's compute capability as major * 10 + minor (90 for H100/H200)."""
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


def kernels_for_this_gpu(epilogue: str) -> list[dict]:
    """The compiled kernels of this GPU's arch with the given epilogue ("axpby", "fused" or
    "lean": a fused kernel without X and Y); none without a GPU."""
    from blackwell_ops import _C
    if not torch.cuda.is_available():
        return []
    return [k for k in _C.compiled_kernels()
            if k["arch"] == gpu_arch() and k.get("epilogue", "axpby") == epilogue]


def kernel_params(kernels, why_none: str):
    """pytest parameters for per-kernel tests, named by kernel; with no kernel, one parameter
    skipped with why_none (rather than pytest's bare 'got empty parameter set')."""
    import pytest
    if not kernels:
        return [pytest.param(None, id="no-kernel", marks=pytest.mark.skip(reason=why_none))]
    return [pytest.param(k, id=k["name"]) for k in kernels]


def fp8_linear_call(m, n, k, beta, seed):
    """An FP8 e4m3 -> bf16 call of the public op as a Linear layer makes it (a (m, k) @ W.T with
    W (n, k), scales 0.5 and 1.5, C with `beta` unless beta == 0), on fresh random data: returns
    ((a, b, c, scale_a, scale_b), the fp64 reference, a function that calls the op on them)."""
    from blackwell_ops import gemm_axpby
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = rand_input((m, k), torch.float8_e4m3fn, "cuda", g)
    b = rand_input((k, n), torch.float8_e4m3fn, "cuda", g, transposed=True)
    c = rand_input((m, n), torch.bfloat16, "cuda", g) if beta != 0 else None
    sa, sb = scale_tensor(0.5), scale_tensor(1.5)
    ref = reference(a, b, c, scaled_alpha(1.0, sa, sb), beta)
    call = lambda: gemm_axpby(a, b, c, beta=beta, scale_a=sa, scale_b=sb,  # noqa: E731
                              out_dtype=torch.bfloat16)
    return (a, b, c, sa, sb), ref, call


def fp8_op_twice(m, n, k, beta, seed):
    """fp8_linear_call's call made twice, each into a block poisoned beforehand: returns (the
    planner's path from _C.explain, the fp64 reference, the two outputs)."""
    from blackwell_ops import _C
    (a, b, c, sa, sb), ref, call = fp8_linear_call(m, n, k, beta, seed)
    path = _C.explain(a, b, c, 1.0, beta, torch.bfloat16, sa, sb)
    outs = []
    for _ in range(2):
        poison_next_alloc((m, n), torch.bfloat16, "cuda")
        outs.append(call())
    return path, ref, outs
