"""The build without nvcc: a CPU-only extension that still serves every device through ATen."""
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_cpu_only_build(tmp_path):
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not files:  # not a git checkout: copy the sources we need
        files = [str(p.relative_to(ROOT)) for d in ("csrc", "blackwell_ops", "tools")
                 for p in (ROOT / d).rglob("*") if p.is_file()] + ["setup.py", "pyproject.toml"]
    for f in files:
        if (ROOT / f).is_file():
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, tmp_path / f)
    env = dict(os.environ, BW_CPU_ONLY="1", MAX_JOBS=os.environ.get("MAX_JOBS", "2"))
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp_path,
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "building the CPU-only extension" in r.stdout
    probe = (
        "import warnings, torch, blackwell_ops\n"
        "from blackwell_ops import _C, _build_config as b\n"
        "assert not _C.build_info()['cuda_kernels'] and not b.CUDA_KERNELS\n"
        "assert _C.compiled_kernels() == []\n"
        "a, bb = torch.randn(8, 4, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)\n"
        "d = blackwell_ops.gemm_axpby(a, bb, alpha=2.0)\n"
        "assert torch.allclose(d, 2.0 * a @ bb)\n"
        "print(_C.plan(dict(m=64, n=64, k=64, ab='bfloat16'), 90, 'all'))\n")
    r = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "sm90_" in r.stdout
