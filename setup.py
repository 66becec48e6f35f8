"""Build of blackwell_ops: one torch extension, blackwell_ops._C.

Install with `pip install --no-build-isolation -e .` (torch must already be installed: the
extension is built against it). Knobs, all environment variables:

  BW_ARCHS       kernel archs, comma-separated (default "90a,100a"; e.g. "90a" on a Hopper box)
  BW_KERNELS     kernel-set preset from tools/generate_kernels.py: ci, default (default), all
  MAX_JOBS       parallel compile jobs (default: min(cores, memory / 4 GiB); one CUTLASS kernel
                 takes about 3.5 GB of memory and 45-95 s of nvcc)
  NVCC_THREADS   nvcc --threads for each job (default 1)
  DEBUG=1        host code at -O0 -g; kernels keep -O3 but lose -DNDEBUG
  CUDA_HOME      the CUDA toolkit (default: the one holding `nvcc` on PATH, else /usr/local/cuda)
  CUTLASS_PATH   a CUTLASS checkout (default: the headers of the nvidia-cutlass wheel)
  BW_CPU_ONLY=1  build without CUDA even where nvcc exists (what a machine without nvcc gets)

Kernel files are compiled by a build step of our own (build/kernels/build.ninja) rather than
torch's, because each arch's kernels must get only their own -gencode flag and torch's
BuildExtension applies one arch list to every .cu file. Without nvcc, a CPU-only build installs:
the ops then run through ATen on every device (a one-time warning says so on CUDA).
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import setup

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
import generate_kernels  # noqa: E402  (the kernel table)


def find_cuda_home() -> str | None:
    """A toolkit root with bin/nvcc and include/cuda_runtime.h."""
    def is_toolkit(root) -> bool:
        return (pathlib.Path(root, "bin", "nvcc").exists()
                and pathlib.Path(root, "include", "cuda_runtime.h").exists())

    cands = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:  # may be a wrapper outside the toolkit (e.g. /usr/local/bin/nvcc)
        cands.append(str(pathlib.Path(nvcc).resolve().parent.parent))
    cands.append("/usr/local/cuda")
    return next((c for c in cands if c and is_toolkit(c)), None)


CUDA_HOME = None if os.environ.get("BW_CPU_ONLY", "0") == "1" else find_cuda_home()
if CUDA_HOME:
    # torch.utils.cpp_extension reads CUDA_HOME when imported; without this it guesses /usr/local.
    os.environ["CUDA_HOME"] = CUDA_HOME

from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension  # noqa: E402

DEBUG = os.environ.get("DEBUG", "0") == "1"
PRESET = os.environ.get("BW_KERNELS", "default")
ARCHS = [a.strip() for a in os.environ.get("BW_ARCHS", "90a,100a").replace(";", ",").split(",")
         if a.strip()]
for a in ARCHS:
    if a not in ("90a", "100a"):
        sys.exit(f"BW_ARCHS: unknown arch {a!r}; expected 90a and/or 100a")


def default_jobs() -> int:
    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem_gib = 8
    return max(1, min(os.cpu_count() or 1, int(mem_gib // 4)))


MAX_JOBS = int(os.environ.get("MAX_JOBS") or default_jobs())
NVCC_THREADS = int(os.environ.get("NVCC_THREADS", "1"))


def cutlass_include_dirs() -> list[str]:
    root = os.environ.get("CUTLASS_PATH")
    if not root:
        try:
            import cutlass_library
        except ImportError:
            sys.exit("CUTLASS headers not found: `pip install nvidia-cutlass==4.2.0.0` or set "
                     "CUTLASS_PATH to a CUTLASS checkout (see third_party/README.md)")
        root = cutlass_library.source_path
    dirs = [os.path.join(root, "include"), os.path.join(root, "tools", "util", "include")]
    if not os.path.exists(os.path.join(dirs[0], "cutlass", "cutlass.h")):
        sys.exit(f"CUTLASS headers not found under {root}")
    return dirs


def torch_cuda_header_dir() -> list[str]:
    """cusparse.h/cublas_v2.h, which ATen's CUDA headers include, from torch's own wheels when the
    toolkit lacks them (a bare nvcc install)."""
    if CUDA_HOME and pathlib.Path(CUDA_HOME, "include", "cublas_v2.h").exists():
        return []
    import torch
    site = pathlib.Path(torch.__file__).resolve().parent.parent
    for cand in sorted(site.glob("nvidia/cu*/include")) + [site / "nvidia" / "cublas" / "include"]:
        if (cand / "cublas_v2.h").exists():
            return ["-idirafter", str(cand)]
    return []


# Plain CUDA (no CUTLASS, no torch headers) beside the host code of CUDA builds, compiled for every
# arch of BW_ARCHS by the kernel build step: the padded calls' copy kernel.
CUDA_UTIL_SOURCES = ["csrc/ops/pad_copy.cu"]
HOST_SOURCES = ["csrc/bw_ops.cpp", "csrc/module.cpp", "csrc/ops/gemm_axpby.cpp", "csrc/ops/warn.cpp",
                "csrc/ops/gemm_fused.cpp",
                "csrc/gemm/registry.cpp", "csrc/gemm/heuristics.cpp"]
CXX_FLAGS = ["-O0", "-g"] if DEBUG else ["-O3"]  # torch picks the C++ standard (C++20 since 2.10)


class BuildWithKernels(BuildExtension):
    """Compiles the generated kernel files with per-arch nvcc flags, then links them in."""

    def build_extensions(self):
        ext = self.extensions[0]
        kernels = getattr(ext, "bw_kernels", [])
        if CUDA_HOME:
            ext.extra_objects = list(ext.extra_objects or []) + self._compile_kernels(kernels)
        write_build_config(cuda=bool(CUDA_HOME), kernels=kernels)
        super().build_extensions()

    def _compile_kernels(self, kernels) -> list[str]:
        out_dir = ROOT / "build" / "kernels"
        out_dir.mkdir(parents=True, exist_ok=True)
        nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
        common = ["-std=c++17", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC", "-lineinfo",
                  "-O3", f"--threads={NVCC_THREADS}", "-Xptxas=--warn-on-spills",
                  "-I" + str(ROOT / "csrc")] + ["-I" + d for d in cutlass_include_dirs()]
        common += ["-g"] if DEBUG else ["-DNDEBUG"]
        lines = ["ninja_required_version = 1.3", f"nvcc = {nvcc}",
                 f"common = {' '.join(common)}", ""]
        for arch in sorted({k.arch for k in kernels}):
            lines += [f"rule nvcc_sm{arch}",
                      f"  command = $nvcc $common -gencode=arch=compute_{arch}a,code=sm_{arch}a "
                      f"-MD -MF $out.d -c $in -o $out",
                      "  depfile = $out.d", "  deps = gcc", f"  description = nvcc sm_{arch}a $in", ""]
        gencodes = " ".join(f"-gencode=arch=compute_{a},code=sm_{a}" for a in ARCHS)
        lines += ["rule nvcc_util",
                  f"  command = $nvcc $common {gencodes} -MD -MF $out.d -c $in -o $out",
                  "  depfile = $out.d", "  deps = gcc",
                  f"  description = nvcc {','.join(ARCHS)} $in", ""]
        objects = []
        for src in CUDA_UTIL_SOURCES:
            obj = out_dir / (pathlib.Path(src).stem + ".o")
            objects.append(str(obj))
            lines.append(f"build {obj}: nvcc_util {ROOT / src}")
        for k in kernels:
            obj = out_dir / f"{k.name}.o"
            objects.append(str(obj))
            lines.append(f"build {obj}: nvcc_sm{k.arch} {generate_kernels.kernel_path(k)}")
        ninja_file = out_dir / "build.ninja"
        ninja_file.write_text("\n".join(lines) + "\n")
        print(f"blackwell_ops: compiling {len(kernels)} kernels ({PRESET} preset, archs "
              f"{','.join(ARCHS)}) with {MAX_JOBS} jobs", flush=True)
        subprocess.run(["ninja", "-C", str(out_dir), "-f", ninja_file.name, "-j", str(MAX_JOBS)],
                       check=True)
        return objects


def write_build_config(cuda: bool, kernels) -> None:
    """blackwell_ops/_build_config.py: what this build holds, for tests and `info`."""
    text = ("# Written by setup.py at build time; not committed.\n"
            f"CUDA_KERNELS = {cuda!r}\n"
            f"ARCHS = {ARCHS if cuda else []!r}\n"
            f"PRESET = {PRESET!r}\n"
            f"KERNELS = {[k.name for k in kernels]!r}\n"
            f"DEBUG = {DEBUG!r}\n")
    (ROOT / "blackwell_ops" / "_build_config.py").write_text(text)


def make_extension():
    problems = generate_kernels.check()
    if problems:
        sys.exit("csrc/gemm/generated is out of date with tools/generate_kernels.py:\n  "
                 + "\n  ".join(problems) + "\nrun: python tools/generate_kernels.py")
    if not CUDA_HOME:
        why = ("BW_CPU_ONLY=1" if os.environ.get("BW_CPU_ONLY") == "1" else
               "nvcc not found (set CUDA_HOME or put nvcc on PATH)")
        print(f"blackwell_ops: {why}; building the CPU-only extension: no CUDA kernels, ops run "
              "through ATen on every device.", flush=True)
        return CppExtension("blackwell_ops._C", HOST_SOURCES, include_dirs=[str(ROOT / "csrc")],
                            extra_compile_args={"cxx": CXX_FLAGS})
    kernels = generate_kernels.select(PRESET, [int(a.rstrip("a")) for a in ARCHS])
    ext = CUDAExtension(
        "blackwell_ops._C", HOST_SOURCES + ["csrc/bw_ops_cuda.cpp"],
        include_dirs=[str(ROOT / "csrc")],
        define_macros=[("BW_WITH_CUDA_KERNELS", "1")],
        extra_compile_args={"cxx": CXX_FLAGS + torch_cuda_header_dir()})
    ext.bw_kernels = kernels
    return ext


os.environ.setdefault("MAX_JOBS", str(MAX_JOBS))  # torch's own ninja build of the host files
setup(
    ext_modules=[make_extension()],
    cmdclass={"build_ext": BuildWithKernels},
)
