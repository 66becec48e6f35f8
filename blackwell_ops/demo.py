"""`python -m blackwell_ops.demo`: the main job, end to end.

Runs D = alpha * A @ B + beta * C through torch.ops.bw.gemm_axpby on the best device here (the GPU
if there is one, else the CPU), checks it against an fp64 reference, and times it beside
torch.addmm on the same tensors (median of CUDA-event or wall-clock timings, L2 flushed on GPU).
Exits non-zero if the result is wrong.
"""
from __future__ import annotations

import argparse
import statistics
import sys

import torch

import blackwell_ops
from blackwell_ops import _C
from blackwell_ops.timing import Timer


def _time_ms(fn, device, reps: int) -> float:
    return statistics.median(Timer(device)(fn, reps=reps, warmup=1))


def main(argv=None) -> int:
    cuda = torch.cuda.is_available()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="4096x4096x4096" if cuda else "512x512x512", help="MxNxK")
    p.add_argument("--dtype", default="bfloat16" if cuda else "float32")
    p.add_argument("--alpha", type=float, default=1.5)
    p.add_argument("--beta", type=float, default=0.5)
    p.add_argument("--reps", type=int, default=50 if cuda else 10)
    args = p.parse_args(argv)

    device = "cuda" if cuda else "cpu"
    dtype = getattr(torch, args.dtype)
    m, n, k = (int(x) for x in args.size.lower().split("x"))
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(m, k, device=device, dtype=dtype, generator=gen)
    b = torch.randn(k, n, device=device, dtype=dtype, generator=gen)
    c = torch.randn(m, n, device=device, dtype=dtype, generator=gen)

    where = torch.cuda.get_device_name() if cuda else "CPU (no GPU seen)"
    print(f"blackwell_ops {blackwell_ops.__version__} on {where}, torch {torch.__version__}")
    print(f"D = {args.alpha} * A @ B + {args.beta} * C, {m}x{n}x{k} {args.dtype}")
    print(f"path: {_C.explain(a, b, c, args.alpha, args.beta, None)}")

    d = blackwell_ops.gemm_axpby(a, b, c, alpha=args.alpha, beta=args.beta)
    ref = args.alpha * (a.double() @ b.double()) + args.beta * c.double()
    err = ((d.double() - ref).norm() / ref.norm()).item()
    tol = {torch.float64: 1e-12, torch.float32: 1e-5}.get(dtype, 1e-2)
    ok = bool(torch.isfinite(d).all()) and err < tol
    print(f"relative error vs fp64 reference: {err:.2e} (tolerance {tol:.0e}) "
          f"{'OK' if ok else 'WRONG'}")

    ours = _time_ms(lambda: blackwell_ops.gemm_axpby(a, b, c, alpha=args.alpha, beta=args.beta),
                    device, args.reps)
    addmm = _time_ms(lambda: torch.addmm(c, a, b, beta=args.beta, alpha=args.alpha), device,
                     args.reps)
    flops = 2.0 * m * n * k
    print(f"{'':14}{'median ms':>10}{'TFLOP/s':>10}")
    print(f"{'bw.gemm_axpby':14}{ours:10.3f}{flops / ours / 1e9:10.1f}")
    print(f"{'torch.addmm':14}{addmm:10.3f}{flops / addmm / 1e9:10.1f}")
    print(f"speedup vs torch.addmm: {addmm / ours:.2f}x (median of {args.reps} runs)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
