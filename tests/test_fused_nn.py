"""blackwell_ops.nn.Linear / linear: a drop-in for torch.nn.Linear with a fused activation and
residual; an MLP block trained with it matches the same block built from torch.nn, eager and
compiled."""
import pytest
import torch

import blackwell_ops
import blackwell_ops.nn as bnn
from blackwell_ops.fused import ACTIVATIONS
from conftest import devices
from helpers import ACTIVATION_REF, assert_close, rand, tolerance


def test_drop_in_for_torch_linear():
    torch.manual_seed(0)
    ours = bnn.Linear(12, 7)
    torch.manual_seed(0)
    ref = torch.nn.Linear(12, 7)
    assert isinstance(ours, torch.nn.Linear)
    assert [n for n, _ in ours.named_parameters()] == ["weight", "bias"]
    assert torch.equal(ours.weight, ref.weight) and torch.equal(ours.bias, ref.bias)  # same init
    assert ours.weight.shape == (7, 12)
    assert bnn.Linear(12, 7, bias=False).bias is None
    assert "activation='silu'" in repr(bnn.Linear(3, 2, activation="silu"))
    loaded = bnn.Linear(12, 7, activation="relu")
    loaded.load_state_dict(ref.state_dict())  # torch.nn.Linear's state_dict loads as is
    assert torch.equal(loaded.weight, ref.weight)
    ref.load_state_dict(ours.state_dict())    # and back
    x = torch.randn(5, 12)
    assert_close(ours(x), ref(x).double(), tolerance(torch.float32, torch.float32))
    m = bnn.Linear(4, 3, dtype=torch.float64)
    assert m.weight.dtype == m.bias.dtype == torch.float64


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("lead", [(), (6,), (2, 3), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_linear_matches_torch(device, activation, lead, dtype):
    g = torch.Generator(device=device).manual_seed(len(lead) * 10 + ACTIVATIONS.index(activation))
    x = rand((*lead, 16), dtype, device, g) if lead else rand((1, 16), dtype, device, g)[0]
    weight, bias = rand((8, 16), dtype, device, g), rand((8,), dtype, device, g)
    residual = rand((*lead, 8), dtype, device, g) if lead else rand((1, 8), dtype, device, g)[0]
    out = bnn.linear(x, weight, bias, activation, residual, residual_factor=-0.5)
    assert out.shape == (*lead, 8) and out.dtype == dtype
    p = torch.nn.functional.linear(x.double(), weight.double(), bias.double()).cpu()
    ref = ACTIVATION_REF[activation](p) - 0.5 * residual.double().cpu()
    assert_close(out, ref, tolerance(dtype, dtype, device))
    plain = bnn.linear(x, weight)  # no bias, no activation, no residual: F.linear
    assert_close(plain, torch.nn.functional.linear(x.double(), weight.double()).cpu(),
                 tolerance(dtype, dtype, device))


class Block(torch.nn.Module):
    """x + fc2(gelu(fc1(x))), from either library."""

    def __init__(self, dim, hidden, fused):
        super().__init__()
        if fused:
            self.fc1 = bnn.Linear(dim, hidden, activation="gelu_erf")
            self.fc2 = bnn.Linear(hidden, dim)
        else:
            self.fc1, self.fc2 = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, dim)
        self.fused = fused

    def forward(self, x):
        if self.fused:
            return self.fc2(self.fc1(x), residual=x)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def _train(block, batches, compile_step):
    opt = torch.optim.SGD(block.parameters(), lr=0.05)

    def loss_fn(x, target):
        return torch.nn.functional.mse_loss(block(x), target)

    loss_fn = torch.compile(loss_fn, fullgraph=True) if compile_step else loss_fn
    losses = []
    for x, target in batches:
        opt.zero_grad()
        loss = loss_fn(x, target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compile"])
def test_mlp_block_trains_like_torch_nn(compiled):
    torch._dynamo.reset()
    torch.manual_seed(0)
    dim, hidden = 16, 64
    ref = Block(dim, hidden, fused=False)
    ours = Block(dim, hidden, fused=True)
    ours.load_state_dict(ref.state_dict())
    batches = [(torch.randn(4, 8, dim), torch.randn(4, 8, dim)) for _ in range(5)]
    ref_losses = _train(ref, batches, compile_step=False)
    our_losses = _train(ours, batches, compile_step=compiled)
    assert ref_losses[-1] < ref_losses[0]  # it learns
    for got, want in zip(our_losses, ref_losses):
        assert abs(got - want) <= 1e-5 * abs(want), (our_losses, ref_losses)
    for (name, p), (_, q) in zip(ours.named_parameters(), ref.named_parameters()):
        assert_close(p.detach(), q.detach().double(), 1e-5, name)


def test_linear_is_exported():
    assert blackwell_ops.nn.Linear is bnn.Linear
    assert blackwell_ops.gemm_fused is blackwell_ops.fused.gemm_fused
