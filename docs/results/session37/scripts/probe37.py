"""Session 37: the epilogue's C prefetch (96cebe2, since removed: ../experiments.patch) on the
sm90 128x256 axpby kernels, where C's last 4 of 8 subtiles load from DRAM during the epilogue,
and on the bf16 128x128 ping-pong one ("pp"). Each default kernel (CUTLASS's epilogue) is called
by name through _C.run_kernel with C (beta = 1), beside its "_cpf" twin (the same kernel with the
prefetch), the plain Scale kernel without C, and the peers: `_scaled_mm` then + C in bf16 (the
fp8 suite's best +C peer) and `_scaled_mm` alone (fp8); torch.addmm (bf16). Random order, 8
rounds of 20 calls each after the benchmarks' write flush (blackwell_ops.timing.Timer), medians
in us; outputs checked against an fp64 reference first. argv[1] == "fp8" or "bf16" picks the
rows (default both). Model: session 36's probe36.py."""
import random, statistics, sys, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer

dev = "cuda"
random.seed(37)
compiled = {k["name"] for k in _C.compiled_kernels()}
MODE = sys.argv[1] if len(sys.argv) > 1 else "fp8,bf16"
FP8 = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_"
BF16 = "sm90_bf16_bf16_ak_bmn_128x256x64_c2x1_coop_"
PP = "sm90_bf16_bf16_ak_bmn_128x128x64_c1x2_pingpong_"
SHAPES = {"fp8": [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 4096, 14336),
                  (8192, 14336, 4096), (2048, 4096, 4096)],
          "bf16": [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 4096, 14336), (2048, 4096, 4096)]}


# provider key -> kernel name, per kind; the kernels this build lacks are left out
NAMED = {"fp8": {"axpby": FP8 + "axpby", "axpby_cpf": FP8 + "axpby_cpf",
                 "plain(no C)": FP8 + "scale_e128x64"},
         "bf16": {"axpby": BF16 + "axpby", "axpby_cpf": BF16 + "axpby_cpf",
                  "pp": PP + "axpby", "pp_cpf": PP + "axpby_cpf"}}


def providers(kind, M, N, K):
    """(fns, ref, peer, no_c): the calls by key, the fp64 reference of the + C ones, the peer
    key the ratios divide, and the keys that compute no C (not checked against ref)."""
    c = torch.randn(M, N, device=dev).to(torch.bfloat16)
    sa = sb = None
    if kind == "fp8":
        a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
        b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
        sa, sb = torch.tensor(0.7, device=dev), torch.tensor(1.3, device=dev)
        ref = (a.double() @ b.double()) * (0.7 * 1.3) + c.double()
        fns = {"scaled_mm+c": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16) + c,
               "op": lambda: blackwell_ops.gemm_axpby(a, b, c, beta=1.0, out_dtype=torch.bfloat16,
                                                      scale_a=sa, scale_b=sb),
               "scaled_mm(no C)": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)}
        peer, no_c = "scaled_mm+c", ("plain(no C)", "scaled_mm(no C)")
    else:
        a = torch.randn(M, K, device=dev).to(torch.bfloat16)
        b = torch.randn(K, N, device=dev).to(torch.bfloat16)
        ref = a.double() @ b.double() + c.double()
        fns = {"addmm": lambda: torch.addmm(c, a, b),
               "op": lambda: blackwell_ops.gemm_axpby(a, b, c, beta=1.0)}
        peer, no_c = "addmm", ()
    for key, name in NAMED[kind].items():
        if name in compiled:
            cc = None if key in no_c else c
            fns[key] = (lambda name=name, cc=cc: _C.run_kernel(
                a, b, cc, 1.0, 0.0 if cc is None else 1.0, torch.bfloat16, name, True, None,
                sa, sb)[1])
    return fns, ref, peer, no_c


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
timer = Timer(dev)
failed = 0
for kind in MODE.split(","):
    for (M, N, K) in SHAPES[kind]:
        label = f"{kind}+c {M}x{N}x{K}"
        fns, ref, peer, no_c = providers(kind, M, N, K)
        for k in list(fns):
            if k in no_c:
                continue
            out = fns[k]()
            err = ((out.double() - ref).norm() / ref.norm()).item()
            if not err < (2e-2 if kind == "fp8" else 1e-2):
                print(f"  {label} {k}: rel err {err:.3e} FAILED", flush=True)
                del fns[k]
                failed += 1
        times = {k: [] for k in fns}
        for _ in range(8):
            for k in random.sample(list(fns), len(fns)):
                times[k] += timer(fns[k], reps=20, warmup=5)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{label} (us; x = {peer} / it): "
              + "  ".join(f"{k} {v:.1f} ({med[peer] / v:.3f}x)" for k, v in med.items()),
              flush=True)
        del fns, ref
print(f"checks failed: {failed}")
