"""Session 12, call 5: the sm90 epilogue subtile of the 128x256 FP8 kernels. CUTLASS's automatic
choice is 128x32 (8 subtiles a tile, 4 mainloop stages); XEPI_N=64 takes 128x64 (4 subtiles; its
C/D staging takes 64 KiB of shared memory, so the mainloop gets 3 stages). Beside the shipped
kernels, CUTLASS's FastAccum on the same tile and torch._scaled_mm; settled timing as in
probe_rs.py (fresh random order each round, 30 timed runs a burst after 25 untimed ones, L2
flushed before every run)."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(13)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_"
W = P + "fp8overlap_"
E = W + "xxepi_n64_"
SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]


def bench(label, fns, ref, peer="scaled_mm"):
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        print(f"  {label} {k}: rel err {err:.3e}{'' if err < 2e-2 else '  FAILED'}", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(
        f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)


def plain(name, c=None, beta=0.0):
    return lambda: _C.run_kernel(a, b, c, 1.0, beta, torch.bfloat16, name, True, None, one, one)[1]


for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "w256": plain(W + "axpby"), "epi64": plain(E + "axpby"), "fastacc": plain(P + "fastaccum_axpby")}
    bench(f"plain {M}x{N}x{K}", fns, ref)
    if (M, N, K) in ((8192, 8192, 8192), (8192, 14336, 4096)):
        c = torch.randn(M, N, device=dev).to(torch.bfloat16)
        bench(f"+C {M}x{N}x{K}", {"w256": plain(W + "axpby", c, 1.0), "epi64": plain(E + "axpby", c, 1.0)},
              ref + c.float(), peer="w256")
        bias = torch.randn(N, device=dev).to(torch.bfloat16)
        refg = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        fused = lambda name: (lambda: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                          torch.bfloat16, name, True, None, one, one)[1][0])
        bench(f"bias+gelu(lean) {M}x{N}x{K}", {"w256": fused(W + "lean_gelu_tanh"), "epi64": fused(E + "lean_gelu_tanh")},
              refg, peer="w256")
