"""Session 7 (EXPERIMENT): the sm90 bf16 fused ping-pong 128x128x64 kernel with and without its X/Y
nodes (lean: 6 mainloop stages, full: 5), bias + gelu_tanh, beside the plain kernel of the same tile
and torch.compile's addmm + gelu. REPS a provider a round, 4 rounds rotated."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
P = "sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
comp = torch.compile(lambda a, b, bias: torch.nn.functional.gelu(torch.addmm(bias, a, b), approximate="tanh"))
for (M, N, K) in [(8192, 8192, 8192), (4096, 4096, 1024), (8192, 14336, 4096), (8192, 4096, 14336)]:
    a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, K, device=dev, dtype=torch.bfloat16).t()
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    fns = {"compile": lambda: comp(a, b, bias),
           "plain": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, P + "axpby", True)[1]}
    outs = {}
    for kind in ("fused", "lean"):
        name = f"{P}{kind}_gelu_tanh"
        fns[kind] = lambda name=name: _C.run_kernel_fused(a, b, None, bias, None, 1.0, 0.0, 1.0, "gelu_tanh",
                                                          False, torch.bfloat16, name, True)
        msg, res = fns[kind]()
        assert res is not None, (kind, msg)
        outs[kind] = res[0]
    same = torch.equal(outs["fused"], outs["lean"])
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS} lean==full {same}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items())
          + "  | vs compile: " + "  ".join(f"{k} {med['compile'] / med[k]:.3f}x" for k in names[1:]), flush=True)
