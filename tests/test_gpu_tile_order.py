"""On an H100/H200: the sm90 kernels' band tile order (csrc/gemm/tile_order.hpp through
csrc/gemm/sm90/tile_scheduler.hpp) computes every output tile exactly once where the bands do
not divide the tile grid. Every compiled sm90 persistent axpby kernel, of every input type, runs
with swizzle 8 along both raster orders on a grid of 11 x 5 clusters (so each order has a last,
partial band), batched and not, against the fp64 reference, with D poisoned beforehand.
Marked gpu: skipped, with the reason, without a GPU."""
import pytest
import torch

from blackwell_ops import _C
from helpers import (assert_close, gpu_arch, kernel_dtype, kernel_params, kernel_tolerance,
                     kernels_for_this_gpu, poison_next_alloc, rand_input, reference)

pytestmark = pytest.mark.gpu


def _sm90_persistent():
    if not torch.cuda.is_available() or gpu_arch() != 90:
        return []
    return [k for k in kernels_for_this_gpu("axpby") if k["scheduler"] == "persistent"]


KERNELS = kernel_params(_sm90_persistent(),
                        "no compiled sm90 persistent axpby kernel for this GPU (or no H100/H200)")


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
@pytest.mark.parametrize("batch", [None, 2])
def test_band_order_computes_every_tile_once(kernel, raster, batch, monkeypatch):
    # tf32 kernels take float32 inputs only where torch allows TF32 for matmuls.
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", True)
    (tm, tn, tk), (cm, cn) = kernel["tile"], kernel["cluster"]
    # 11 clusters along M and 5 along N, the last tile of each partial; 16-element steps keep
    # every layout's 16-byte alignment. Bands of 8 (along_n: rows of M) or 4 (along_m: 5
    # columns of N narrow the band) leave 3 and 1 rows in the last band.
    m, n, k = tm * cm * 11 - 16, tn * cn * 5 - 16, 3 * tk
    ab, bt, cd = (kernel_dtype(kernel[x]) for x in ("ab", "b", "cd"))
    g = torch.Generator(device="cuda").manual_seed(m + n + (batch or 0))
    lead = () if batch is None else (batch,)
    a = rand_input((*lead, m, k), ab, "cuda", g, transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), bt, "cuda", g, transposed=kernel["b_major"] == "K")
    integer = cd == torch.int32
    c = None if integer else rand_input((*lead, m, n), cd, "cuda", g)
    alpha, beta = (1.0, 0.0) if integer else (0.75, -1.25)
    poison_next_alloc((*lead, m, n), cd, "cuda")
    msg, d = _C.run_kernel(a, b, c, alpha, beta, cd, kernel["name"], True,
                           {"swizzle": 8, "raster": raster})
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    assert d.shape == (*lead, m, n) and d.dtype == cd
    assert_close(d, reference(a, b, c, alpha, beta), kernel_tolerance(kernel),
                 f"{kernel['name']} {m}x{n}x{k} batch={batch} {raster}")
