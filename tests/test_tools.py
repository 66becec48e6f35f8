"""The command-line entry points run end to end on whatever device is here."""
import subprocess
import sys

from blackwell_ops import demo, info


def test_info_runs(capsys):
    assert info.main([]) == 0
    out = capsys.readouterr().out
    assert "torch" in out and "compiled kernels" in out


def test_info_explains_a_problem(capsys):
    assert info.main(["--problem", "4096x4096x4096", "--dtype", "bfloat16"]) == 0
    out = capsys.readouterr().out
    assert "4096x4096x4096" in out and ("kernel" in out or "composite" in out)


def test_demo_runs_and_checks(capsys):
    assert demo.main(["--size", "64x48x32", "--reps", "2"]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "torch.addmm" in out


def test_module_entry_points():
    r = subprocess.run([sys.executable, "-m", "blackwell_ops.info"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
