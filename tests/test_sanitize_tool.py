"""tools/sanitize.py on any machine (CI has no GPU): its arguments, the dry run, and how it turns a
sanitizer process's output into a verdict (with stand-in sanitizer processes)."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "sanitize.py"


def _load():
    spec = importlib.util.spec_from_file_location("sanitize", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sanitize = _load()


def _cli(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)


def test_help():
    r = _cli("--help")
    assert r.returncode == 0, r.stderr
    for option in ("--out", "--kernels", "--tools", "--jobs", "--timeout", "--list"):
        assert option in r.stdout


def test_list_is_a_dry_run():
    """--list prints the runs, or why there are none (no GPU, no kernels), and exits 0."""
    r = _cli("--list", "--tools", "memcheck,synccheck", "--kernels", "bf16")
    assert r.returncode == 0, r.stderr
    if torch.cuda.is_available() and "nothing to sanitize" not in r.stdout:
        assert "--tool memcheck" in r.stdout and "--kernel-name kns=cutlass" in r.stdout
        assert "--tool racecheck" not in r.stdout
    else:
        assert r.stdout.startswith("nothing to sanitize: "), r.stdout


@pytest.mark.parametrize("args,error", [
    ((), "--out DIR is required"),
    (("--list", "--tools", "memcheck,bogus"), "unknown tool(s) ['bogus']"),
    (("--list", "--kernels", "("), "bad regular expression"),
    (("--list", "--shape", "3x4"), "expected MxNxK"),
    (("--out", "x", "--jobs", "0"), "--jobs must be at least 1"),
])
def test_bad_arguments(args, error):
    r = _cli(*args)
    assert r.returncode == 2 and error in r.stderr, r.stderr


def _stand_in(code):
    return [sys.executable, "-c", code]


@pytest.mark.parametrize("code,status", [
    ("print('DRIVER OK'); print('========= ERROR SUMMARY: 0 errors')", "ok"),
    ("print('DRIVER OK'); print('========= RACECHECK SUMMARY: 0 hazards displayed "
     "(0 errors, 0 warnings)')", "ok"),
    ("print('========= ERROR SUMMARY: 3 errors'); raise SystemExit(99)", "sanitizer errors"),
    ("print('FAIL mismatch'); print('========= ERROR SUMMARY: 0 errors'); raise SystemExit(1)",
     "failed (exit code 1)"),
    ("print('========= ERROR SUMMARY: 0 errors')", "failed (the driver did not finish)"),
    ("print('DRIVER OK')", "failed (no sanitizer summary in the output)"),
    ("import time; time.sleep(60)", "timeout after 1 s"),
])
def test_verdict_of_a_run(tmp_path, code, status):
    run = sanitize.run_one(_stand_in(code), tmp_path / "run.log", timeout=1 if "sleep" in code
                           else 60)
    assert run["status"] == status, run
    assert (tmp_path / "run.log").read_text().startswith(sys.executable)
    if "SUMMARY" in code:
        assert "SUMMARY: " in run["summary"]


def test_full_run_writes_json_and_table(tmp_path, monkeypatch):
    """main() end to end with a stand-in kernel list and a stand-in compute-sanitizer that reports
    errors for racecheck only: the report holds every run and the exit code is 1."""
    fake = tmp_path / "compute-sanitizer"
    fake.write_text(f"#!{sys.executable}\n"
                    "import sys\n"
                    "if '--version' in sys.argv: print('Compute Sanitizer stand-in'); sys.exit()\n"
                    "tool = sys.argv[sys.argv.index('--tool') + 1]\n"
                    "print('DRIVER OK')\n"
                    "print(f'========= ERROR SUMMARY: {int(tool == \"racecheck\")} errors')\n"
                    "sys.exit(99 if tool == 'racecheck' else 0)\n")
    fake.chmod(0o755)
    kernels = [{"name": "k_one"}, {"name": "k_two"}]
    monkeypatch.setattr(sanitize, "select_kernels", lambda pattern: (kernels, ""))
    monkeypatch.setenv("COMPUTE_SANITIZER", str(fake))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "stand-in GPU")
    out = tmp_path / "out"
    assert sanitize.main(["--out", str(out), "--jobs", "3"]) == 1
    report = json.loads((out / "sanitize.json").read_text())
    assert report["ok"] is False and report["gpu"] == "stand-in GPU"
    assert report["kernel_filter"] == "--kernel-name kns=cutlass"
    got = {(r["kernel"], r["tool"]): r["status"] for r in report["runs"]}
    assert got == {(k, t): "sanitizer errors" if t == "racecheck" else "ok"
                   for k in ("k_one", "k_two") for t in ("memcheck", "racecheck", "synccheck")}
    table = (out / "sanitize.txt").read_text()
    assert "6 runs, 2 failed" in table and "ERROR SUMMARY: 1 errors" in table
    assert (out / "logs" / "k_one.memcheck.log").exists()
