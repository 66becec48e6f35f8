"""Session 8: why did the lean bias+gelu kernel run faster than the plain axpby kernel of the same
tile (probe_cluster.txt)? Plain products four ways on 128x256x128 c2x1: the axpby kernel by
run_kernel and through the op (pinned), the lean tree with no activation and no bias through the
op (pinned) and by run_kernel_fused; the lean bias+gelu_tanh through the op; torch._scaled_mm.
Long bursts (REPS a provider a round, 6 rounds rotated); errors against an fp32 product."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40


def pinned(name, fn):
    def f():
        _C.pin_kernel(name)
        try:
            return fn()
        finally:
            _C.pin_kernel("")
    return f


for (M, N, K) in [(8192, 8192, 8192), (8192, 4096, 14336), (8192, 14336, 4096), (4096, 4096, 4096)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    ref = a.float() @ b.float()
    fns = {
        "scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
        "axpby_rk": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, None, one, one)[1],
        "axpby_op": pinned(P + "axpby", lambda: torch.ops.bw.gemm_axpby(a, b, None, 1.0, 0.0, torch.bfloat16, one, one)),
        "leannone_op": pinned(P + "lean_none", lambda: torch.ops.bw.gemm_fused(a, b, None, None, None, 1.0, 0.0, 1.0, "none", False, torch.bfloat16, one, one)[0]),
        "leannone_rk": lambda: _C.run_kernel_fused(a, b, None, None, None, 1.0, 0.0, 1.0, "none", False, torch.bfloat16, P + "lean_none", True, None, one, one)[1][0],
    }
    errs = {k: ((f().float() - ref).norm() / ref.norm()).item() for k, f in fns.items()}
    fns["leangelu_op"] = pinned(P + "lean_gelu_tanh", lambda: torch.ops.bw.gemm_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh", False, torch.bfloat16, one, one))
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(6):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS}: " + "  ".join(f"{k} {v:.4f} ({med['scaled_mm'] / v:.3f}x)" for k, v in med.items()), flush=True)
    print("   err " + "  ".join(f"{k} {v:.2e}" for k, v in errs.items()), flush=True)
