"""The host path of the sm_100a kernels, exercised on any CUDA GPU without launching them:
can_implement, workspace, and the kernel Params with their TMA descriptors (a dry run). On a
Blackwell GPU the same kernels also run in tests/test_gpu.py."""
import pytest
import torch

from blackwell_ops import _C
from helpers import kernel_dtype, kernel_params, rand, rand_input

pytestmark = pytest.mark.gpu


def _sm100_kernels():
    """The compiled sm_100a gemm_axpby kernels: run_kernel dry-runs those only. The fused ones
    share their mainloop and scheduler with these but not the epilogue's arguments (bias, X, Y),
    whose host path is not exercised here."""
    return [k for k in _C.compiled_kernels() if k["arch"] == 100 and k["epilogue"] == "axpby"]


SM100_KERNELS = kernel_params(_sm100_kernels(), "this build has no sm_100a kernels")


def test_build_has_sm100_kernels():
    if not _sm100_kernels():
        pytest.skip("this build has no sm_100a kernels (BW_ARCHS lacks 100a)")


@pytest.mark.parametrize("kernel", SM100_KERNELS)
@pytest.mark.parametrize("mnkl", [(256, 256, 128, 1), (128, 8192, 8192, 1), (4096, 4096, 4096, 1),
                                  (1000, 1016, 1032, 1), (512, 384, 256, 4)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("with_c", [True, False])
def test_sm100_dry_run(kernel, mnkl, with_c):
    m, n, k, l = mnkl
    lead = (l,) if l > 1 else ()
    ta, tb, cd = (kernel_dtype(kernel[key]) for key in ("ab", "b", "cd"))
    a = rand_input((*lead, m, k), ta, "cuda", transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), tb, "cuda", transposed=kernel["b_major"] == "K")
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
