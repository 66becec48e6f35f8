"""One FP8 e4m3 -> bf16 product of M N K run 3 times (ncu profiles the 2nd launch): torch._scaled_mm,
or our 128x256 plain kernel through run_kernel with a tile order. argv: M N K (scaled_mm | raster swizzle)"""
import sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
dev = "cuda"
M, N, K = (int(x) for x in sys.argv[1:4])
a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
one = torch.ones((), device=dev)
if sys.argv[4] == "scaled_mm":
    fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)  # noqa: E731
else:
    sched = dict(raster=sys.argv[4], swizzle=int(sys.argv[5]))
    name = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby"
    fn = lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, sched, one, one)[1]  # noqa: E731
for _ in range(3):
    assert fn() is not None
torch.cuda.synchronize()
