#!/usr/bin/env python3
"""Side-by-side speed of bw.gemm_axpby against what users would otherwise write.

    python benchmarks/bench_gemm.py --suite default --out benchmarks/results/h200
    python benchmarks/bench_gemm.py --suite cpu --device cpu --out /tmp/bench   # CI smoke
    python benchmarks/bench_gemm.py --suite quant --out benchmarks/results/h200/quant  # FP8 etc.
    python benchmarks/bench_gemm.py --suite quant --list     # the cases and their peers; no GPU

For every case of the suite (benchmarks/suites.py), on the same tensors in one process:
  bw           blackwell_ops.gemm_axpby (our op)
  addmm        torch.addmm / torch.baddbmm (cuBLAS with its own epilogue; out_dtype overload
               where the output type differs)
  mm+epi       torch.mm / torch.bmm (fp32 out where the output is fp32), then alpha * P + beta * C
  eager        the composite as a user writes it: alpha * (a @ b) + beta * c, cast to out_dtype
  compile      torch.compile of the eager composite (mode="default")
  compile-max  the same with mode="max-autotune" (opt-in: --peers ...,compile-max; slow to compile)
FP8 and INT8 inputs (suites fp8, int8, quant; issue #9; GPU only) have PyTorch's own offers as
peers instead, on the same fp8/int8 tensors and per-tensor float32 scales:
  scaled_mm    torch._scaled_mm(a, b, scale_a, scale_b, bias=bias, out_dtype=out) (use_fast_accum
               left False, its default: fp32 accumulation, as ours), then what remains of the
               epilogue (+ beta * c, the activation) in eager ops in the output dtype: what a user
               writes for speed (rounds twice)
  int_mm       torch._int_mm(a, b) (int32 out; cases without scales)
  eager        the composite with our op's semantics: the product in fp32 (torch._scaled_mm with
               out_dtype=float32, torch._int_mm(a, b).float()), scales, alpha, beta * c, bias and
               the activation in fp32, rounded once: .to(out)
  compile      torch.compile of eager;  compile-lp  torch.compile of the scaled_mm form
  compile-max  max-autotune of eager (of scaled_mm / int_mm where there is no epilogue); a
               default peer of the INT8 cases, whose Triton int8 GEMM beats torch._int_mm
               (opt-in elsewhere; --peers replaces every default)
TF32 cases (fp32 inputs, torch.backends.cuda.matmul.allow_tf32 set for the case and restored
after) take the 16-bit peers above, which then run cuBLAS TF32. Each case lists its peers with
--list.

Our op's answer is checked first (exit status 1 if wrong): against an fp32 reference for 16-bit
inputs, an fp64 one of the exact upcast inputs for FP8/INT8/TF32 (INT8 -> int32 must be equal).
Each provider is warmed up, then timed --reps times with the L2 flushed before every run (CUDA
events; wall clock on CPU); the median and 20/80 quantiles are kept. Compile time is reported
separately. With --graphs (GPU) every provider's call is captured once in a CUDA graph and its
replays are timed instead, as decode loops and torch.compile's mode="reduce-overhead" run them;
our op's answer is then checked again from a replay.

Writes <out>/results.json, results.csv, tflops.png, speedup.png, table.txt and command.txt, and
prints the table last: ms, TFLOP/s (TOP/s for INT8), % of the measured peak of the case's input
class (bf16 torch.mm, fp8 torch._scaled_mm, int8 torch._int_mm, tf32 torch.mm with TF32; each at
8192^3 at the start of the run), GB/s, speedup vs the best peer, the issue's target where a case
has one, and the geometric mean of the speedups.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import datetime
import json
import math
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import suites  # noqa: E402

import blackwell_ops  # noqa: E402
from blackwell_ops import timing  # noqa: E402
from blackwell_ops.timing import L2_FLUSH_BYTES, Timer, quantile  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEERS_DEFAULT = ("addmm", "mm+epi", "eager", "compile")  # 16-bit cases; others: applicable_peers
ALL_PROVIDERS = ("bw", "addmm", "mm+epi", "scaled_mm", "int_mm", "eager", "compile", "compile-lp",
                 "compile-max")
# Relative Frobenius error allowed, by the output dtype. FP8/INT8 inputs are exact in fp32, so the
# fp64 reference differs from ours by the accumulation order and the output rounding alone; int32
# output must be equal. TF32 rounds the inputs to 10 mantissa bits (about 1e-3 here).
TOL = {torch.bfloat16: 2e-2, torch.float16: 5e-3, torch.float32: 1e-4, torch.float64: 1e-10,
       torch.int32: 0.0}
TF32_TOL = 5e-3
PEAK_N = 8192  # the % of peak column refers to PyTorch's N^3 product of the case's input class


@contextlib.contextmanager
def tf32_matmuls(enabled: bool):
    """TF32 for fp32 matmuls (ours and cuBLAS, and what torch.compile generates) inside, through
    the legacy flag the op reads; the previous setting is restored after."""
    if not enabled:
        yield
        return
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


# ----------------------------------------------------------------------------- problem set-up

def make_operands(case: suites.Case, device: str, seed: int = 0):
    """a, b, c (or None) and the output dtype. Floats: randn rounded to the dtype (FP8 too: never
    all zeros, well inside e4m3's range); int8: uniform in [-128, 127]."""
    dt = getattr(torch, case.dtype)
    dt_b = getattr(torch, case.dtype_b) if case.dtype_b else dt
    g = torch.Generator(device=device).manual_seed(seed)

    def rnd(*shape, dtype=dt):
        if dtype == torch.int8:
            return torch.randint(-128, 128, shape, generator=g, device=device, dtype=dtype)
        if dtype == torch.int32:
            return torch.randint(-2**15, 2**15, shape, generator=g, device=device, dtype=dtype)
        return torch.randn(*shape, generator=g, device=device, dtype=torch.float32).to(dtype)

    lead = (case.l,) if case.l > 1 else ()
    a_kmajor = case.layout[0] == "k"     # "k?": a row-major (K has unit stride)
    b_kmajor = case.layout[1] == "k"     # "?k": b = W.T (K has unit stride)
    a = rnd(*lead, case.m, case.k) if a_kmajor else rnd(*lead, case.k, case.m).mT
    b = (rnd(*lead, case.n, case.k, dtype=dt_b).mT if b_kmajor
         else rnd(*lead, case.k, case.n, dtype=dt_b))
    out_dt = getattr(torch, case.out_dtype) if case.out_dtype else dt
    # C: randn rounded to the input dtype, then to the output's (16/32/64-bit inputs, as before);
    # straight in the output dtype for FP8/INT8 inputs.
    c_dt = dt if dt.is_floating_point and dt.itemsize > 1 else out_dt
    c = rnd(*lead, case.m, case.n, dtype=c_dt).to(out_dt) if case.with_c else None
    return a, b, c, out_dt


def make_scales(case: suites.Case, device: str, seed: int = 2):
    """Per-tensor float32 scale_a, scale_b (one element each, on the device) in [0.5, 2), or
    (None, None) for a case without scales."""
    if not case.scaled:
        return None, None
    g = torch.Generator(device=device).manual_seed(seed)
    s = 0.5 + 1.5 * torch.rand(2, generator=g, device=device, dtype=torch.float32)
    return s[0:1].clone(), s[1:2].clone()


def make_fused_extras(case: suites.Case, device: str, out_dt, seed: int = 1):
    """bias (N,) and X (D's shape) of a fused case, in the output dtype (or None)."""
    g = torch.Generator(device=device).manual_seed(seed)
    lead = (case.l,) if case.l > 1 else ()
    bias = (torch.randn(case.n, generator=g, device=device).to(out_dt) if case.bias else None)
    x = (torch.randn(*lead, case.m, case.n, generator=g, device=device).to(out_dt)
         if case.x_factor is not None else None)
    return bias, x


ACT = blackwell_ops.fused.ACTIVATION_FN

# Which peers apply to a case, by its kind; --peers picks among them (others are skipped).
_PEERS_16BIT = ("addmm", "mm+epi", "eager", "compile", "compile-max")  # also fp32/fp64, TF32
_PEERS_FUSED = ("eager", "compile", "compile-max")
_PEERS_FP8 = ("scaled_mm", "eager", "compile", "compile-lp", "compile-max")
_PEERS_FP8_PLAIN = ("scaled_mm", "compile-max")   # nothing past the product: one call to beat
_PEERS_INT8 = ("int_mm", "compile-max")
_PEERS_INT8_SCALED = ("eager", "compile", "compile-max")


def applicable_peers(case: suites.Case, names=None) -> list[str]:
    """The providers of `names` (peers, "bw" left out) that this case is measured against; names
    None (no --peers): all that apply, less compile-max (slow to compile), except for INT8, where
    max-autotune's Triton int8 GEMM beats torch._int_mm (measured on the H200, torch 2.11)."""
    cls = case.input_class
    if cls == "fp8":
        ok = _PEERS_FP8 if case.has_epilogue else _PEERS_FP8_PLAIN
    elif cls == "int8":
        ok = _PEERS_INT8_SCALED if case.scaled else _PEERS_INT8
    else:
        ok = _PEERS_FUSED if case.fused else _PEERS_16BIT
    if names is None:
        names = [n for n in ok if n != "compile-max" or cls == "int8"]
    return [n for n in names if n in ok]


def _scale_kw(case: suites.Case, scales) -> dict:
    """Our op's scale_a, scale_b keywords for a case with per-tensor scales."""
    return {"scale_a": scales[0], "scale_b": scales[1]} if case.scaled else {}


def fused_expr(case: suites.Case):
    """The fused epilogue as a user writes it in PyTorch: (D, Y) or D."""
    alpha, beta, xf, act = case.alpha, case.beta, case.x_factor, ACT[case.activation]

    def expr(a, b, c, bias, x):
        y = a @ b
        p = alpha * y if alpha != 1 else y
        if c is not None and beta != 0:
            p = p + beta * c
        if bias is not None:
            p = p + bias
        d = act(p)
        if x is not None:
            d = d + xf * x
        return (d, y) if case.return_y else d
    return expr


def fused_providers(case: suites.Case, a, b, c, bias, x, names, out_dt=None,
                    scales=(None, None)):
    kw = _scale_kw(case, scales)
    if out_dt is not None:
        kw["out_dtype"] = out_dt
    fns = {"bw": lambda: blackwell_ops.gemm_fused(
        a, b, c, bias, x, alpha=case.alpha, beta=case.beta if c is not None else 0.0,
        x_factor=case.x_factor if x is not None else 1.0, activation=case.activation,
        return_y=case.return_y, **kw)}
    expr = fused_expr(case)
    if "eager" in names:
        fns["eager"] = lambda: expr(a, b, c, bias, x)
    for name, mode in (("compile", "default"), ("compile-max", "max-autotune")):
        if name in names:
            compiled = torch.compile(expr, mode=mode, fullgraph=True, dynamic=False)
            fns[name] = lambda compiled=compiled: compiled(a, b, c, bias, x)
    return fns


def providers(case: suites.Case, a, b, c, out_dt, names, scales=(None, None)):
    alpha, beta = case.alpha, case.beta
    batched = a.dim() == 3
    fns = {}
    kw = _scale_kw(case, scales)

    def bw():
        return blackwell_ops.gemm_axpby(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dt, **kw)
    fns["bw"] = bw
    if case.input_class in ("fp8", "int8"):
        return fns  # their peers: quant_peers

    def eager_expr(a, b, c):
        p = alpha * (a @ b)
        if c is not None and beta != 0:
            p = p + beta * c
        return p.to(out_dt)

    if "addmm" in names:
        cc = c if c is not None else torch.zeros(1, device=a.device, dtype=out_dt).expand(
            *a.shape[:-1], b.shape[-1])
        mixed = out_dt != a.dtype
        if batched:
            fns["addmm"] = ((lambda: torch.baddbmm(cc, a, b, out_dtype=out_dt, beta=beta,
                                                   alpha=alpha)) if mixed else
                            (lambda: torch.baddbmm(cc, a, b, beta=beta, alpha=alpha)))
        else:
            fns["addmm"] = ((lambda: torch.addmm(cc, a, b, out_dtype=out_dt, beta=beta,
                                                 alpha=alpha)) if mixed else
                            (lambda: torch.addmm(cc, a, b, beta=beta, alpha=alpha)))
    if "mm+epi" in names:
        mm = torch.bmm if batched else torch.mm

        def mm_epi():
            p = mm(a, b, out_dtype=out_dt) if out_dt != a.dtype else mm(a, b)
            p = p * alpha if alpha != 1 else p
            return p + beta * c if (c is not None and beta != 0) else p
        fns["mm+epi"] = mm_epi
    if "eager" in names:
        fns["eager"] = lambda: eager_expr(a, b, c)
    for name, mode in (("compile", "default"), ("compile-max", "max-autotune")):
        if name in names:
            compiled = torch.compile(eager_expr, mode=mode, fullgraph=True, dynamic=False)
            fns[name] = lambda compiled=compiled: compiled(a, b, c)
    return fns


def quant_peers(case: suites.Case, a, b, c, bias, x, out_dt, scales, names):
    """PyTorch's own offers for FP8 / INT8 inputs (module docstring): {name: fn}. Scales are
    combined with alpha once, here, outside the timed region, as a user keeps a scale."""
    alpha, act = case.alpha, ACT[case.activation or "none"]
    beta = case.beta if c is not None else 0.0
    xf = case.x_factor if x is not None else 0.0
    forms = {}  # provider name -> fn(a, b, c, bias, x, s1, s2)
    s1, s2 = scales

    def epilogue(p, c, bias, x, dtype):
        """+ beta * c + bias, activation, + xf * x, with c, bias, x in `dtype` (as written)."""
        if c is not None and beta != 0:
            p = p + (c.to(dtype) if beta == 1 else beta * c.to(dtype))
        if bias is not None:
            p = p + bias.to(dtype)
        d = act(p)
        if x is not None and xf != 0:
            d = d + xf * x.to(dtype)
        return d

    if case.input_class == "fp8":
        s1 = s1 * alpha if alpha != 1 else s1  # scale_a * alpha, scale_b
        # As 0-dim tensors (the same values): torch.compile's max-autotune lowering of _scaled_mm
        # (torch 2.11) takes a tensor-wise scale only in that shape, and fails on shape (1,).
        s1, s2 = s1.reshape(()), s2.reshape(())
        # _scaled_mm's own bias: (N,) in the output dtype, bf16/fp16 output only.
        bias_arg = bias is not None and out_dt in (torch.bfloat16, torch.float16)

        def scaled_mm(a, b, c, bias, x, sa, sb):
            p = torch._scaled_mm(a, b, sa, sb, bias=bias if bias_arg else None, out_dtype=out_dt)
            return epilogue(p, c, None if bias_arg else bias, x, out_dt)

        def exact(a, b, c, bias, x, sa, sb):
            p = torch._scaled_mm(a, b, sa, sb, out_dtype=torch.float32)
            return epilogue(p, c, bias, x, torch.float32).to(out_dt)
        forms["scaled_mm"] = scaled_mm
        forms["eager"] = forms["compile"] = exact
        forms["compile-lp"] = scaled_mm
        forms["compile-max"] = exact if case.has_epilogue else scaled_mm
    elif case.scaled:  # int8 -> float with scales
        s1, s2 = s1 * s2 * alpha, None  # one float32 scale: scale_a * scale_b * alpha

        def exact(a, b, c, bias, x, s, _):
            p = torch._int_mm(a, b).float() * s
            return epilogue(p, c, bias, x, torch.float32).to(out_dt)
        forms["eager"] = forms["compile"] = forms["compile-max"] = exact
    else:  # int8 -> int32: integer alpha and beta, no scales
        ia, ib = int(alpha), int(beta)

        def int_mm(a, b, c, bias, x, _, __):
            p = torch._int_mm(a, b)
            p = p * ia if ia != 1 else p
            return p + ib * c if (c is not None and ib != 0) else p
        forms["int_mm"] = forms["compile-max"] = int_mm

    fns = {}
    for name in applicable_peers(case, names):
        form = forms.get(name)
        if form is None:
            continue
        if name.startswith("compile"):
            mode = "max-autotune" if name == "compile-max" else "default"
            form = torch.compile(form, mode=mode, fullgraph=True, dynamic=False)
        fns[name] = lambda form=form: form(a, b, c, bias, x, s1, s2)
    return fns


def reference(case: suites.Case, a, b, c, bias, x, scales, ref_dt):
    """What our op must return, computed in ref_dt from the inputs upcast (exact for FP8/INT8)."""
    cast = lambda t: None if t is None else t.to(ref_dt)  # noqa: E731
    alpha = case.alpha
    if case.scaled:  # the product of two float32 values is exact in fp64
        alpha *= scales[0].double().item() * scales[1].double().item()
    if case.fused:
        return fused_expr(dataclasses.replace(case, alpha=alpha, return_y=False))(
            cast(a), cast(b), cast(c), cast(bias), cast(x))
    ref = alpha * (cast(a) @ cast(b))
    if c is not None and case.beta != 0:
        ref = ref + case.beta * cast(c)
    return ref


def explain_path(case: suites.Case, a, b, c, bias, x, out_dt, scales) -> str:
    """_C.explain / explain_fused for the case; for quantized cases their scale keywords where the
    build takes them, and a message instead of an exception where explain cannot say."""
    fused_args = (a, b, c, bias, x, case.alpha, case.beta if c is not None else 0.0,
                  case.x_factor if x is not None else 1.0, case.activation, case.return_y)
    if not case.gpu_only:  # as before issue #9
        if case.fused:
            return blackwell_ops._C.explain_fused(*fused_args, None)
        return blackwell_ops._C.explain(a, b, c, case.alpha, case.beta, out_dt)
    kw = {"scale_a": scales[0], "scale_b": scales[1]} if case.scaled else {}
    try:
        try:
            if case.fused:
                return blackwell_ops._C.explain_fused(*fused_args, out_dt, **kw)
            return blackwell_ops._C.explain(a, b, c, case.alpha, case.beta, out_dt, **kw)
        except TypeError:
            if not kw:
                raise
            if case.fused:  # an explain without scale keywords: the path ignores them
                return blackwell_ops._C.explain_fused(*fused_args, out_dt)
            return blackwell_ops._C.explain(a, b, c, case.alpha, case.beta, out_dt)
    except Exception as e:  # noqa: BLE001 - a path we cannot name is reported, not fatal
        return f"(explain failed: {type(e).__name__}: {str(e).splitlines()[0][:160]})"


# ----------------------------------------------------------------------------- timing

def measured_peak_tflops(device: str, input_class: str = "bf16") -> float | None:
    """PyTorch's N^3 product (N = 8192) on random data of the input class: the matmul ceiling the %
    column of that class's cases refers to. bf16: torch.mm; fp8: torch._scaled_mm e4m3 x e4m3 ->
    bf16 with per-tensor scales (use_fast_accum=False); int8: torch._int_mm (TOP/s); tf32:
    torch.mm on fp32 with TF32 on. None on the CPU, or where the GPU cannot run it."""
    if device != "cuda":
        return None
    n = PEAK_N
    if input_class == "fp8":
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()  # K-major, as required
        one = torch.ones((), device=device)
        fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)  # noqa: E731
    elif input_class == "int8":
        a = torch.randint(-128, 128, (n, n), device=device, dtype=torch.int8)
        b = torch.randint(-128, 128, (n, n), device=device, dtype=torch.int8).t()
        fn = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        dt = torch.float32 if input_class == "tf32" else torch.bfloat16
        a = torch.randn(n, n, device=device, dtype=dt)
        b = torch.randn(n, n, device=device, dtype=dt)
        fn = lambda: torch.mm(a, b)  # noqa: E731
    try:
        with tf32_matmuls(input_class == "tf32"):
            t = statistics.median(Timer(device)(fn, reps=10, warmup=10))  # clocks up first
    except RuntimeError as e:  # e.g. no FP8 on this GPU: its cases get no % of peak
        print(f"no {input_class} peak: {str(e).splitlines()[0][:160]}", file=sys.stderr)
        return None
    return 2 * n**3 / t / 1e9


