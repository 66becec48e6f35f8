"""Session 13: one provider at 8192^3 FP8, run twice (ncu profiles the second launch)."""
import sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
which = sys.argv[1]
M = N = K = 8192
one = torch.ones((), device="cuda")
a = (torch.randn(M, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(N, K, device="cuda") * 0.5).to(torch.float8_e4m3fn).t()
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
for _ in range(2):
    if which == "scaled_mm":
        torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)
    elif which == "pers":
        _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, None, one, one)
    else:
        d = {"decomposition": {"sk_dp": "data_parallel", "sk_sk": "stream_k"}[which], "swizzle": 8}
        _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "sk_axpby", True, d, one, one)
torch.cuda.synchronize()
