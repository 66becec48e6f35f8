"""Session 7 (call 7): the FP8 fused epilogue without its X/Y nodes (the lean kernels (Epilogue::FusedLean),
4 mainloop stages on 128x256 instead of 3) against the full fused kernels, the
plain 128x256 kernel and torch._scaled_mm; bias + gelu_tanh, bf16 out. REPS a provider a round,
4 rounds rotated."""
import statistics, sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C
from blackwell_ops.timing import Timer
dev = "cuda"
one = torch.ones((), device=dev)
P = "sm90_e4m3_bf16_ak_bk_"
t = Timer("cuda")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for (M, N, K) in [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 14336, 4096), (8192, 4096, 14336)]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    bias = torch.randn(N, device=dev, dtype=torch.bfloat16)
    fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
           "plain256": lambda: _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16,
                                             f"{P}128x256x128_c2x1_coop_fp8overlap_axpby", True, None, one, one)[1]}
    outs = {}
    for tile in ("128x256x128", "128x128x128"):
        for kind, act in (("full", "gelu_tanh"), ("lean", "gelu_tanh")):
            name = f"{P}{tile}_c2x1_coop_fp8overlap_{kind if kind == 'lean' else 'fused'}_{act}"
            key = f"{kind}{tile[4:7]}"
            fns[key] = lambda name=name, act=act: _C.run_kernel_fused(
                a, b, None, bias, None, 1.0, 0.0, 1.0, act, False, torch.bfloat16, name, True,
                None, one, one)
            msg, res = fns[key]()
            assert res is not None, (key, msg)
            outs[key] = res[0]
    ref = torch.nn.functional.gelu(torch._scaled_mm(a, b, one, one, out_dtype=torch.float32) + bias.float(), approximate="tanh")
    for key, d in outs.items():
        err = ((d.float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, (key, err)
    same = all(torch.equal(outs[f"full{w}"], outs[f"lean{w}"]) for w in ("256", "128"))
    times = {k: [] for k in fns}
    names = list(fns)
    for r in range(4):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k] += t(fns[k], reps=REPS)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{M}x{N}x{K} reps {REPS} lean==full {same}: " + "  ".join(f"{k} {v:.4f}" for k, v in med.items())
          + "  | vs scaled_mm: " + "  ".join(f"{k} {med['scaled_mm'] / med[k]:.3f}x" for k in names[1:]), flush=True)
