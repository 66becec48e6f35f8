"""8192x8192xK e4m3 -> bf16, one provider (ncu profiles the 2nd launch). argv: provider K
provider: scaled_mm, or swizzle number for our 128x128 kernel through run_kernel."""
import sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
dev = "cuda"
M = N = 8192
K = int(sys.argv[2])
a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
one = torch.ones((), device=dev)
name = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
if sys.argv[1] == "scaled_mm":
    fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)  # noqa: E731
else:
    fn = lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, dict(swizzle=int(sys.argv[1])), one, one)  # noqa: E731
for _ in range(3):
    fn()
torch.cuda.synchronize()
