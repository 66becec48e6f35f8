"""The benchmark harness runs end to end on the CPU (CI) and fails loudly on a wrong answer."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gemm  # noqa: E402
import suites  # noqa: E402


def test_cpu_suite_end_to_end(tmp_path, capsys):
    rc = bench_gemm.main(["--suite", "cpu", "--device", "cpu", "--reps", "2", "--warmup", "1",
                          "--peers", "addmm,mm+epi,eager", "--out", str(tmp_path)])
    assert rc == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["cases"]) == len(suites.SUITES["cpu"])
    for row in data["cases"]:
        assert row["correct"] and row["rel_err"] < 1e-4
        assert set(row["results"]) == {"bw", "addmm", "mm+epi", "eager"}
        for res in row["results"].values():
            assert res["p20_ms"] <= res["median_ms"] <= res["p80_ms"]
        assert row["speedup"] > 0
    assert data["geomean_speedup"] > 0
    assert "command" in data["meta"] and "torch" in data["meta"]
    csv_lines = (tmp_path / "results.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + len(suites.SUITES["cpu"])
    assert "geometric mean" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    assert (tmp_path / "tflops.png").stat().st_size > 0
    assert (tmp_path / "speedup.png").stat().st_size > 0


def test_compile_peer_reports_compile_time(tmp_path):
    rc = bench_gemm.main(["--suite", "cpu", "--device", "cpu", "--reps", "2", "--warmup", "1",
                          "--peers", "compile", "--filter", "64x48x32", "--out", str(tmp_path)])
    assert rc == 0
    row = json.loads((tmp_path / "results.json").read_text())["cases"][0]
    assert row["results"]["compile"]["compile_s"] > 0


def test_wrong_answer_fails_the_run(tmp_path, monkeypatch):
    import blackwell_ops
    real = blackwell_ops.gemm_axpby
    monkeypatch.setattr(blackwell_ops, "gemm_axpby", lambda *a, **k: real(*a, **k) * 1.01)
    rc = bench_gemm.main(["--suite", "cpu", "--device", "cpu", "--reps", "1", "--warmup", "0",
                          "--peers", "eager", "--out", str(tmp_path)])
    assert rc == 1


def test_suites_are_well_formed():
    for name, cases in suites.SUITES.items():
        assert cases, name
        for c in cases:
            assert c.layout in ("kk", "kn", "mk", "mn") and c.m > 0 and c.n > 0 and c.k > 0
    assert len({c.name for c in suites.SUITES["default"]}) == len(suites.SUITES["default"])


def test_interleaved_times_rotate_the_order_and_keep_every_rep():
    """bench_gemm.interleaved_times: each provider gets exactly `reps` times, spread over the
    rounds, and no provider is always timed first (the point: clock drift falls on all)."""
    calls = []

    def timer(fn, n, warmup):
        calls.append(fn())
        return [float(len(calls))] * n
    fns = {name: (lambda name=name: name) for name in ("ours", "peer_a", "peer_b")}
    times = bench_gemm.interleaved_times(fns, timer, reps=12, warmup=1)
    assert {k: len(v) for k, v in times.items()} == {"ours": 12, "peer_a": 12, "peer_b": 12}
    rounds = [calls[i:i + 3] for i in range(0, len(calls), 3)]
    assert len(rounds) == bench_gemm.TIMING_ROUNDS
    assert {r[0] for r in rounds} == set(fns), rounds  # each provider leads some round


def test_tune_times_kernels_and_peers_together():
    """benchmarks/tune.py's timed_rows: every entry keeps its row and gains its median time."""
    import tune
    case = suites.Case("t", 64, 64, 64)
    entries = [(dict(case="t", kernel=k, schedule="dp"), lambda: None) for k in ("k1", "k2")]
    entries.append((dict(case="t", kernel="addmm", schedule="-"), lambda: None))
    rows = tune.timed_rows(case, entries, lambda fn, n, warmup: [0.5] * n, reps=5)
    assert [r["kernel"] for r in rows] == ["k1", "k2", "addmm"]
    assert all(r["ms"] == 0.5 and r["tflops"] == case.flops / 0.5 / 1e9 for r in rows)
