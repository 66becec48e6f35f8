"""Host time per call of each path, on tiny problems (the GPU work is a few microseconds, so a
call's wall time is the host's): the kernel path (aligned), the padded path (BW_PAD=1), the
composite after the cost rule declined padding, the composite with BW_PAD=0 (no padding planned),
torch.addmm; and _C.explain alone (validation and planning, no launch). 2000 calls queued, one
synchronize at the end, 3 repeats, the best kept."""
import os
import time
import warnings

import torch
from blackwell_ops import _C, gemm_axpby

warnings.simplefilter("ignore")
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def r(*shape):
    return torch.randn(*shape, device=dev, generator=g).to(torch.bfloat16)


def host_us(f, n=2000):
    best = float("inf")
    for _ in range(3):
        for _ in range(20):
            f()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            f()
        el = time.perf_counter() - t
        torch.cuda.synchronize()
        best = min(best, el / n * 1e6)
    return best


a, w, c = r(64, 64), r(64, 64), r(64, 64)
au, wu, cu = r(64, 64), r(65, 64), r(64, 65)
cases = {
    "kernel path, 64x64x64 +C": ("", lambda: gemm_axpby(a, w.t(), c, beta=1.0),
                                 lambda: _C.explain(a, w.t(), c, 1.0, 1.0, None)),
    "padded (BW_PAD=1), 64x65x64 +C": ("1", lambda: gemm_axpby(au, wu.t(), cu, beta=1.0),
                                       lambda: _C.explain(au, wu.t(), cu, 1.0, 1.0, None)),
    "composite, rule declined, 64x65x64 +C": ("", lambda: gemm_axpby(au, wu.t(), cu, beta=1.0),
                                              lambda: _C.explain(au, wu.t(), cu, 1.0, 1.0, None)),
    "composite (BW_PAD=0), 64x65x64 +C": ("0", lambda: gemm_axpby(au, wu.t(), cu, beta=1.0),
                                          lambda: _C.explain(au, wu.t(), cu, 1.0, 1.0, None)),
    "torch.addmm, 64x65x64": ("", lambda: torch.addmm(cu, au, wu.t()), None),
}
for name, (mode, op, explain) in cases.items():
    if mode:
        os.environ["BW_PAD"] = mode
    else:
        os.environ.pop("BW_PAD", None)
    path = explain()[:70] if explain else ""
    ex = f"{host_us(explain):6.1f}" if explain else "     -"
    print(f"{name:40s} op {host_us(op):6.1f} us   explain {ex} us   {path}", flush=True)
