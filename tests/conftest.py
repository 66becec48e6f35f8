import pytest
import torch

import blackwell_ops  # noqa: F401  (registers torch.ops.bw.*)

HAS_CUDA = torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if HAS_CUDA:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU: torch.cuda.is_available() is False here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def tf32_on():
    """fp32 matmuls may run as TF32 for the test (torch.backends.cuda.matmul.allow_tf32), as the
    tf32 kernels require; restored afterwards."""
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    yield
    torch.backends.cuda.matmul.allow_tf32 = old


@pytest.fixture
def fresh_warnings():
    """The ops' one-time warnings show again, as in a fresh process: a test that checks one is
    shown once passes whichever test showed it first."""
    blackwell_ops._C._forget_warnings()
    yield


def devices():
    """cpu always; cuda as a gpu-marked parameter (skipped, visibly, without a GPU)."""
    return ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