def machine_facts(device: str) -> dict:
    facts = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
        "blackwell_ops": blackwell_ops.__version__, "host": platform.node(),
    }
    try:
        facts["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                         capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        facts.update(gpu=p.name, sms=p.multi_processor_count, capability=f"{p.major}.{p.minor}")
        try:
            facts["nvidia_smi"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,"
                 "driver_version", "--format=csv,noheader"], capture_output=True,
                text=True).stdout.strip()
        except OSError:
            pass
    else:
        facts["cpu"] = platform.processor() or platform.machine()
    return facts


# ----------------------------------------------------------------------------- running

def run_case(case, device, names, timer, reps, warmup, graphs=False):
    with tf32_matmuls(case.tf32):  # compiled peers are compiled inside too
        return _run_case(case, device, names, timer, reps, warmup, graphs)


def graphed(fn):
    """fn's call captured in a CUDA graph (after warm-up calls on a side stream, as
    torch.cuda.graph's docs ask): (the graph's replay, the captured output)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph.replay, out


def case_providers(case: suites.Case, a, b, c, bias, x, out_dt, scales, names=None) -> dict:
    """{name: fn}: our op ("bw") and the case's peers among `names` (None: its defaults), for
    16/32-bit, fused and FP8/INT8 cases alike. Used by run_case and benchmarks/tune.py."""
    peers = applicable_peers(case, names)
    if case.fused:
        fns = fused_providers(case, a, b, c, bias, x, peers,
                              out_dt if case.gpu_only else None, scales)
    else:
        fns = providers(case, a, b, c, out_dt, peers, scales)
    if case.input_class in ("fp8", "int8"):
        fns.update(quant_peers(case, a, b, c, bias, x, out_dt, scales, peers))
    return fns


def tolerance(case: suites.Case, out_dt) -> float:
    """The relative error our answer may have: the output type's, TF32's for TF32 cases."""
    return TF32_TOL if case.tf32 else TOL[out_dt]


def _run_case(case, device, names, timer, reps, warmup, graphs=False):
    a, b, c, out_dt = make_operands(case, device)
    bias, x = make_fused_extras(case, device, out_dt) if case.fused else (None, None)
    scales = make_scales(case, device)
    fns = case_providers(case, a, b, c, bias, x, out_dt, scales, names)
    # Correctness of our op first, against an fp32 (fp64 for fp64) reference; fp64 from the
    # exact upcast inputs for FP8/INT8, and for TF32 (an fp32 product would itself run in TF32).
    ref_dt = torch.float64 if (a.dtype == torch.float64 or case.gpu_only) else torch.float32
    ref = reference(case, a, b, c, bias, x, scales, ref_dt)
    out = fns["bw"]()
    out = out[0] if (case.fused and case.return_y) else out
    path = explain_path(case, a, b, c, bias, x, out_dt, scales)
    err = _rel_err(out, ref)
    tol = tolerance(case, out_dt)
    ok = (out.shape == ref.shape and out.dtype == out_dt and bool(torch.isfinite(out).all())
          and (torch.equal(out.to(ref_dt), ref) if out_dt == torch.int32 else err <= tol))
    del out
    row = {"case": case.name, **{k: v for k, v in case.__dict__.items()}, "flops": case.flops,
           "bytes": (a.numel() * a.element_size() + b.numel() * b.element_size()
                     + (c.numel() * c.element_size() if c is not None else 0)
                     + (x.numel() * x.element_size() if x is not None else 0)
                     + (bias.numel() * bias.element_size() if bias is not None else 0)
                     + (1 + case.return_y) * case.m * case.n * case.l
                     * torch.empty((), dtype=out_dt).element_size()),
           "rel_err": err, "tol": tol, "correct": ok, "path": path,
           "peak_class": case.input_class, "results": {}}
    runnable = {}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        try:
            res = fn()  # first call: compiles for torch.compile peers
            if device == "cuda":
                torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - a peer that cannot run this case is reported
            row["results"][name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
            continue
        first = time.perf_counter() - t0
        # Each answer's distance from the reference, for the record (only ours must pass): a
        # peer far from ours computes something else (the scaled_mm form rounds twice).
        answer_err = _rel_err(res[0] if isinstance(res, tuple) else res, ref)
        del res
        runnable[name] = fn
        row["results"][name] = {"rel_err": answer_err}
        if name.startswith("compile"):
            row["results"][name]["compile_s"] = first
    if graphs:
        runnable = _graph_providers(runnable, row, ref, tol, ref_dt, out_dt, case)
    for name, times in interleaved_times(runnable, timer, reps, warmup).items():
        row["results"][name].update(median_ms=statistics.median(times),
                                    p20_ms=quantile(times, 0.2), p80_ms=quantile(times, 0.8))
    del ref
    return row


def _graph_providers(fns: dict, row: dict, ref, tol, ref_dt, out_dt, case) -> dict:
    """--graphs: {name: replay of fn captured in a CUDA graph}; a provider that cannot be captured
    is reported and left out. Our op's captured output is poisoned, replayed and checked again
    (row["correct"] then needs both answers)."""
    replays = {}
    for name, fn in fns.items():
        try:
            replay, out = graphed(fn)
        except Exception as e:  # noqa: BLE001 - reported like a peer that cannot run the case
            row["results"][name] = {"error": f"graph capture: {type(e).__name__}: "
                                             f"{str(e).splitlines()[0][:200]}"}
            continue
        replays[name] = replay
        if name == "bw":
            out = out[0] if (case.fused and case.return_y) else out
            if out.is_floating_point():
                out.fill_(float("nan"))
            else:
                out.fill_(-2**31)
            replay()
            torch.cuda.synchronize()
            err = _rel_err(out, ref)
            row["graph_rel_err"] = err
            row["correct"] = row["correct"] and bool(torch.isfinite(out).all()) and (
                torch.equal(out.to(ref_dt), ref) if out_dt == torch.int32 else err <= tol)
    return replays


TIMING_ROUNDS = 5
# Untimed runs of a call before each of its timed bursts on GPU (--warmup; tune.py too): under the
# H200's power limit a burst begins in the clock state the previous provider left, and 25 runs
# (about 25 ms at 8192^3) let it settle on its own (docs/results/h200-session9/probe_bias.txt).
GPU_WARMUP = 25


def interleaved_times(fns: dict, timer, reps: int, warmup: int) -> dict:
    """{name: reps times (ms)} of each fn, in TIMING_ROUNDS rounds with the order rotated each
    round (blackwell_ops.timing.interleaved_times, which says why)."""
    return timing.interleaved_times(fns, timer, reps, warmup, TIMING_ROUNDS)


def _rel_err(out, ref) -> float:
    """Relative Frobenius distance of out from ref (in ref's dtype); inf for a wrong shape."""
    if out.shape != ref.shape:
        return math.inf
    return ((out.to(ref.dtype) - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def summarize(rows, peaks: dict):
    """Speedups vs the best peer, TFLOP/s, % of the peak of each case's input class, GB/s where
    memory-bound (the H200's 4.8 TB/s against that peak: the roofline's ridge); the geomean."""
    for row in rows:
        peak = peaks.get(row.get("peak_class", "bf16"))
        ridge_flops_per_byte = (peak * 1e12) / 4.8e12 if peak else 10.0
        res = row["results"]
        ours = res.get("bw", {}).get("median_ms")
        peers = {k: v["median_ms"] for k, v in res.items() if k != "bw" and "median_ms" in v}
        best = min(peers.items(), key=lambda kv: kv[1]) if peers else (None, None)
        row["best_peer"], row["best_peer_ms"] = best
        row["speedup"] = best[1] / ours if ours and best[1] else None
        row["tflops"] = row["flops"] / ours / 1e9 if ours else None
        row["pct_peak"] = 100 * row["tflops"] / peak if (peak and row["tflops"]) else None
        row["memory_bound"] = row["flops"] / row["bytes"] < ridge_flops_per_byte
        row["gbps"] = row["bytes"] / ours / 1e6 if ours else None
    speedups = [r["speedup"] for r in rows if r["speedup"]]
    geomean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
    return geomean


def write_outputs(out_dir: pathlib.Path, rows, meta, geomean):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps({"meta": meta, "geomean_speedup": geomean,
                                                       "cases": rows}, indent=1))
    providers_seen = list(dict.fromkeys(p for r in rows for p in r["results"]))
    compiled = [p for p in providers_seen if p.startswith("compile")]
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "path", "rel_err", "correct", "best_peer", "speedup", "tflops",
                    "pct_peak", "gbps"] + [f"{p}_ms" for p in providers_seen]
                   + [f"{p}_compile_s" for p in compiled] + ["peak_class", "target"])
        for r in rows:
            w.writerow([r["case"], r["path"], f"{r['rel_err']:.3e}", r["correct"], r["best_peer"],
                        _f(r["speedup"]), _f(r["tflops"]), _f(r["pct_peak"]), _f(r["gbps"])]
                       + [_f(r["results"].get(p, {}).get("median_ms"), 4) for p in providers_seen]
                       + [_f(r["results"].get(p, {}).get("compile_s"), 1) for p in compiled]
                       + [r.get("peak_class", ""), _f(r.get("target"), 2)])
    (out_dir / "command.txt").write_text(meta["command"] + "\n")
    plot(out_dir, rows, providers_seen, meta)


