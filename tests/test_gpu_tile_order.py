"""On an H100/H200: the sm90 kernels' band tile order (csrc/gemm/tile_order.hpp through
csrc/gemm/sm90/tile_scheduler.hpp) computes every output tile exactly once where the bands do
not divide the tile grid. Every compiled sm90 persistent axpby and scale kernel, of every input
type, runs with swizzle 8 along both raster orders on a grid of 11 x 5 clusters (so each order has
a last, partial band), batched and not, against the fp64 reference, with D poisoned beforehand; the
fused kernels (full and lean) likewise, unbatched.
Marked gpu: skipped, with the reason, without a GPU."""
import pytest
import torch

from blackwell_ops import _C
from helpers import (activation_tolerance, assert_close, fused_reference, gpu_arch, kernel_dtype,
                     kernel_params, kernel_tolerance, kernels_for_this_gpu, poison_next_alloc,
                     rand_input, reference)

pytestmark = pytest.mark.gpu


def _sm90_persistent(*epilogues):
    if not torch.cuda.is_available() or gpu_arch() != 90:
        return []
    return [k for e in epilogues for k in kernels_for_this_gpu(e) if k["scheduler"] == "persistent"]


KERNELS = kernel_params(_sm90_persistent("axpby", "scale"),
                        "no compiled sm90 persistent axpby kernel for this GPU (or no H100/H200)")
FUSED = kernel_params(_sm90_persistent("fused", "lean"),
                      "no compiled sm90 persistent fused kernel for this GPU (or no H100/H200)")


def _operands(kernel, lead=()):
    """(a, b, generator) on a grid of 11 clusters along M and 5 along N, the last tile of each
    partial, laid out as the kernel reads them; 16-element steps keep every layout's 16-byte
    alignment. Bands of 8 (along_n: rows of M) or 4 (along_m: 5 columns of N narrow the band)
    leave 3 and 1 rows in the last band."""
    (tm, tn, tk), (cm, cn) = kernel["tile"], kernel["cluster"]
    m, n, k = tm * cm * 11 - 16, tn * cn * 5 - 16, 3 * tk
    g = torch.Generator(device="cuda").manual_seed(m + n + len(lead))
    a = rand_input((*lead, m, k), kernel_dtype(kernel["ab"]), "cuda", g,
                   transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), kernel_dtype(kernel["b"]), "cuda", g,
                   transposed=kernel["b_major"] == "K")
    return a, b, g


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
@pytest.mark.parametrize("batch", [None, 2])
def test_band_order_computes_every_tile_once(kernel, raster, batch, monkeypatch):
    # tf32 kernels take float32 inputs only where torch allows TF32 for matmuls.
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", True)
    lead = () if batch is None else (batch,)
    a, b, g = _operands(kernel, lead)
    (m, k), n, cd = a.shape[-2:], b.shape[-1], kernel_dtype(kernel["cd"])
    integer, no_c = cd == torch.int32, kernel["epilogue"] == "scale"
    c = None if integer or no_c else rand_input((*lead, m, n), cd, "cuda", g)
    alpha, beta = (1.0, 0.0) if integer or no_c else (0.75, -1.25)
    poison_next_alloc((*lead, m, n), cd, "cuda")
    msg, d = _C.run_kernel(a, b, c, alpha, beta, cd, kernel["name"], True,
                           {"swizzle": 8, "raster": raster})
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    assert d.shape == (*lead, m, n) and d.dtype == cd
    assert_close(d, reference(a, b, c, alpha, beta), kernel_tolerance(kernel),
                 f"{kernel['name']} {m}x{n}x{k} batch={batch} {raster}")


@pytest.mark.parametrize("kernel", FUSED)
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
def test_band_order_fused_kernels(kernel, raster):
    # The fused epilogues (full: with x and Y; lean: without) on the same grid.
    a, b, g = _operands(kernel)
    (m, k), n, cd = a.shape, b.shape[-1], kernel_dtype(kernel["cd"])
    bias = rand_input((n,), cd, "cuda", g)
    full = kernel["epilogue"] == "fused"
    x = rand_input((m, n), cd, "cuda", g) if full else None
    alpha, x_factor, act = 0.75, (1.5 if full else 0.0), kernel["activation"]
    poison_next_alloc((m, n), cd, "cuda")
    msg, out = _C.run_kernel_fused(a, b, None, bias, x, alpha, 0.0, x_factor, act, full, cd,
                                   kernel["name"], True, {"swizzle": 8, "raster": raster})
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    d, y = out
    what = f"{kernel['name']} {m}x{n}x{k} {raster}"
    tol = activation_tolerance(kernel_tolerance(kernel), act)
    assert_close(d, fused_reference(a, b, None, bias, x, alpha, 0.0, x_factor, act), tol, what + " D")
    if full:
        assert_close(y, reference(a, b), kernel_tolerance(kernel), what + " Y")
