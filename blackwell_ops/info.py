"""`python -m blackwell_ops.info`: what this build holds and what a problem would run.

    python -m blackwell_ops.info                      # versions, archs, kernels, GPU
    python -m blackwell_ops.info --problem 4096x4096x4096 --dtype bfloat16 [--batch 8]
        [--out-dtype float32] [--layout kn] [--with-c]
    python -m blackwell_ops.info --sass              # the SASS features of each compiled kernel

--layout gives the majorness of a and b: k (a row-major / b = W.T) or n/m (a column-major /
b row-major); "kn" is contiguous a @ contiguous b.
"""
from __future__ import annotations

import argparse
import sys

import torch

import blackwell_ops
from blackwell_ops import _C

try:
    from blackwell_ops import _build_config as build
except ImportError:  # pragma: no cover - the build writes it
    build = None


def _parse_problem(text: str):
    parts = [int(x) for x in text.lower().split("x")]
    if len(parts) != 3:
        raise SystemExit(f"--problem must be MxNxK, got {text!r}")
    return parts


def _operands(m, n, k, l, dtype, layout, device):
    a_kmajor, b_kmajor = layout[0] == "k", layout[1] == "k"
    a = torch.empty(k, m, device=device, dtype=dtype).mT if not a_kmajor else \
        torch.empty(m, k, device=device, dtype=dtype)
    b = torch.empty(n, k, device=device, dtype=dtype).mT if b_kmajor else \
        torch.empty(k, n, device=device, dtype=dtype)
    if l > 1:
        a = a.unsqueeze(0).expand(l, m, k)
    return a, b


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--problem", help="MxNxK: show which path gemm_axpby takes for it")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--out-dtype", default=None)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--layout", default="kn", help="majorness of a and b: kk, kn, mk, mn")
    p.add_argument("--with-c", action="store_true", help="with c and beta = 1")
    p.add_argument("--sass", action="store_true",
                   help="disassemble each compiled kernel and check its hardware features")
    args = p.parse_args(argv)

    print(f"blackwell_ops {blackwell_ops.__version__}")
    print(f"torch {torch.__version__}, CUDA (torch build) {torch.version.cuda}")
    native = _C.build_info()
    if build is not None:
        print(f"build: CUDA kernels {'yes' if build.CUDA_KERNELS else 'no'}, archs "
              f"{','.join(build.ARCHS) or '-'}, preset {build.PRESET}, debug {build.DEBUG}")
    kernels = _C.compiled_kernels()
    print(f"compiled kernels: {len(kernels)}" + ("" if native["cuda_kernels"] else
                                                  " (built without nvcc)"))
    for k in kernels:
        print(f"  {k['name']}")
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            pr = torch.cuda.get_device_properties(i)
            print(f"GPU {i}: {pr.name}, compute capability {pr.major}.{pr.minor}, "
                  f"{pr.multi_processor_count} SMs")
    else:
        print("GPU: none seen (ops run through ATen on the CPU)")

    if args.sass:
        from blackwell_ops import sass
        print("SASS features (blackwell_ops/sass.py):", flush=True)
        ok, _ = sass.report(emit=lambda line: print("  " + line, flush=True))
        if not ok:
            return 1

    if args.problem:
        m, n, k = _parse_problem(args.problem)
        dtype = getattr(torch, args.dtype)
        out_dtype = getattr(torch, args.out_dtype) if args.out_dtype else None
        # the op's default output: the input type; bfloat16 for float8, int32 for int8
        natural = {"float8_e4m3fn": "bfloat16", "float8_e5m2": "bfloat16",
                   "int8": "int32"}.get(args.dtype, args.dtype)
        layout = args.layout.replace("m", "n")
        desc = f"{m}x{n}x{k}" + (f" L={args.batch}" if args.batch > 1 else "") + \
            f" {args.dtype}, layout {args.layout}"
        if torch.cuda.is_available():
            a, b = _operands(m, n, k, args.batch, dtype, layout, "cuda")
            shape = (args.batch, m, n) if args.batch > 1 else (m, n)
            c = (torch.empty(shape, device="cuda", dtype=out_dtype or getattr(torch, natural))
                 if args.with_c else None)
            path = _C.explain(a, b, c, 1.0, 1.0 if args.with_c else 0.0, out_dtype)
            print(f"{desc} on this GPU: {path}")
        else:
            # fp32 inputs plan as tf32 when torch allows TF32 matmuls, as the op does
            tf32 = args.dtype == "float32" and torch.backends.cuda.matmul.allow_tf32
            problem = dict(m=m, n=n, k=k, l=args.batch, ab="tf32" if tf32 else args.dtype,
                           d=args.out_dtype or natural,
                           a_major="K" if layout[0] == "k" else "MN",
                           b_major="K" if layout[1] == "k" else "MN")
            if args.with_c:
                problem["c"] = problem["d"]
            for arch in (90, 100):
                for table in ("compiled", "all"):
                    name, why = _C.plan(problem, arch, table)
                    print(f"{desc} on sm_{arch} ({table} kernels): "
                          f"{'kernel: ' + name if name else 'composite: ' + why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
