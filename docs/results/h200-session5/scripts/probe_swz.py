"""Does the op's run-time schedule (planner: swizzle 4 at 8192^3 FP8) match run_kernel's?"""
import statistics, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
M = N = K = 8192
a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
one = torch.ones((), device=dev)
name = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
prob = dict(m=M, n=N, k=K, ab="float8_e4m3fn", d="bfloat16", a_major="K", b_major="K")
print("plan compiled:", _C.plan(prob, 90, "compiled", True))
print("explain:", _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, one, one))
fns = {
    "op": lambda: torch.ops.bw.gemm_axpby(a, b, None, 1.0, 0.0, torch.bfloat16, one, one),
    "rk_none": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one),
    "rk_dp": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, dict(decomposition="data_parallel"), one, one),
    "rk_sw4": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, dict(decomposition="data_parallel", swizzle=4), one, one),
    "rk_sw4_only": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, dict(swizzle=4), one, one),
    "scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
}
t = Timer("cuda")
times = {k: [] for k in fns}
for r in range(4):
    order = list(fns)[r % len(fns):] + list(fns)[:r % len(fns)]
    for k in order:
        times[k] += t(fns[k], reps=10)
for k, v in times.items():
    print(f"{k:12s} {statistics.median(v):.4f} ms" if v else k)