def _f(x, nd=3):
    return "" if x is None else f"{x:.{nd}f}"


def plot(out_dir, rows, providers_seen, meta):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots written", file=sys.stderr)
        return
    labels = [r["case"] for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows)), 6))
    width = 0.8 / max(1, len(providers_seen))
    for i, p in enumerate(providers_seen):
        ys = [r["flops"] / r["results"][p]["median_ms"] / 1e9
              if "median_ms" in r["results"].get(p, {}) else 0 for r in rows]
        ax.bar([xi + i * width for xi in x], ys, width, label=p)
    ax.set_xticks([xi + 0.4 - width / 2 for xi in x])
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"gemm_axpby, {meta.get('gpu', meta.get('cpu', ''))}, torch {meta['torch']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "tflops.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows)), 5))
    sp = [r["speedup"] or 0 for r in rows]
    ax.bar(list(x), sp, color=["tab:green" if s >= 1 else "tab:red" for s in sp])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("speedup vs best peer")
    ax.set_title(f"bw.gemm_axpby vs the best of {', '.join(p for p in providers_seen if p != 'bw')}"
                 f" ({meta.get('gpu', meta.get('cpu', ''))})")
    fig.tight_layout()
    fig.savefig(out_dir / "speedup.png", dpi=120)
    plt.close(fig)


