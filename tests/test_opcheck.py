"""torch.library.opcheck (schema, fake tensor, autograd registration, aot dispatch) on samples."""
import pytest
import torch

from conftest import devices
from helpers import sample_maker


def samples(device):
    r = sample_maker(device)
    out = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        out += [
            ((r(16, 8, dtype=dtype), r(8, 24, dtype=dtype)), {}),
            ((r(16, 8, dtype=dtype), r(8, 24, dtype=dtype), r(16, 24, dtype=dtype)),
             {"alpha": 0.5, "beta": 2.0}),
            ((r(3, 16, 8, dtype=dtype), r(8, 24, dtype=dtype)), {"alpha": -1.0}),
            ((r(16, 8, dtype=dtype), r(3, 8, 24, dtype=dtype), r(3, 16, 24, dtype=torch.float32)),
             {"beta": 1.0}),
            ((r(16, 8, dtype=dtype), r(8, 24, dtype=dtype)), {"out_dtype": torch.float32}),
        ]
    out += [
        ((r(16, 8, grad=True), r(8, 24, grad=True), r(16, 24, grad=True)),
         {"alpha": 1.5, "beta": 0.5}),
        ((r(2, 16, 8, grad=True), r(8, 24, grad=True)), {}),
        ((r(16, 8, dtype=torch.float64, grad=True), r(2, 8, 24, dtype=torch.float64, grad=True)),
         {}),
        ((r(16, 8, grad=True), r(8, 24).mT.contiguous().mT.requires_grad_()), {}),
        ((r(16, 0, grad=True), r(0, 24, grad=True), r(16, 24, grad=True)), {"beta": 1.0}),
    ]
    return out


@pytest.mark.parametrize("device", devices())
def test_opcheck(device):
    for args, kwargs in samples(device):
        torch.library.opcheck(torch.ops.bw.gemm_axpby.default, args, kwargs)
