#!/usr/bin/env python3
"""Run compute-sanitizer over every compiled kernel for this GPU.

    python tools/sanitize.py --out DIR                  # memcheck, racecheck, synccheck; all kernels
    python tools/sanitize.py --out DIR --kernels 'bf16_bf16_ak' --tools memcheck,synccheck
    python tools/sanitize.py --list                     # what would run, without running it

Each (kernel, tool) pair is one process,

    compute-sanitizer --tool TOOL --error-exitcode 99 --target-processes all \\
        --kernel-name kns=cutlass python tools/sanitize.py --drive KERNEL

whose driver launches exactly that kernel through blackwell_ops._C.run_kernel (bypassing the
planner) on a tiny problem with tails (--shape, 200x136x72 by default): with C, without C, and
batched (L=2) with C (a scale kernel, which has no C: without C, unbatched and batched), operands
laid out as the kernel's a_major/b_major, dtypes as its ab/cd. It compares each result with an
fp64 reference and exits 1 on a mismatch. --kernel-name kns=cutlass limits the checking to
kernels whose name contains "cutlass" (ours are cutlass::device_kernel<GemmUniversal...>), so
torch's own kernels (the copies and fills around the launch) add no noise or time; the
script confirms from each kernel object's symbols (build/kernels/*.o, via cuobjdump) that the
filter matches it. PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor its own allocation, so
memcheck sees an access past a tensor's end.

Writes DIR/sanitize.json (per run: kernel, tool, status, exit code, the sanitizer's summary line,
wall time, log path), DIR/sanitize.txt (the same as a table) and DIR/logs/KERNEL.TOOL.log. Exits 1
if any run failed, 2 if nothing could run (no GPU, no kernels, no compute-sanitizer).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # a checkout without `pip install -e .`; an install comes first

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
DEFAULT_TOOLS = ("memcheck", "racecheck", "synccheck")
ERROR_EXITCODE = 99
DRIVER_OK = "DRIVER OK"
SUMMARY_RE = re.compile(r"(?:ERROR|RACECHECK) SUMMARY: [^\n]*")
# Relative (Frobenius) error bound by output dtype, as in tests/helpers.py.
TOL = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 1e-5, "int32": 0.0}
# Inputs whose kernels are less exact than the output type: tf32 rounds the inputs to 10 bits;
# the FP8 tensor core accumulates with fewer bits than fp32 between promotions.
IN_TOL = {"tf32": 5e-3, "float8_e4m3fn": 5e-4, "float8_e5m2": 5e-4}


def find_compute_sanitizer() -> str | None:
    """$COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin or /usr/local/cuda/bin."""
    cands = [os.environ.get("COMPUTE_SANITIZER"), shutil.which("compute-sanitizer")]
    if os.environ.get("CUDA_HOME"):
        cands.append(os.path.join(os.environ["CUDA_HOME"], "bin", "compute-sanitizer"))
    cands.append("/usr/local/cuda/bin/compute-sanitizer")
    return next((c for c in cands if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def parse_shape(text: str) -> tuple[int, int, int]:
    try:
        m, n, k = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MxNxK, got {text!r}") from None
    return m, n, k


def parse_regex(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None


def parse_tools(text: str) -> list[str]:
    tools = list(dict.fromkeys(t for t in re.split(r"[,\s]+", text) if t))
    bad = [t for t in tools if t not in TOOLS]
    if bad or not tools:
        raise argparse.ArgumentTypeError(f"unknown tool(s) {bad or text!r}; choose from "
                                         f"{', '.join(TOOLS)}")
    return tools


# The driver: the process compute-sanitizer watches ------------------------------------------

def drive(name: str, shape: tuple[int, int, int]) -> int:
    import torch
    from blackwell_ops.fused import ACTIVATION_FN
    from blackwell_ops import _C

    configs = {k["name"]: k for k in _C.compiled_kernels()}
    if name not in configs:
        print(f"FAIL: no compiled kernel named {name}")
        return 1
    cfg = configs[name]
    fused = cfg["epilogue"] in ("fused", "lean")  # else "axpby" or "scale" (no C)
    aux = cfg["epilogue"] == "fused"     # lean kernels have no X and Y
    if fused:
        _C.pin_kernel(name)  # the op's planner takes this kernel, whichever others fit

    def dtype_of(type_name):  # "tf32" kernels read float32 tensors (with TF32 allowed)
        return torch.float32 if type_name == "tf32" else getattr(torch, type_name)

    ta, tb, cd = dtype_of(cfg["ab"]), dtype_of(cfg.get("b", cfg["ab"])), dtype_of(cfg["cd"])
    torch.backends.cuda.matmul.allow_tf32 = cfg["ab"] == "tf32"
    m, n, k = shape
    gen = torch.Generator().manual_seed(0)

    def operand(lead, rows, cols, unit_stride_cols, dtype):
        """(CPU tensor, GPU view) of shape (*lead, rows, cols), unit stride along cols or rows;
        made on the CPU so the only GPU work is copies and the kernel."""
        shape_ = (*lead, rows, cols) if unit_stride_cols else (*lead, cols, rows)
        if dtype.is_floating_point:
            t = torch.randn(shape_, generator=gen).to(dtype)
        else:
            t = torch.randint(-100, 100, shape_, generator=gen).to(dtype)
        return (t, t.cuda()) if unit_stride_cols else (t.mT, t.cuda().mT)

    failures = 0
    exact = cd == torch.int32
    cases = (((), True), ((), False), ((2,), True))
    if cfg["epilogue"] == "scale":  # a kernel without C: the calls without one
        cases = (((), False), ((2,), False))
    for lead, with_c in cases:
        a, a_gpu = operand(lead, m, k, cfg["a_major"] == "K", ta)
        b, b_gpu = operand(lead, k, n, cfg["b_major"] == "MN", tb)
        c, c_gpu = operand(lead, m, n, True, cd) if with_c else (None, None)
        alpha, beta = ((3.0, -2.0) if with_c else (2.0, 0.0)) if exact else \
            ((1.5, -0.5) if with_c else (0.75, 0.0))
        what = f"{name} {m}x{n}x{k} L={lead[0] if lead else 1} {'with' if with_c else 'without'} c"
        if fused:
            # Through bw.gemm_fused, every extra operand present (with C) or none (without):
            # bias, X and the Y store (bias alone on a lean kernel); explain_fused first, so the
            # kernel is the one under test.
            extras = (operand((), 1, n, True, cd),
                      operand(lead, m, n, True, cd) if aux else (None, None)) if with_c \
                else ((None, None), (None, None))
            (bias, bias_gpu), (x, x_gpu) = extras
            if bias is not None:
                bias, bias_gpu = bias[0], bias_gpu[0]
            act = cfg["activation"]
            return_y = with_c and aux
            args = (a_gpu, b_gpu, c_gpu, bias_gpu, x_gpu, alpha, beta, 2.0, act, return_y, None)
            path = _C.explain_fused(*args)
            if path != f"kernel: {name}":
                print(f"FAIL {what}: the op would not take this kernel: {path}")
                failures += 1
                continue
            import blackwell_ops
            out = blackwell_ops.gemm_fused(a_gpu, b_gpu, c_gpu, bias_gpu, x_gpu, alpha=alpha,
                                           beta=beta, x_factor=2.0, activation=act,
                                           return_y=return_y)
            d = out[0] if return_y else out
            ref = alpha * torch.matmul(a.double(), b.double())
            if with_c:
                ref = ref + beta * c.double() + bias.double()
            ref = ACTIVATION_FN[act](ref)
            if x is not None:
                ref = ref + 2.0 * x.double()
        else:
            msg, d = _C.run_kernel(a_gpu, b_gpu, c_gpu, alpha, beta, cd, name, True)
            if not msg.startswith("ok"):
                print(f"FAIL {what}: run_kernel: {msg}")
                failures += 1
                continue
            ref = alpha * torch.matmul(a.double(), b.double())
            if with_c:
                ref += beta * c.double()
        err = ((d.cpu().double() - ref).norm() / ref.norm()).item()  # .cpu() synchronises
        # A fused activation's slope (up to ~1.13) scales the rounding error of its input.
        tol = max(TOL[cfg["cd"]], IN_TOL.get(cfg["ab"], 0.0))
        tol *= 2 if fused else 1
        ok = err <= tol
        failures += 0 if ok else 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}: relative error {err:.2e} (bound {tol:.0e})")
    if failures:
        return 1
    print(DRIVER_OK)
    return 0


# The runner ----------------------------------------------------------------------------------

def kernel_symbols(name: str) -> list[str] | None:
    """The entry-point symbols of a kernel's object file, or None where they cannot be read."""
    try:
        from blackwell_ops import sass
    except ImportError:
        return None
    path, cuobjdump = sass.KERNEL_DIR / f"{name}.o", sass.find_cuobjdump()
    if cuobjdump is None or not path.exists():
        return None
    r = subprocess.run([cuobjdump, "-symbols", str(path)], capture_output=True, text=True)
    return re.findall(r"STO_ENTRY\s+(\S+)", r.stdout) if r.returncode == 0 else None