def _target_cell(r) -> str:
    t = r.get("target")
    if t is None:
        return ""
    return f">={t:.2f} " + ("met" if (r["speedup"] or 0) >= t else "MISS")


def print_table(rows, geomean, peaks) -> str:
    """Prints the table and returns its text. peaks: {input class: TFLOP/s}, or the bf16 peak."""
    if not isinstance(peaks, dict):
        peaks = {"bf16": peaks}
    width = min(96, max([58] + [len(r["case"]) for r in rows]))
    targets = any(r.get("target") is not None for r in rows)
    head = (f"{'case':{width}} {'ours ms':>9} {'TFLOP/s':>8} {'%peak':>6} {'GB/s':>7} "
            f"{'best peer':>11} {'peer ms':>9} {'speedup':>8}" + (f" {'target':>10}" if targets
                                                                  else ""))
    lines = [head, "-" * len(head)]
    for r in rows:
        ours = r["results"].get("bw", {}).get("median_ms")
        flag = "" if r["correct"] else "  WRONG"
        lines.append(
            f"{r['case'][:width]:{width}} {_f(ours):>9} {_f(r['tflops'], 1):>8} "
            f"{_f(r['pct_peak'], 1):>6} {_f(r['gbps'], 0) if r['memory_bound'] else '':>7} "
            f"{str(r['best_peer']):>11} {_f(r['best_peer_ms']):>9} "
            f"{(_f(r['speedup'], 2) + 'x') if r['speedup'] else '':>8}"
            + (f" {_target_cell(r):>10}" if targets else "") + flag)
    classes = list(dict.fromkeys(r.get("peak_class", "bf16") for r in rows)) or ["bf16"]
    measured = [f"{cls} {peaks[cls]:.0f}" for cls in classes if peaks.get(cls)]
    if classes == ["bf16"] and peaks.get("bf16"):  # as before issue #9
        peak_note = f"; measured bf16 matmul peak {peaks['bf16']:.0f} TFLOP/s"
    elif measured:
        peak_note = (f"; % peak against PyTorch's {PEAK_N}^3 product of the same input class, "
                     f"measured (TFLOP/s; int8 TOP/s): {', '.join(measured)}")
    else:
        peak_note = ""
    lines.append(f"geometric mean speedup vs best peer: {_f(geomean, 3)}x over {len(rows)} cases"
                 + peak_note)
    if targets:
        hit = [r for r in rows if r.get("target") is not None]
        met = sum((r["speedup"] or 0) >= r["target"] for r in hit)
        lines.append(f"issue targets met: {met} of {len(hit)}")
    text = "\n".join(lines)
    print(text)
    return text


