"""Session 38: the bf16 planner's 128x128 ping-pong ("Mid") against the 128x256 cooperative tile
("Big") in each of the four operand layouts, with + C and without. Session 37's probe (run147, a
lent H100) saw gemm_axpby with + C and b MN-major (x @ W) take the ping-pong at 4096^3 and
8192 x 4096 x 14336 and run 0.98x / 0.81x torch.addmm, where the 128x256 kernel, called by name,
ran 1.10x / 1.01x. The planner's rule (csrc/gemm/heuristics.cpp, sm90_preference) comes from a
K-major-only sweep. Here each default bf16 kernel of both roles is called by name through
_C.run_kernel beside the op and the peer (torch.addmm with C, torch.mm without), in random order,
8 rounds of 20 calls after the benchmarks' write flush (blackwell_ops.timing.Timer), medians in
us; every output is checked against an fp64 reference first.

`python3 probe38.py fp8` times the 128x160 FP8 tiles (fp8_rows; removed after run151:
../experiments.patch). `python3 probe38.py names`
prints the kernels cuBLAS runs (torch.profiler) for torch._scaled_mm at the fp8 suite's and the
mid-size shapes, and for torch.addmm at two bf16 shapes in each layout.

run148 and run149 ran this script before its timing loop moved to
blackwell_ops.timing.side_by_side (the same random order, rounds and counts)."""
import json, os, random, sys, tempfile, torch
import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer, side_by_side

dev = "cuda"
rng = random.Random(38)
compiled = {k["name"] for k in _C.compiled_kernels()}
LAYOUTS = [("k", "k"), ("k", "mn"), ("mn", "k"), ("mn", "mn")]
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 4096, 14336), (8192, 14336, 4096),
          (2048, 4096, 4096), (4096, 4096, 1024)]
if len(sys.argv) > 2:  # rows SHAPES [LAYOUTS]: e.g. 4096x4096x4096,2048x4096x4096 kk,kmn
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in sys.argv[2].split(",")]
# rows ... DTYPE: "bf16" (default) or "f16", inputs and output (run152)
DT, TAG = {"bf16": (torch.bfloat16, "bf16"), "f16": (torch.float16, "f16")}[
    sys.argv[4] if len(sys.argv) > 4 else "bf16"]
if len(sys.argv) > 3:
    LAYOUTS = [{"kk": ("k", "k"), "kmn": ("k", "mn"), "mnk": ("mn", "k"), "mnmn": ("mn", "mn")}[x]
               for x in sys.argv[3].split(",")]


def operands(M, N, K, la, lb, dtype=torch.bfloat16, scale=1.0):
    """a (M x K) and b (K x N) in the layouts named: "k" K-major, "mn" MN-major."""
    a = torch.randn(M, K, device=dev) * scale if la == "k" else (torch.randn(K, M, device=dev) * scale).t()
    b = (torch.randn(N, K, device=dev) * scale).t() if lb == "k" else torch.randn(K, N, device=dev) * scale
    return a.to(dtype), b.to(dtype)


def drop_wrong(fns, ref, tol, label):
    """Runs each fn once; drops (and reports) those whose relative error to ref is not < tol."""
    errs = {k: ((fn().double() - ref).norm() / ref.norm()).item() for k, fn in fns.items()}
    for k in [k for k, e in errs.items() if not e < tol]:
        print(f"  {label} {k}: rel err {errs[k]:.3e} FAILED", flush=True)
        del fns[k]
    return sum(not e < tol for e in errs.values())


def kernel_names(la, lb):
    tag = f"sm90_{TAG}_{TAG}_a{la}_b{lb}_"
    return {"big": tag + "128x256x64_c2x1_coop_axpby", "mid": tag + "128x128x64_c1x2_pingpong_axpby"}


def rows():
    timer = Timer(dev)
    failed = 0
    for (M, N, K) in SHAPES:
        for la, lb in LAYOUTS:
            a, b = operands(M, N, K, la, lb, DT)
            c = torch.randn(M, N, device=dev).to(DT)
            prod = a.double() @ b.double()
            for with_c in (True, False):
                label = f"{TAG}{'+c' if with_c else ''} {M}x{N}x{K} a{la} b{lb}"
                ref = prod + c.double() if with_c else prod
                cc, beta = (c, 1.0) if with_c else (None, 0.0)
                peer = "addmm" if with_c else "mm"
                fns = {peer: (lambda: torch.addmm(c, a, b)) if with_c else (lambda: torch.mm(a, b)),
                       "op": lambda cc=cc, beta=beta: blackwell_ops.gemm_axpby(a, b, cc, beta=beta)}
                for key, name in kernel_names(la, lb).items():
                    if name in compiled:
                        fns[key] = (lambda name=name, cc=cc, beta=beta: _C.run_kernel(
                            a, b, cc, 1.0, beta, DT, name, True, None, None, None)[1])
                failed += drop_wrong(fns, ref, 1e-2, label)
                med = side_by_side(fns, timer, rng=rng)
                kern = _C.explain(a, b, cc, 1.0, beta, DT).split("kernel: ")[-1]
                print(f"{label} [op: {kern.replace(f'sm90_{TAG}_{TAG}_', '')}] (us; x = {peer} / it): "
                      + "  ".join(f"{k} {v:.1f} ({med[peer] / v:.3f}x)" for k, v in med.items()),
                      flush=True)
            del a, b, c, prod
    print(f"checks failed: {failed}")


