"""On an H100/H200: the swapped kernels (KernelConfig::swap_ab: CUTLASS computes D^T = B^T A^T,
so the call's M is the MMA's N; csrc/gemm/cutlass_gemm.cuh) compute the call's row-major D.
Every compiled one runs by name at M from 1 to past its tile (partial and several token tiles),
at a shallow N and K and at a deep shape below a wave whose tail-split plan splits (Llama-3 8B's
down projection), with the scales, with C and without, batched, against the fp64 reference with
D poisoned beforehand, the same bits on a second run; and the op takes them at small M where
the planner says so. Marked gpu: skipped, with the reason, without a GPU."""
import pytest
import torch

from blackwell_ops import _C
from helpers import (assert_close, fp8_op_twice, gpu_arch, kernel_dtype, kernel_params,
                     kernel_tolerance, kernels_for_this_gpu, poison_next_alloc, rand_input,
                     reference, scale_tensor, scaled_alpha)

pytestmark = pytest.mark.gpu


def _swapped():
    if not torch.cuda.is_available() or gpu_arch() != 90:
        return []
    return [k for k in kernels_for_this_gpu("axpby") if k["swap_ab"]]


SWAPPED = kernel_params(_swapped(), "no compiled sm90 swapped kernel (or no H100/H200)")


def _run(kernel, a, b, c, beta, sa, sb):
    cd = kernel_dtype(kernel["cd"])
    poison_next_alloc((*a.shape[:-1], b.shape[-1]), cd, "cuda")
    msg, d = _C.run_kernel(a, b, c, 1.0, beta, cd, kernel["name"], True, None, sa, sb)
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    return d


@pytest.mark.parametrize("kernel", SWAPPED)
@pytest.mark.parametrize("n,k", [(1000, 640), (4096, 14336)], ids=["shallow", "deep"])
@pytest.mark.parametrize("with_c", [False, True], ids=["no_c", "c"])
def test_swapped_kernel_small_m(kernel, n, k, with_c):
    tm = kernel["tile"][0]
    cd = kernel_dtype(kernel["cd"])
    for m in sorted({1, 5, tm - 1, tm, tm + 3, 3 * tm + 1}):
        g = torch.Generator(device="cuda").manual_seed(m * 7 + n + k)
        a = rand_input((m, k), kernel_dtype(kernel["ab"]), "cuda", g)
        b = rand_input((k, n), kernel_dtype(kernel["b"]), "cuda", g, transposed=True)
        c = rand_input((m, n), cd, "cuda", g) if with_c else None
        beta = -0.75 if with_c else 0.0
        sa, sb = scale_tensor(0.5), scale_tensor(1.5)
        ref = reference(a, b, c, scaled_alpha(1.0, sa, sb), beta)
        what = f"{kernel['name']} {m}x{n}x{k} c={with_c}"
        d1 = _run(kernel, a, b, c, beta, sa, sb)
        assert d1.shape == (m, n) and d1.dtype == cd, what
        assert_close(d1, ref, kernel_tolerance(kernel), what)
        d2 = _run(kernel, a, b, c, beta, sa, sb)
        assert torch.equal(d1, d2), what + ": not the same bits on a second run"


@pytest.mark.parametrize("kernel", SWAPPED)
def test_swapped_kernel_batched(kernel):
    # L = 2 with a batch of a and c, and b shared by both batches (batch stride 0).
    tm = kernel["tile"][0]
    m, n, k = tm + 3, 520, 384
    cd = kernel_dtype(kernel["cd"])
    g = torch.Generator(device="cuda").manual_seed(tm)
    a = rand_input((2, m, k), kernel_dtype(kernel["ab"]), "cuda", g)
    b = rand_input((k, n), kernel_dtype(kernel["b"]), "cuda", g, transposed=True)
    c = rand_input((2, m, n), cd, "cuda", g)
    d = _run(kernel, a, b, c, 0.25, None, None)
    assert d.shape == (2, m, n), d.shape
    assert_close(d, reference(a, b, c, 1.0, 0.25), kernel_tolerance(kernel),
                 f"{kernel['name']} batched {m}x{n}x{k}")


_SWAPPED_E4M3 = {k["name"]: k for k in _swapped() if k["name"].startswith("sm90_e4m3_bf16_ak_bk_")}


@pytest.mark.skipif(not _SWAPPED_E4M3, reason="no compiled sm90 swapped e4m3 -> bf16 kernel "
                    "(or no H100/H200)")
@pytest.mark.parametrize("m", [1, 16, 24, 64])
@pytest.mark.parametrize("n,k", [(14336, 4096), (4096, 14336)], ids=["up", "down"])
def test_op_takes_a_swapped_kernel_at_decode(m, n, k):
    """The public op at decode sizes of Llama-3 8B's MLP: the planner's kernel (a swapped one
    where its rule takes one, csrc/gemm/heuristics.cpp), with the scales and C, against the fp64
    reference, the same bits on a second call."""
    path, ref, outs = fp8_op_twice(m, n, k, 0.5, seed=m + n)
    assert path.startswith("kernel: ") and "_swapab_" in path, path
    assert_close(outs[0], ref, kernel_tolerance(_SWAPPED_E4M3[path[len("kernel: "):]]),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"


@pytest.mark.skipif(not _SWAPPED_E4M3, reason="no compiled sm90 swapped e4m3 -> bf16 kernel "
                    "(or no H100/H200)")
@pytest.mark.parametrize("m,n,k", [(80, 14336, 4096), (128, 14336, 4096), (96, 4096, 14336)])
def test_op_takes_a_wide_swapped_kernel(m, n, k):
    """At 65-128 rows the planner takes the 96- or 128-token swapped tile where its tiles fill
    3/4 of a wave (Llama-3 8B's up projection) or the 96-token one at K >= 8192 (down), when it
    is compiled: against the fp64 reference, the same bits on a second call."""
    want = "96x128x128" if m <= 96 else "128x128x128"
    if not any(name[len("sm90_e4m3_bf16_ak_bk_"):].startswith(want) for name in _SWAPPED_E4M3):
        pytest.skip(f"no swapped {want} e4m3 -> bf16 kernel compiled here")
    path, ref, outs = fp8_op_twice(m, n, k, 0.5, seed=m + n)
    assert path.startswith(f"kernel: sm90_e4m3_bf16_ak_bk_{want}") and "_swapab_" in path, path
    assert_close(outs[0], ref, kernel_tolerance(_SWAPPED_E4M3[path[len("kernel: "):]]),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"
