"""Session 10, call 1: stream-K on the 128x256 FP8 overlap kernel (its tiles fill 15.52 waves of
132 SMs at 8192^3, 27.15 at Llama-8B up, 7.76 at down, 3.88 at 4096^3: the last wave idles up to
85% of the SMs), settled (a fresh random order each round, each timed burst after WARM untimed
runs of the same call), beside the persistent kernel under the planner's schedule and
torch._scaled_mm. Stream-K kernels run with the planner's swizzle for the persistent one."""
import random, statistics, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, 10, 25
random.seed(2)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
SWZ = {(8192, 8192, 8192): 8, (8192, 14336, 4096): 8, (8192, 4096, 14336): 8, (4096, 4096, 4096): 1}
MODES = {"sk_dp": "data_parallel", "sk_sk": "stream_k", "sk_h": "heuristic"}
def bench(label, fns, ref, peer="scaled_mm"):
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        assert err < 1e-2, (label, k, err)
        print(f"  {label} {k}: rel err {err:.3e}", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items())
          + f" | pers/sk_sk {med['pers'] / med['sk_sk']:.3f}  pers/sk_h {med['pers'] / med['sk_h']:.3f}", flush=True)
for (M, N, K), sw in SWZ.items():
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "pers": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True, None, one, one)[1]}
    for k, m in MODES.items():
        d = {"decomposition": m, "swizzle": sw}
        fns[k] = (lambda d=d: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "sk_axpby", True, d, one, one)[1])
    bench(f"plain {M}x{N}x{K}", fns, ref)
    if (M, N, K) in ((8192, 8192, 8192), (8192, 14336, 4096)):
        bias = torch.randn(N, device=dev).to(torch.bfloat16)
        refg = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        fg = {"scaled_mm": fns["scaled_mm"],
              "pers": lambda: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                  torch.bfloat16, P + "fused_gelu_tanh", True, None, one, one)[1][0]}
        for k, m in MODES.items():
            d = {"decomposition": m, "swizzle": sw}
            fg[k] = (lambda d=d: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                     torch.bfloat16, P + "sk_fused_gelu_tanh", True, d, one, one)[1][0])
        bench(f"bias+gelu(full) {M}x{N}x{K}", fg, refg)
