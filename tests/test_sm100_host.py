"""The host path of the sm_100a kernels, exercised on any CUDA GPU without launching them:
can_implement, workspace, and the kernel Params with their TMA descriptors (a dry run). On a
Blackwell GPU the same kernels also run in tests/test_gpu.py."""
import pytest
import torch

from blackwell_ops import _C
from helpers import kernel_dtype, kernel_params, rand, rand_input

pytestmark = pytest.mark.gpu


def _sm100_kernels(epilogue="axpby"):
    """The compiled sm_100a kernels of one epilogue: run_kernel dry-runs the gemm_axpby ones,
    run_kernel_fused the fused ones (their bias, X and Y TMA descriptors too)."""
    return [k for k in _C.compiled_kernels() if k["arch"] == 100 and k["epilogue"] == epilogue]


SM100_KERNELS = kernel_params(_sm100_kernels(), "this build has no sm_100a kernels")
SM100_FUSED = kernel_params(_sm100_kernels("fused"), "this build has no sm_100a fused kernels")


def _operands(kernel, mnkl):
    """(a, b, lead dims, D's dtype) for a kernel's types and layout on problem mnkl."""
    m, n, k, l = mnkl
    lead = (l,) if l > 1 else ()
    ta, tb, cd = (kernel_dtype(kernel[key]) for key in ("ab", "b", "cd"))
    a = rand_input((*lead, m, k), ta, "cuda", transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), tb, "cuda", transposed=kernel["b_major"] == "K")
    return a, b, lead, cd


def test_build_has_sm100_kernels():
    if not _sm100_kernels():
        pytest.skip("this build has no sm_100a kernels (BW_ARCHS lacks 100a)")


@pytest.mark.parametrize("kernel", SM100_KERNELS)
@pytest.mark.parametrize("mnkl", [(256, 256, 128, 1), (128, 8192, 8192, 1), (4096, 4096, 4096, 1),
                                  (1000, 1016, 1032, 1), (512, 384, 256, 4)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("with_c", [True, False])
def test_sm100_dry_run(kernel, mnkl, with_c):
    a, b, lead, cd = _operands(kernel, mnkl)
    m, n = mnkl[:2]
    c = rand_input((*lead, m, n), cd, "cuda") if with_c else None
    alpha = 2.0 if cd == torch.int32 else 1.5
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = kernel["ab"] == "tf32"  # fp32 inputs read as tf32
    try:
        result, _ = _C.run_kernel(a, b, c, alpha, 1.0 if with_c else 0.0, cd, kernel["name"],
                                  False)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
    if result.startswith("precondition") and "not a multiple" in result:
        pytest.skip(result)  # this layout's unit-stride extent is not 16-byte aligned
    assert result.startswith("ok"), result


def test_dry_run_reports_a_mismatch():
    ks = _sm100_kernels()
    if not ks:
        pytest.skip("no sm_100a kernels")
    a = torch.randn(64, 64, device="cuda", dtype=torch.float32)
    msg, _ = _C.run_kernel(a, a, None, 1.0, 0.0, None, ks[0]["name"], False)
    assert msg.startswith("precondition"), msg


@pytest.mark.parametrize("kernel", SM100_FUSED)
@pytest.mark.parametrize("mnkl", [(256, 256, 128, 1), (4096, 4096, 4096, 1), (1000, 1016, 1032, 1),
                                  (512, 384, 256, 4)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("opts", ["all", "bare", "bias_y"])
def test_sm100_fused_dry_run(kernel, mnkl, opts):
    a, b, lead, cd = _operands(kernel, mnkl)
    m, n = mnkl[:2]
    full = opts == "all"
    c = rand((*lead, m, n), cd, "cuda") if full else None
    x = rand((*lead, m, n), cd, "cuda") if full else None
    bias = rand((n,), cd, "cuda") if opts != "bare" else None
    scales = (torch.tensor(0.5, device="cuda"), torch.tensor(2.0, device="cuda")) \
        if kernel["ab"].startswith("float8") else (None, None)
    msg, out = _C.run_kernel_fused(a, b, c, bias, x, 1.5, 0.5 if full else 0.0, 2.0 if full else 1.0,
                                   kernel["activation"], opts != "bare", cd, kernel["name"], False,
                                   None, *scales)
    if msg.startswith("precondition") and "not a multiple" in msg:
        pytest.skip(msg)  # this layout's unit-stride extent is not 16-byte aligned
    assert msg.startswith("ok"), msg
    assert out is None  # a dry run returns no tensors


def test_run_kernel_names_the_right_entry_point():
    """run_kernel refuses a fused kernel and run_kernel_fused an axpby kernel (or another
    activation's kernel), each saying why, without running anything."""
    axpby, fused = _sm100_kernels(), _sm100_kernels("fused")
    if not axpby or not fused:
        pytest.skip("needs sm_100a axpby and fused kernels in this build")
    f = next((k for k in fused if k["ab"] == "bfloat16"), None)
    if f is None:
        pytest.skip("no sm_100a bf16 fused kernel in this build")
    dt = kernel_dtype(f["ab"])
    a = rand((256, 128), dt, "cuda", transposed=f["a_major"] == "MN")
    b = rand((128, 256), dt, "cuda", transposed=f["b_major"] == "K")
    msg, _ = _C.run_kernel(a, b, None, 1.0, 0.0, dt, f["name"], False)
    assert msg.startswith("mismatch: a fused-epilogue kernel"), msg
    other = "relu" if f["activation"] != "relu" else "silu"
    msg, _ = _C.run_kernel_fused(a, b, None, None, None, 1.0, 0.0, 1.0, other, False, dt, f["name"],
                                 False)
    assert msg.startswith(f"mismatch: the kernel's activation is {f['activation']}"), msg
    ax = next((k for k in axpby if k["ab"] == "bfloat16" and k["b_major"] == f["b_major"]
               and k["a_major"] == f["a_major"] and k["cd"] == f["cd"]), None)
    if ax is None:
        pytest.skip(f"no sm_100a bf16 axpby kernel in {f['name']}'s layout in this build")
    msg, _ = _C.run_kernel_fused(a, b, None, None, None, 1.0, 0.0, 1.0, "none", False, dt,
                                 ax["name"], False)
    assert msg.startswith("mismatch: a gemm_axpby kernel"), msg
