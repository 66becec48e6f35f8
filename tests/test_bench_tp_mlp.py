"""benchmarks/bench_tp_mlp.py runs end to end on the CPU (gloo, one process, tiny shapes) and
refuses to time blocks that disagree. The 2-GPU NCCL run is the benchmark itself (torchrun)."""
import json
import pathlib
import sys

import pytest
import torch

import blackwell_ops

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
if not hasattr(blackwell_ops, "distributed"):
    pytest.skip("torch.distributed.tensor is not available", allow_module_level=True)
import bench_tp_mlp  # noqa: E402

SMOKE = ["--device", "cpu", "--tokens", "16", "--dim", "32", "--reps", "3", "--warmup", "1"]


def test_cpu_world_size_1_end_to_end(tmp_path, capsys):
    assert bench_tp_mlp.main([*SMOKE, "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["world_size"] == 1 and data["backend"] == "gloo"
    assert (data["tokens"], data["dim"], data["hidden"]) == (16, 32, 128)
    assert set(data["results"]) == {"torch.nn", "bw"}
    for res in data["results"].values():
        assert len(res["steps_ms"]) == 3
        assert 0 < res["p10_ms"] <= res["median_ms"] <= res["p90_ms"]
    assert data["ratio_torch_over_bw"] == pytest.approx(
        data["results"]["torch.nn"]["median_ms"] / data["results"]["bw"]["median_ms"])
    assert all(err < bench_tp_mlp.TOL for err in data["rel_diff_bw_vs_torch"].values())
    assert "SGD" in data["step"]
    assert "torch.nn / bw" in (tmp_path / "table.txt").read_text()
    assert (tmp_path / "command.txt").read_text().startswith("python ")
    assert "torch.nn / bw" in capsys.readouterr().out


def test_disagreeing_blocks_are_not_timed(tmp_path, monkeypatch):
    real = blackwell_ops.nn.linear
    monkeypatch.setattr(blackwell_ops.nn, "linear", lambda *a, **k: real(*a, **k) * 1.1)
    assert bench_tp_mlp.main([*SMOKE, "--out", str(tmp_path)]) == 1
    assert not (tmp_path / "results.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message without CUDA")
def test_cuda_without_gpu_says_so():
    with pytest.raises(SystemExit, match="needs CUDA GPUs"):
        bench_tp_mlp.main(["--device", "cuda", "--reps", "1"])