# What each peer computes, for --list (module docstring: the same in words).
PEER_FORMS = {
    "addmm": "torch.addmm(c, a, b, beta=, alpha=[, out_dtype=]) / baddbmm (cuBLAS epilogue)",
    "mm+epi": "torch.mm(a, b[, out_dtype]) then * alpha + beta * c in eager ops",
    "scaled_mm": "torch._scaled_mm(a, b, scale_a*alpha, scale_b, bias=bias, out_dtype=out) "
                 "[use_fast_accum=False], then + beta * c, act in the output dtype",
    "int_mm": "torch._int_mm(a, b) (int32)",
    "eager": "the composite with our semantics, as written: fp32 product (16-bit: a @ b; fp8: "
             "_scaled_mm(out_dtype=float32); int8: _int_mm(a, b).float() * scale), epilogue in "
             "fp32, .to(out) once",
    "compile": "torch.compile(eager, mode='default', fullgraph=True)",
    "compile-lp": "torch.compile(scaled_mm form)",
    "compile-max": "torch.compile(..., mode='max-autotune') of eager (of scaled_mm / int_mm where "
                   "the case has no epilogue)",
}


def list_cases(suite: str, cases, peer_names) -> None:
    """--list: the cases, their input class, work and target, and the peers each is timed
    against; touches no GPU."""
    width = max([40] + [len(c.name) for c in cases])
    print(f"suite '{suite}': {len(cases)} cases")
    print(f"{'case':{width}} {'class':>5} {'GFLOP':>8} {'target':>7}  peers (besides bw = ours)")
    used = []
    for c in cases:
        peers = applicable_peers(c, peer_names)
        used += peers
        target = f">={c.target:.2f}x" if c.target is not None else ""
        print(f"{c.name:{width}} {c.input_class:>5} {c.flops / 1e9:8.1f} {target:>7}  "
              f"{', '.join(peers) or '(none)'}" + ("  [GPU only]" if c.gpu_only else ""))
    ours = ("bw: blackwell_ops.gemm_axpby(a, b, c, alpha, beta, out_dtype[, scale_a, scale_b]), "
            "or gemm_fused(...) for cases with an activation")
    print("\n" + ours)
    for name in dict.fromkeys(used):
        print(f"{name}: {PEER_FORMS[name]}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="quick", choices=sorted(suites.SUITES))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--peers", default=None,
                   help=f"comma-separated, from {', '.join(ALL_PROVIDERS[1:])}; each case takes "
                        "those that apply to it (--list shows which). Default: all that apply "
                        "but compile-max (INT8 cases: compile-max too)")
    p.add_argument("--reps", type=int, default=None, help="timed runs per provider "
                   "(default 30 on GPU, 5 on CPU)")
    p.add_argument("--warmup", type=int, default=None,
                   help="untimed runs of a call before each of its timed bursts (default 25 on "
                        "GPU, 1 on CPU): "
                        "under the GPU's power limit, a burst timed right after another "
                        "provider's inherits that provider's clock state")
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--out", type=pathlib.Path, default=None, help="directory for the outputs")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="start no new case after S seconds (the report says which were left out)")
    p.add_argument("--replot", type=pathlib.Path, metavar="DIR",
                   help="redraw DIR's plots from its results.json, measuring nothing")
    p.add_argument("--graphs", action="store_true",
                   help="time CUDA graph replays of each provider's call (captured once per case) "
                        "instead of eager calls; GPU only")
    p.add_argument("--list", action="store_true",
                   help="print the suite's cases and the peers each is measured against, and "
                        "exit (no GPU needed)")
    args = p.parse_args(argv)
    if args.replot:
        data = json.loads((args.replot / "results.json").read_text())
        rows = data["cases"]
        plot(args.replot, rows, list(dict.fromkeys(p for r in rows for p in r["results"])),
             data["meta"])
        return 0

    peer_names = [n for n in args.peers.split(",") if n] if args.peers is not None else None
    bad = [n for n in peer_names or () if n not in ALL_PROVIDERS[1:]]
    if bad:
        p.error(f"unknown peers {bad}; choose from {ALL_PROVIDERS[1:]}")
    reps = args.reps or (30 if args.device == "cuda" else 5)
    warmup = args.warmup if args.warmup is not None else (GPU_WARMUP if args.device == "cuda" else 1)
    cases = [c for c in suites.SUITES[args.suite] if args.filter in c.name]
    if args.list:
        list_cases(args.suite, cases, peer_names)
        return 0
    if args.device == "cpu":
        runnable = [c for c in cases if not c.gpu_only]
        if cases and not runnable:
            print(f"suite '{args.suite}' is GPU-only: its FP8/INT8/TF32 cases need a CUDA GPU "
                  "(compute capability 9.0 for our quantized kernels; torch._scaled_mm needs 8.9+)."
                  " Run it with --device cuda, or --list to see its cases.", file=sys.stderr)
            return 2
        if len(runnable) < len(cases):
            print(f"--device cpu: leaving out {len(cases) - len(runnable)} GPU-only "
                  "(FP8/INT8/TF32) cases", file=sys.stderr)
        cases = [c for c in runnable if c.dtype in ("float32", "float64")] or runnable
    if args.graphs and args.device != "cuda":
        p.error("--graphs needs --device cuda")
    meta = machine_facts(args.device)
    meta["command"] = "python " + " ".join(shlex.quote(x) for x in
                                           [os.path.relpath(__file__, ROOT)] + (argv or sys.argv[1:]))
    names = ["bw"] + list(dict.fromkeys(n for case in cases
                                        for n in applicable_peers(case, peer_names)))
    meta.update(suite=args.suite, reps=reps, warmup=warmup, providers=names, graphs=args.graphs,
                l2_flush_bytes=L2_FLUSH_BYTES if args.device == "cuda" else 0)
    # The bf16 peak always (as before); the FP8/INT8/TF32 ones where the run has such cases.
    classes = list(dict.fromkeys(["bf16"] + [c.input_class for c in cases]))
    peaks = {cls: measured_peak_tflops(args.device, cls) for cls in classes}
    meta["peak_bf16_tflops"] = peaks["bf16"]
    meta["peaks_tflops"] = peaks
    meta["peak_shape"] = f"{PEAK_N}^3"
    if any(c.input_class == "fp8" for c in cases):
        meta["scaled_mm"] = "use_fast_accum=False (default): fp32 accumulation, as ours"
    timer = Timer(args.device)
    try:
        from tqdm import tqdm
        it = tqdm(cases, desc=f"{args.suite} on {args.device}", file=sys.stderr)
    except ImportError:
        it = cases
    rows = []
    started = time.perf_counter()
    for i, case in enumerate(it):
        if args.time_limit is not None and time.perf_counter() - started > args.time_limit:
            meta["left_out"] = [c.name for c in cases[i:]]
            print(f"time limit reached: {len(cases) - i} cases left out", file=sys.stderr)
            break
        if it is cases:
            print(f"[{i + 1}/{len(cases)}] {case.name}", file=sys.stderr, flush=True)
        rows.append(run_case(case, args.device, peer_names, timer, reps, warmup, args.graphs))
        torch._dynamo.reset()  # keep compile caches from piling up across shapes
        if args.out:  # partial results survive an interrupted run
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "results.json").write_text(json.dumps(
                {"meta": meta, "partial": True, "cases": rows}, indent=1))
    geomean = summarize(rows, peaks)
    if args.out:
        write_outputs(args.out, rows, meta, geomean)
    table = print_table(rows, geomean, peaks)
    if args.graphs:
        note = "timed as CUDA graph replays (--graphs), the L2 flushed before each"
        print(note)
        table += "\n" + note
    if meta.get("left_out"):
        left = f"left out by --time-limit: {len(meta['left_out'])} cases: {meta['left_out']}"
        print(left)
        table += "\n" + left
    if args.out:
        (args.out / "table.txt").write_text(table + "\n")
    wrong = [r["case"] for r in rows if not r["correct"]]
    if wrong:
        print(f"WRONG ANSWERS from bw.gemm_axpby: {wrong}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