def sanitizer_command(sanitizer: str, tool: str, name: str, args) -> list[str]:
    cmd = [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXITCODE),
           "--target-processes", "all"]
    if args.kernel_substring:
        cmd += ["--kernel-name", f"kns={args.kernel_substring}"]
    cmd += shlex.split(args.sanitizer_args)
    return cmd + [sys.executable, str(pathlib.Path(__file__).resolve()), "--drive", name,
                  "--shape", "x".join(map(str, args.shape))]


def run_one(cmd: list[str], log: pathlib.Path, timeout: float) -> dict:
    """Runs one sanitizer process (in its own process group, killed whole on timeout)."""
    env = dict(os.environ, PYTORCH_NO_CUDA_MEMORY_CACHING="1", PYTHONUNBUFFERED="1")
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    wall = time.monotonic() - start
    log.write_text(shlex.join(cmd) + "\n\n" + out)
    summaries = SUMMARY_RE.findall(out)
    rc = proc.returncode
    if timed_out:
        status = f"timeout after {timeout:.0f} s"
    elif rc == ERROR_EXITCODE:
        status = "sanitizer errors"
    elif rc != 0:
        status = f"failed (exit code {rc})"
    elif DRIVER_OK not in out:
        status = "failed (the driver did not finish)"
    elif not summaries:
        status = "failed (no sanitizer summary in the output)"
    else:
        status = "ok"
    return {"status": status, "exit_code": rc, "summary": "; ".join(summaries),
            "wall_s": round(wall, 1), "log": str(log)}


