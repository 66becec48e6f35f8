"""gemm_axpby computes alpha * a @ b + beta * c exactly as DESIGN.md specifies, on every device."""
import math

import pytest
import torch

from blackwell_ops import gemm_axpby
from conftest import devices
from helpers import assert_close, nan_with_inf, poison_next_alloc, rand, reference, tolerance

SHAPES = [  # (M, N, K): tails, ones, primes, non-multiples of any tile
    (1, 1, 1), (1, 8, 8), (8, 1, 8), (8, 8, 1), (3, 5, 7), (17, 33, 65), (64, 64, 64),
    (127, 129, 72), (128, 256, 64), (200, 96, 300),
]
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mnk", SHAPES)
def test_2d(device, dtype, mnk):
    m, n, k = mnk
    g = torch.Generator(device=device).manual_seed(m * 7919 + n * 31 + k)
    a, b = rand((m, k), dtype, device, g), rand((k, n), dtype, device, g)
    c = rand((m, n), dtype, device, g)
    for alpha, beta, cc in [(1.0, 0.0, None), (1.0, 1.0, c), (-0.5, 2.0, c), (2.0, 0.0, c)]:
        poison_next_alloc((m, n), dtype, device)
        d = gemm_axpby(a, b, cc, alpha=alpha, beta=beta)
        assert d.shape == (m, n) and d.dtype == dtype and d.device.type == device
        assert d.is_contiguous()
        assert_close(d, reference(a, b, cc, alpha, beta), tolerance(dtype, dtype, device),
                     f"{mnk} alpha={alpha} beta={beta} c={'yes' if cc is not None else 'no'}")


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("a_t,b_t", [(False, False), (False, True), (True, False), (True, True)])
def test_transposed_views(device, a_t, b_t):
    g = torch.Generator(device=device).manual_seed(1)
    m, n, k = 48, 40, 56
    a = rand((m, k), torch.bfloat16, device, g, transposed=a_t)
    b = rand((k, n), torch.bfloat16, device, g, transposed=b_t)
    c = rand((m, n), torch.bfloat16, device, g)
    d = gemm_axpby(a, b, c, alpha=0.75, beta=1.25)
    assert_close(d, reference(a, b, c, 0.75, 1.25), tolerance(torch.bfloat16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("dims", [(3, 3), (3, 2), (2, 3)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_batched_and_broadcast(device, dims, dtype):
    g = torch.Generator(device=device).manual_seed(sum(dims))
    l, m, n, k = 3, 24, 40, 32
    a = rand((l, m, k) if dims[0] == 3 else (m, k), dtype, device, g)
    b = rand((l, k, n) if dims[1] == 3 else (k, n), dtype, device, g)
    c = rand((l, m, n), dtype, device, g)
    d = gemm_axpby(a, b, c, alpha=1.5, beta=-1.0)
    assert d.shape == (l, m, n)
    assert_close(d, reference(a, b, c, 1.5, -1.0), tolerance(dtype, dtype, device))


@pytest.mark.parametrize("device", devices())
def test_out_dtype_defaults_and_overrides(device):
    g = torch.Generator(device=device).manual_seed(2)
    a, b = rand((16, 24), torch.float16, device, g), rand((24, 8), torch.float16, device, g)
    c32 = rand((16, 8), torch.float32, device, g)
    assert gemm_axpby(a, b).dtype == torch.float16                      # a's dtype
    d = gemm_axpby(a, b, c32, beta=1.0)                                 # c's dtype
    assert d.dtype == torch.float32
    assert_close(d, reference(a, b, c32, 1.0, 1.0), tolerance(torch.float16, torch.float32))
    d = gemm_axpby(a, b, out_dtype=torch.float32)                       # explicit
    assert d.dtype == torch.float32
    assert_close(d, reference(a, b), tolerance(torch.float16, torch.float32))
    d = gemm_axpby(a, b, c32, beta=0.5, out_dtype=torch.bfloat16)      # explicit beats c
    assert d.dtype == torch.bfloat16
    assert_close(d, reference(a, b, c32, 1.0, 0.5), tolerance(torch.float16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
def test_beta_zero_never_reads_c(device):
    g = torch.Generator(device=device).manual_seed(3)
    a, b = rand((32, 16), torch.bfloat16, device, g), rand((16, 24), torch.bfloat16, device, g)
    c = nan_with_inf((32, 24), torch.bfloat16, device)
    d = gemm_axpby(a, b, c, alpha=2.0, beta=0.0)
    assert_close(d, reference(a, b, None, 2.0), tolerance(torch.bfloat16, torch.bfloat16))


@pytest.mark.parametrize("device", devices())
def test_nan_inf_in_inputs_propagate(device):
    g = torch.Generator(device=device).manual_seed(4)
    a, b = rand((16, 32), torch.float16, device, g), rand((32, 8), torch.float16, device, g)
    a[3, 5] = math.nan
    b[7, 2] = math.inf
    c = rand((16, 8), torch.float16, device, g)
    c[10, 1] = math.inf
    d = gemm_axpby(a, b, c, beta=1.0).float().cpu()
    e = torch.addmm(c.float(), a.float(), b.float()).cpu()  # torch's own propagation
    assert torch.equal(torch.isnan(d), torch.isnan(e))
    assert torch.equal(torch.isinf(d), torch.isinf(e))


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("shape", [(0, 8, 8), (8, 0, 8), (8, 8, 0), (0, 0, 0)])
def test_degenerate_sizes(device, shape):
    m, n, k = shape
    g = torch.Generator(device=device).manual_seed(5)
    a, b = rand((m, k), torch.bfloat16, device, g), rand((k, n), torch.bfloat16, device, g)
    c = rand((m, n), torch.bfloat16, device, g)
    d = gemm_axpby(a, b, c, alpha=3.0, beta=0.5)
    assert d.shape == (m, n) and d.dtype == torch.bfloat16
    assert_close(d, reference(a, b, c, 3.0, 0.5), 1e-2)            # K == 0: beta * c
    d = gemm_axpby(a, b)
    assert d.shape == (m, n) and (d == 0).all()


@pytest.mark.parametrize("device", devices())
def test_zero_batch(device):
    a = torch.randn(0, 4, 8, device=device)
    b = torch.randn(0, 8, 2, device=device)
    assert gemm_axpby(a, b).shape == (0, 4, 2)


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16])
def test_fp32_accumulation(device, out_dtype):
    # 4096 ones sum to 4096 (exact in fp16 and fp32); an fp16 accumulator stalls at 2048.
    k = 4096
    a = torch.ones(8, k, dtype=torch.float16, device=device)
    b = torch.ones(k, 16, dtype=torch.float16, device=device)
    d = gemm_axpby(a, b, out_dtype=out_dtype)
    assert (d.cpu() == 4096.0).all()
