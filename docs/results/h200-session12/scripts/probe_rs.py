"""Session 12, call 1: A from registers (RS wgmma) in the 128x256 FP8 overlap mainloop, beside
the shipped 128x256 kernel (SS, 64-column chunks), CUTLASS's FastAccum 128x256 and
torch._scaled_mm. Variants (macros of csrc/gemm/sm90/fp8_overlapped_promotion.hpp):
  rs32:    XRS=2 XCHUNK=32           every chunk's A from registers (two copies), 32-column chunks
  rs32g2:  XRS=2 XCHUNK=32 XGROUP=2  the same in groups of 2 k-tiles
  ss32:    XCHUNK=32                 control: 32-column chunks with A from shared memory
64-column chunks with A in registers spilled in the k-loop (448-660 bytes), so they are not here.
Settled timing: a fresh random order each round, each timed burst after WARM untimed runs of the
same call, L2 flushed before every run."""
import random, statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
t = Timer("cuda")
REPS, ROUNDS, WARM = 30, int(sys.argv[1]) if len(sys.argv) > 1 else 8, 25
random.seed(12)
P = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_"
W = P + "fp8overlap_"
V = {"rs32": "xxrs2_xchunk32_", "rs32g2": "xxrs2_xchunk32_xgroup2_", "ss32": "xxchunk32_"}
SHAPES = [(8192, 8192, 8192), (8192, 14336, 4096), (8192, 4096, 14336), (4096, 4096, 4096)]


def bench(label, fns, ref, peer="scaled_mm"):
    for k, f in fns.items():
        out = f().float()
        err = ((out - ref).norm() / ref.norm()).item()
        ok = err < 2e-2
        print(f"  {label} {k}: rel err {err:.3e}{'' if ok else '  FAILED'}", flush=True)
    times = {k: [] for k in fns}
    for r in range(ROUNDS):
        for k in random.sample(list(fns), len(fns)):
            times[k] += t(fns[k], reps=REPS, warmup=WARM)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label} {REPS}x{ROUNDS} warm {WARM}: " + "  ".join(
        f"{k} {v:.4f} ({med[peer] / v:.3f}x)" for k, v in med.items()), flush=True)


def plain(name):
    return lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, one, one)[1]


for (M, N, K) in SHAPES:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    ref = a.float() @ b.float()
    names = [W + "axpby", P + "fastaccum_axpby"] + [W + v + "axpby" for v in V.values()]
    for name in names:
        print(f"  plan {M}x{N}x{K} {name}: {_C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, name, False, None, one, one)[0]}")
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "w256": plain(W + "axpby"), "fastacc": plain(P + "fastaccum_axpby")}
    for k, v in V.items():
        fns[k] = plain(W + v + "axpby")
    bench(f"plain {M}x{N}x{K}", fns, ref)
    if (M, N, K) in ((8192, 8192, 8192), (8192, 14336, 4096)):
        bias = torch.randn(N, device=dev).to(torch.bfloat16)
        refg = torch.nn.functional.gelu(ref + bias.float(), approximate="tanh")
        fused = lambda name: (lambda: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 0.0, "gelu_tanh", False,
                                                          torch.bfloat16, name, True, None, one, one)[1][0])
        fg = {"w256": fused(W + "lean_gelu_tanh")}
        for k, v in V.items():
            fg[k] = fused(W + v + "lean_gelu_tanh")
        bench(f"bias+gelu(lean) {M}x{N}x{K}", fg, refg, peer="w256")