def write_table(runs: list[dict], path: pathlib.Path, header: list[str]):
    cols = [("kernel", "kernel"), ("tool", "tool"), ("status", "status"), ("exit_code", "rc"),
            ("wall_s", "wall s"), ("summary", "summary")]
    rows = [[str(r[key]) for key, _ in cols] for r in runs]
    widths = [max([len(title)] + [len(row[i]) for row in rows]) for i, (_, title) in
              enumerate(cols)]

    def fmt(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    lines = header + ["", fmt([title for _, title in cols]), fmt(["-" * w for w in widths])]
    lines += [fmt(row) for row in rows]
    failed = sum(r["status"] != "ok" for r in runs)
    lines += ["", f"{len(runs)} runs, {failed} failed"]
    path.write_text("\n".join(lines) + "\n")


def select_kernels(pattern: re.Pattern | None) -> tuple[list[dict], str]:
    """(the compiled kernels for this GPU matching pattern, why there are none)."""
    try:
        import torch
        from blackwell_ops import _C
    except ImportError as e:
        return [], f"blackwell_ops._C cannot be imported ({e}); build it with `pip install -e .`"
    if not torch.cuda.is_available():
        return [], "no CUDA GPU is visible (torch.cuda.is_available() is False)"
    major, minor = torch.cuda.get_device_capability()
    arch = major * 10 + minor
    kernels = [k for k in _C.compiled_kernels() if k["arch"] == arch]
    if not kernels:
        return [], f"this build has no kernels for compute capability {major}.{minor}"
    kernels = [k for k in kernels if pattern is None or pattern.search(k["name"])]
    if not kernels:
        return [], f"no kernel for this GPU matches --kernels {pattern.pattern!r}"
    return kernels, ""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--out", type=pathlib.Path, help="directory for sanitize.json, sanitize.txt, "
                   "logs/ (required unless --list)")
    p.add_argument("--kernels", type=parse_regex, metavar="REGEX",
                   help="only kernels whose name matches (re.search)")
    p.add_argument("--tools", type=parse_tools, default=list(DEFAULT_TOOLS),
                   help=f"comma-separated, from {', '.join(TOOLS)} "
                        f"(default {','.join(DEFAULT_TOOLS)})")
    p.add_argument("--jobs", type=int, default=4, help="sanitizer processes at once (default 4)")
    p.add_argument("--timeout", type=float, default=240, help="seconds per run (default 240)")
    p.add_argument("--shape", type=parse_shape, default=(200, 136, 72), metavar="MxNxK",
                   help="the driver's problem (default 200x136x72)")
    p.add_argument("--kernel-substring", default="cutlass",
                   help="check only kernels whose name contains this (compute-sanitizer "
                        "--kernel-name kns=...); '' checks every kernel (default cutlass)")
    p.add_argument("--sanitizer-args", default="", metavar="ARGS",
                   help="more compute-sanitizer options, one shell-quoted string")
    p.add_argument("--list", action="store_true", help="print the runs and exit")
    p.add_argument("--drive", metavar="KERNEL", help="(what compute-sanitizer runs) launch "
                   "KERNEL on the --shape problems and check the results")
    args = p.parse_args(argv)
    if args.drive:
        return drive(args.drive, args.shape)
    if not args.list and args.out is None:
        p.error("--out DIR is required (or --list)")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")

    kernels, why = select_kernels(args.kernels)
    sanitizer = find_compute_sanitizer()
    if not kernels:
        print(f"nothing to sanitize: {why}")
        return 0 if args.list else 2
    tasks = [(k["name"], t) for t in args.tools for k in kernels]
    tasks.sort(key=lambda task: task[1] != "racecheck")  # the slowest first
    if args.list:
        print(f"compute-sanitizer: {sanitizer or 'not found (set COMPUTE_SANITIZER)'}")
        print(f"{len(tasks)} runs ({len(kernels)} kernels x {len(args.tools)} tools), "
              f"{args.jobs} at a time, {args.timeout:.0f} s each at most:")
        for name, tool in tasks:
            print("  " + shlex.join(sanitizer_command(sanitizer or "compute-sanitizer", tool,
                                                      name, args)))
        return 0
    if sanitizer is None:
        print("compute-sanitizer not found: set COMPUTE_SANITIZER or put CUDA's bin on PATH")
        return 2

    import torch
    version = subprocess.run([sanitizer, "--version"], capture_output=True, text=True).stdout
    meta = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "compute_sanitizer": sanitizer,
        "compute_sanitizer_version": (version.strip().splitlines() or ["unknown"])[-1],
        "kernel_filter": f"--kernel-name kns={args.kernel_substring}" if args.kernel_substring
        else "none (every kernel checked)",
        "sanitizer_args": args.sanitizer_args,
        "driver_problems": f"{'x'.join(map(str, args.shape))}: with C, without C, L=2 with C "
                           "(scale kernels: without C, L=1 and 2)",
        "environment": "PYTORCH_NO_CUDA_MEMORY_CACHING=1",
    }
    header = [f"{key}: {value}" for key, value in meta.items() if value]
    print("\n".join(header))
    logs = args.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)

    filter_ok = {}
    for k in kernels:  # a filter that matches none of a kernel's symbols would check nothing
        symbols = kernel_symbols(k["name"])
        filter_ok[k["name"]] = None if symbols is None or not args.kernel_substring else \
            any(args.kernel_substring in s for s in symbols)

    runs = []
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for name, tool in tasks:
            cmd = sanitizer_command(sanitizer, tool, name, args)
            futures[pool.submit(run_one, cmd, logs / f"{name}.{tool}.log", args.timeout)] = \
                (name, tool, cmd)
        for i, fut in enumerate(as_completed(futures), 1):
            name, tool, cmd = futures[fut]
            run = {"kernel": name, "tool": tool, **fut.result(), "command": shlex.join(cmd),
                   "filter_matches_kernel": filter_ok[name]}
            if filter_ok[name] is False:
                run["status"] = f"failed (no symbol of the kernel contains " \
                                f"{args.kernel_substring!r}: nothing was checked)"
            runs.append(run)
            print(f"[{i}/{len(tasks)}] {run['status']:<16} {tool:<9} {name}  {run['wall_s']} s  "
                  f"{run['summary']}", flush=True)

    runs.sort(key=lambda r: (r["kernel"], args.tools.index(r["tool"])))
    ok = all(r["status"] == "ok" for r in runs)
    (args.out / "sanitize.json").write_text(json.dumps(
        {**meta, "ok": ok, "runs": runs}, indent=2) + "\n")
    write_table(runs, args.out / "sanitize.txt", header)
    print(f"{len(runs)} runs, {sum(r['status'] != 'ok' for r in runs)} failed; "
          f"see {args.out / 'sanitize.txt'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