def names():
    """The CUDA kernels (name, grid, block) each peer call launches, from a profiler trace."""
    f8 = torch.float8_e4m3fn
    cases = [("scaled_mm", s) for s in [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 14336, 4096),
                                       (8192, 4096, 14336), (2048, 4096, 4096), (300, 4096, 4096),
                                       (640, 4096, 4096), (1152, 4096, 4096), (384, 6144, 4096),
                                       (640, 14336, 4096), (640, 4096, 14336), (1024, 4096, 4096)]]
    cases += [(f"addmm_{la}{lb}", s) for s in [(4096, 4096, 4096), (8192, 4096, 14336)]
              for la, lb in LAYOUTS]
    for what, (M, N, K) in cases:
        if what == "scaled_mm":
            a, b = operands(M, N, K, "k", "k", f8, 0.5)
            one = torch.tensor(1.0, device=dev)
            fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)
        else:
            la, lb = {"addmm_kk": ("k", "k"), "addmm_kmn": ("k", "mn"), "addmm_mnk": ("mn", "k"),
                      "addmm_mnmn": ("mn", "mn")}[what]
            a, b = operands(M, N, K, la, lb)
            c = torch.randn(M, N, device=dev).to(torch.bfloat16)
            fn = lambda: torch.addmm(c, a, b)
        fn(); torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn(); torch.cuda.synchronize()
        path = os.path.join(tempfile.mkdtemp(), "t.json")
        prof.export_chrome_trace(path)
        ev = [e for e in json.load(open(path))["traceEvents"] if e.get("cat") == "kernel"]
        print(f"{what} {M}x{N}x{K}: " + "; ".join(
            f"{e['name'][:90]} grid {e['args'].get('grid')} block {e['args'].get('block')} "
            f"{e['dur']:.1f} us" for e in ev), flush=True)


E4M3 = "sm90_e4m3_bf16_ak_bk_"
FP8_NAMED = {"w160_2x1": "128x160x128_c2x1_coop_fp8overlap_scale_e128x32",
             "w160_1x2": "128x160x128_c1x2_coop_fp8overlap_scale_e128x32",
             "w160_2x1+c0": "128x160x128_c2x1_coop_fp8overlap_axpby",
             "c2x1": "128x128x128_c2x1_coop_fp8overlap_axpby",
             "c1x2": "128x128x128_c1x2_coop_fp8overlap_axpby",
             "w192_2x1": "128x192x128_c2x1_coop_fp8overlap_scale_e128x64",
             "w192_1x2": "128x192x128_c1x2_coop_fp8overlap_scale_e128x64",
             "w256": "128x256x128_c2x1_coop_fp8overlap_scale_e128x64"}
FP8_SHAPES = [(640, 4096, 4096), (1152, 4096, 4096), (896, 6144, 4096), (640, 14336, 4096),
              (640, 4096, 14336), (1152, 4096, 14336), (384, 6144, 4096), (300, 4096, 4096),
              (2048, 4096, 4096), (4096, 4096, 4096), (8192, 4096, 14336), (8192, 8192, 8192)]


def fp8_rows():
    """Session 38's 128x160 FP8 tiles (`all`) by name beside the default set's tiles, the op
    and torch._scaled_mm, without C (beta = 0), in us."""
    timer = Timer(dev)
    failed = 0
    for (M, N, K) in FP8_SHAPES:
        a, b = operands(M, N, K, "k", "k", torch.float8_e4m3fn, 0.5)
        sa, sb = torch.tensor(0.7, device=dev), torch.tensor(1.3, device=dev)
        ref = (a.double() @ b.double()) * (0.7 * 1.3)
        fns = {"scaled_mm": lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
               "op": lambda: blackwell_ops.gemm_axpby(a, b, out_dtype=torch.bfloat16,
                                                      scale_a=sa, scale_b=sb)}
        for key, tail in FP8_NAMED.items():
            if E4M3 + tail in compiled:
                fns[key] = (lambda name=E4M3 + tail: _C.run_kernel(
                    a, b, None, 1.0, 0.0, torch.bfloat16, name, True, None, sa, sb)[1])
        label = f"fp8 {M}x{N}x{K}"
        failed += drop_wrong(fns, ref, 2e-2, label)
        med = side_by_side(fns, timer, rng=rng)
        kern = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, scale_a=sa, scale_b=sb)
        print(f"{label} [op: {kern.split('kernel: ')[-1].replace(E4M3, '')}] (us; x = scaled_mm / "
              "it): " + "  ".join(f"{k} {v:.1f} ({med['scaled_mm'] / v:.3f}x)"
                                  for k, v in med.items()), flush=True)
        del a, b, ref, fns
    print(f"checks failed: {failed}")


print(torch.cuda.get_device_name(), torch.__version__, f"{len(compiled)} kernels", flush=True)
{"names": names, "fp8": fp8_rows}.get(sys.argv[1] if len(sys.argv) > 1 else "", rows)()
