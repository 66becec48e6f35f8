"""DTensor sharding rules of blackwell_ops.distributed, on 2 processes: gloo on the CPU (always,
no GPU needed) and NCCL on 2 GPUs (marked gpu; skipped, with the reason, without 2 GPUs and NCCL).

Per backend, one pair of processes (torch.multiprocessing.spawn, a FileStore in tmp_path) runs
every case once per test session and writes what it saw; the tests below assert on it, one test
per case and backend (ids such as test_gemm_fused_sharded[gloo-split_m]). Each case runs
bw.gemm_axpby / bw.gemm_fused on DTensors placed as the case says and compares full_tensor() with
the op run on the full tensors in the same process (fp32, same seeded inputs; TF32 off on CUDA),
and records the output placements. The NCCL run adds the tensor-parallel MLP in bfloat16 at
shapes the compiled CUTLASS kernels take.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from types import SimpleNamespace

import pytest
import torch

import blackwell_ops  # noqa: F401

dist = pytest.importorskip("torch.distributed")
if not dist.is_available() or not hasattr(blackwell_ops, "distributed"):
    pytest.skip("torch.distributed.tensor is not available", allow_module_level=True)

from torch.distributed.tensor import Partial, Replicate, Shard  # noqa: E402

from blackwell_ops.distributed import gemm_axpby_strategies, gemm_fused_strategies  # noqa: E402
from helpers import rel_err  # noqa: E402

WORLD = 2
TOL = 1e-5  # fp32, relative (Frobenius); sharding changes at most the order of a K reduction
# bf16 MLP vs the same block unsharded in bf16: a split-K output is rounded to bf16 per rank and
# summed in bf16, so the two differ by a few bf16 roundings (2^-8 relative each)
BF16_TOL = 1e-2


def _nccl_skip_reason():
    """Why the NCCL backend cannot run here, or None."""
    if not dist.is_nccl_available():
        return "nccl backend: torch.distributed.is_nccl_available() is False"
    n = torch.cuda.device_count()
    if n < WORLD:
        return f"nccl backend needs {WORLD} CUDA GPUs, torch.cuda.device_count() = {n}"
    return None


_NCCL_SKIP = _nccl_skip_reason()
# (process-group backend, device type); the nccl run is gpu-marked (tests/conftest.py)
BACKENDS = [
    pytest.param(("gloo", "cpu"), id="gloo"),
    pytest.param(("nccl", "cuda"), id="nccl",
                 marks=[pytest.mark.gpu,
                        pytest.mark.skipif(_NCCL_SKIP is not None, reason=str(_NCCL_SKIP))]),
]
R, S0, S1, S2, P = "R", "S0", "S1", "S2", "P"

# name: (a shape, b shape, c shape or None, {a, b, c placements}, alpha, beta, expected D)
AXPBY_CASES = {
    "replicate": ((16, 8), (8, 12), (16, 12), (R, R, R), 1.5, 0.5, R),
    "split_m": ((16, 8), (8, 12), (16, 12), (S0, R, S0), 1.5, 0.5, S0),
    "split_m_no_c": ((16, 8), (8, 12), None, (S0, R, None), 1.0, 0.0, S0),
    "split_n": ((16, 8), (8, 12), (16, 12), (R, S1, S1), 1.0, -1.0, S1),
    "split_m_uneven": ((15, 8), (8, 12), (15, 12), (S0, R, S0), 1.0, 1.0, S0),  # 8 + 7 rows
    "split_k_uneven": ((16, 7), (7, 12), None, (S1, S0, None), 1.0, 0.0, P),
    "split_k_no_c": ((16, 8), (8, 12), None, (S1, S0, None), 2.0, 0.0, P),
    # c counted once: it goes in as Partial (Replicate c is partitioned locally)
    "split_k_with_c": ((16, 8), (8, 12), (16, 12), (S1, S0, R), 1.0, 0.75, P),
    "batched_split_l": ((4, 6, 8), (4, 8, 10), (4, 6, 10), (S0, S0, S0), 1.0, 1.0, S0),
    "batched_split_l_shared_b": ((4, 6, 8), (8, 10), None, (S0, R, None), 1.0, 0.0, S0),
    "batched_split_m": ((4, 6, 8), (4, 8, 10), None, (S1, R, None), 1.0, 0.0, S1),
    "batched_split_n": ((4, 6, 8), (4, 8, 10), (4, 6, 10), (R, S2, S2), 1.0, 1.0, S2),
    "batched_split_k": ((4, 6, 8), (4, 8, 10), None, (S2, S1, None), 1.0, 0.0, P),
}

# name: (a, b, c, bias, x shapes, {a, b, c, bias, x placements}, activation, return_y,
#        expected D placement or "not P")
FUSED_CASES = {
    "split_m": ((16, 8), (8, 12), None, (12,), (16, 12), (S0, R, None, R, S0), "silu", True, S0),
    "split_n": ((16, 8), (8, 12), (16, 12), (12,), (16, 12), (R, S1, S1, S0, S1), "relu", False,
                S1),
    "split_n_return_y": ((16, 8), (8, 12), None, (12,), None, (R, S1, None, S0, None), "gelu_erf",
                         True, S1),
    "batched_split_l": ((4, 6, 8), (8, 10), None, (10,), (4, 6, 10), (S0, R, None, R, S0),
                        "gelu_tanh", False, S0),
    # K-sharded inputs, an activation: no split-K rule, so DTensor must not return a Partial D
    "k_sharded_gelu": ((16, 8), (8, 12), None, (12,), None, (S1, S0, None, R, None), "gelu_erf",
                       False, "not P"),
    # activation "none": split K, a Partial D; a Replicate bias / c / x goes in as a Partial
    # (partitioned locally), so it is counted once
    "k_sharded_none_bias": ((16, 8), (8, 12), None, (12,), None, (S1, S0, None, R, None), "none",
                            False, P),
    "k_sharded_none_plain": ((16, 8), (8, 12), None, None, None, (S1, S0, None, None, None),
                             "none", True, P),
    "k_sharded_none_all": ((16, 8), (8, 12), (16, 12), (12,), (16, 12), (S1, S0, R, R, R), "none",
                           True, P),
    "k_sharded_none_uneven": ((15, 7), (7, 12), None, (12,), (15, 12), (S1, S0, None, R, R),
                              "none", False, P),
    "batched_k_sharded_none": ((4, 6, 8), (8, 10), (4, 6, 10), (10,), None, (S2, S0, R, R, None),
                               "none", True, P),
}
# The K-sharded cases are also run with the other kind of activation on the same DTensors
# (gelu_erf for "none", "none" for an activation): the sharding cache must not reuse a split-K
# (Partial) choice for an activation, nor refuse it for "none".
FLIPPED_ACTIVATION = {"none": "gelu_erf"}

# name: the forward output's expected placement
BACKWARD_CASES = {"axpby_split_m": S0, "axpby_split_k_with_c": P, "fused_split_n_silu": S1,
                  "fused_split_k_none_bias": P}
MLP_CASES = ("mlp",)
MLP_BF16_CASES = ("mlp_bf16",)  # nccl only (CUTLASS kernel shapes; the gloo run stays small)


def _placement(code):
    return {R: Replicate(), S0: Shard(0), S1: Shard(1), S2: Shard(2)}[code]


def _code(placement) -> str:
    if isinstance(placement, Partial):
        return P
    if isinstance(placement, Shard):
        return f"S{placement.dim}"
    return R


def _inputs(shapes, seed, device):
    g = torch.Generator().manual_seed(seed)  # on the CPU: the same values on every device
    return [None if s is None else torch.randn(s, generator=g).to(device) for s in shapes]


def _dt(t, mesh, code):
    from torch.distributed.tensor import distribute_tensor
    return None if t is None else distribute_tensor(t, mesh, [_placement(code)])


def _run_axpby(mesh, case):
    a_s, b_s, c_s, places, alpha, beta, _ = AXPBY_CASES[case]
    a, b, c = _inputs((a_s, b_s, c_s), 1, mesh.device_type)
    ref = torch.ops.bw.gemm_axpby(a, b, c, alpha, beta)
    args = [_dt(t, mesh, p) for t, p in zip((a, b, c), places)]
    out = torch.ops.bw.gemm_axpby(*args, alpha, beta)
    return {"err": rel_err(out.full_tensor(), ref), "d": _code(out.placements[0])}


def _run_fused(mesh, case):
    *shapes, places, activation, return_y, _ = FUSED_CASES[case]
    a, b, c, bias, x = _inputs(shapes, 2, mesh.device_type)
    kw = dict(alpha=1.25, beta=0.5, x_factor=-0.5, activation=activation, return_y=return_y)
    ref_d, ref_y = torch.ops.bw.gemm_fused(a, b, c, bias, x, **kw)
    args = [_dt(t, mesh, p) for t, p in zip((a, b, c, bias, x), places)]
    d, y = torch.ops.bw.gemm_fused(*args, **kw)
    # the same specs with the other return_y: Y's shape must follow (sharding cache key)
    _, y_other = torch.ops.bw.gemm_fused(*args, **{**kw, "return_y": not return_y})
    res = {"err": rel_err(d.full_tensor(), ref_d), "d": _code(d.placements[0]),
           "d_shape": list(ref_d.shape),
           "y": _code(y.placements[0]), "y_shape": list(y.shape),
           "y_full_shape": list(y.full_tensor().shape), "ref_y_shape": list(ref_y.shape),
           "y_other_shape": list(y_other.full_tensor().shape)}
    if return_y:
        res["y_err"] = rel_err(y.full_tensor(), ref_y)
    if places[0] == S1 or places[0] == S2:  # K-sharded a: the same specs, the other activation
        flipped = FLIPPED_ACTIVATION.get(activation, "none")
        kw_f = {**kw, "activation": flipped}
        d_f, _ = torch.ops.bw.gemm_fused(*args, **kw_f)
        ref_f, _ = torch.ops.bw.gemm_fused(a, b, c, bias, x, **kw_f)
        res.update(flipped=flipped, flipped_d=_code(d_f.placements[0]),
                   flipped_err=rel_err(d_f.full_tensor(), ref_f))
    return res


def _run_backward(mesh, case):
    kind = "axpby" if case.startswith("axpby") else "fused"
    if case == "axpby_split_m":
        shapes, places, beta = ((16, 8), (8, 12), (16, 12)), (S0, R, S0), 0.5
    elif case == "axpby_split_k_with_c":
        shapes, places, beta = ((16, 8), (8, 12), (16, 12)), (S1, S0, R), 0.5
    elif case == "fused_split_n_silu":
        shapes, places, activation = ((16, 8), (8, 12), (16, 12), (12,)), (R, S1, S1, S0), "silu"
    else:  # fused_split_k_none_bias: a, b on K; c, bias, x Replicate (Partial inside the op)
        shapes, places = ((16, 8), (8, 12), (16, 12), (12,), (16, 12)), (S1, S0, R, R, R)
        activation = "none"
    full = _inputs(shapes, 3, mesh.device_type)
    g = torch.Generator().manual_seed(4)
    grad_out = torch.randn(16, 12, generator=g).to(mesh.device_type)
    leaves = [t.clone().requires_grad_() for t in full]
    sharded = [_dt(t, mesh, p).detach().requires_grad_() for t, p in zip(full, places)]
    if kind == "axpby":
        ref = torch.ops.bw.gemm_axpby(*leaves, 1.5, beta)
        out = torch.ops.bw.gemm_axpby(*sharded, 1.5, beta)
    else:
        def fused(a, b, c, bias, x=None):
            return blackwell_ops.gemm_fused(a, b, c, bias, x, alpha=1.5, beta=0.5, x_factor=-0.75,
                                            activation=activation)
        ref, out = fused(*leaves), fused(*sharded)
    ref.backward(grad_out)
    full_out = out.full_tensor()  # differentiable: the backward runs through the redistribution
    full_out.backward(grad_out)
    res = {"err": rel_err(full_out.detach(), ref.detach()), "d": _code(out.placements[0])}
    for i, (t, s) in enumerate(zip(leaves, sharded)):
        res[f"grad{i}_err"] = rel_err(s.grad.full_tensor(), t.grad)
    return res


def _mlp_module():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    import tp_mlp
    return tp_mlp


def _run_mlp(mesh, case, dtype=torch.float32, shape=(32, 64, 16), activation="gelu_erf"):
    from torch.distributed.tensor import DTensor
    tp_mlp = _mlp_module()
    errors = tp_mlp.check_against_unsharded(mesh, *shape, activation, dtype=dtype)
    trace = tp_mlp.trace_tp_step(mesh, *shape, activation, dtype=dtype)
    mlp = tp_mlp.parallelize_mlp(tp_mlp.MLP(*shape[:2], device=mesh.device_type), mesh)
    return {"errors": errors, "trace": trace,
            "placements": {name: [_code(p) for p in t.placements]
                           for name, t in mlp.named_parameters() if isinstance(t, DTensor)}}


def _run_mlp_bf16(mesh, case):
    # dims multiples of 64, bf16, K-major operands (x @ W^T): the CUTLASS kernels' shapes
    return _run_mlp(mesh, case, torch.bfloat16, (256, 1024, 128), "gelu_tanh")


def _worker(rank, backend, device, store_path, out_dir):
    from torch.distributed.device_mesh import init_device_mesh
    torch.set_num_threads(1)
    if device == "cuda":
        torch.cuda.set_device(rank)
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 stays fp32: the 1e-5 tolerance
    store = dist.FileStore(store_path, WORLD)
    dist.init_process_group(backend, store=store, rank=rank, world_size=WORLD)
    mesh = init_device_mesh(device, (WORLD,))
    results = {}
    runs = ([(f"axpby/{c}", _run_axpby, c) for c in AXPBY_CASES]
            + [(f"fused/{c}", _run_fused, c) for c in FUSED_CASES]
            + [(f"backward/{c}", _run_backward, c) for c in BACKWARD_CASES]
            + [(f"mlp/{c}", _run_mlp, c) for c in MLP_CASES])
    if backend == "nccl":
        runs += [(f"mlp/{c}", _run_mlp_bf16, c) for c in MLP_BF16_CASES]
    for name, fn, case in runs:
        try:
            results[name] = fn(mesh, case)
        except Exception:  # noqa: BLE001  (reported by the test of that case)
            results[name] = {"exception": traceback.format_exc()}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    # Both ranks done before either tears down, then leave without the interpreter's
    # finalization: in about 1 run in 40 on the 2-core CI machine a gloo worker aborted there
    # ("terminate called without an active exception", SIGABRT, no Python frame) after its results
    # were written, its barrier passed, its group destroyed and its atexit handlers run, which
    # failed all 29 gloo tests at setup (docs/design.md, after "Tests").
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@pytest.fixture(scope="module", params=BACKENDS)
def results(request, tmp_path_factory):
    """Per backend: what each rank saw, [rank 0's {case: result}, rank 1's ...]."""
    import torch.multiprocessing as mp
    backend, device = request.param
    tmp = tmp_path_factory.mktemp(f"dtensor_{backend}")
    mp.spawn(_worker, args=(backend, device, str(tmp / "store"), str(tmp)), nprocs=WORLD,
             join=True)
    per_rank = [json.loads((tmp / f"rank{r}.json").read_text()) for r in range(WORLD)]
    return SimpleNamespace(backend=backend, ranks=per_rank)


def _case(results, name):
    for rank, res in enumerate(results.ranks):
        assert name in res, f"rank {rank} did not run {name} on {results.backend}"
        assert "exception" not in res[name], f"rank {rank}: {res[name]['exception']}"
    return results.ranks[0][name]


@pytest.mark.parametrize("case", list(AXPBY_CASES))
def test_gemm_axpby_sharded(results, case):
    res = _case(results, f"axpby/{case}")
    assert res["err"] <= TOL, res
    assert res["d"] == AXPBY_CASES[case][-1], res
    assert results.ranks[1][f"axpby/{case}"]["err"] <= TOL


@pytest.mark.parametrize("case", list(FUSED_CASES))
def test_gemm_fused_sharded(results, case):
    res = _case(results, f"fused/{case}")
    expected = FUSED_CASES[case][-1]
    return_y = FUSED_CASES[case][-2]
    assert res["err"] <= TOL, res
    assert results.ranks[1][f"fused/{case}"]["err"] <= TOL
    if expected == "not P":
        assert res["d"] != P, f"gemm_fused returned a Partial D under K-sharded inputs: {res}"
        assert res["y"] != P, res
    else:
        assert res["d"] == expected, res
    assert res["y_full_shape"] == res["ref_y_shape"], res
    if return_y:
        assert res["y_err"] <= TOL, res
        assert res["y"] == res["d"], res
        assert res["y_other_shape"] == [0], res
    else:
        assert res["y_shape"] == [0] and res["y"] == R, res
        assert res["y_other_shape"] == res["d_shape"], res
    if "flipped" in res:  # the same K-sharded DTensors with the other kind of activation
        assert res["flipped_err"] <= TOL, res
        assert (res["flipped_d"] == P) == (res["flipped"] == "none"), res


@pytest.mark.parametrize("case", list(BACKWARD_CASES))
def test_backward_sharded(results, case):
    res = dict(_case(results, f"backward/{case}"))
    assert res.pop("d") == BACKWARD_CASES[case]
    for key, err in res.items():
        assert err <= TOL, f"{key}: {err} ({res})"


def _check_mlp(res, tol):
    tp_mlp = _mlp_module()
    assert res["placements"] == {"fc1.weight": [S0], "fc1.bias": [S0], "fc2.weight": [S1],
                                 "fc2.bias": [R]}
    for key, err in res["errors"].items():
        assert err <= tol, f"{key}: {err} ({res['errors']})"
    # fc2 (RowwiseParallel, K-sharded input) runs split K: a Partial output, no all-gather;
    # one all-reduce forward (fc2's output), one backward (fc1's input gradient)
    trace = res["trace"]
    assert trace["fc2_output"] == tp_mlp.EXPECTED_FC2_OUTPUT, trace
    assert trace["forward_comms"] == tp_mlp.EXPECTED_FORWARD_COMMS, trace
    assert trace["backward_comms"] == tp_mlp.EXPECTED_BACKWARD_COMMS, trace


def test_tensor_parallel_mlp(results):
    _check_mlp(_case(results, "mlp/mlp"), TOL)


def test_tensor_parallel_mlp_bf16(results):
    if results.backend != "nccl":
        pytest.skip("the bf16 MLP at CUTLASS kernel shapes runs on the nccl backend only")
    _check_mlp(_case(results, "mlp/mlp_bf16"), BF16_TOL)


# The strategy lists themselves (no process group): what is offered and what is refused.

def _spec(ndim):
    return SimpleNamespace(ndim=ndim)


def test_gemm_fused_partial_only_when_linear():
    for activation in ("relu", "gelu_tanh", "gelu_erf", "silu"):  # act(sum) != sum(act)
        for bias in (None, _spec(1)):
            strategies = gemm_fused_strategies(_spec(2), _spec(2), None, bias, None,
                                               activation=activation)
            outputs = [p for outs, _ in strategies for p in outs]
            assert not any(isinstance(p, Partial) for p in outputs), strategies
    for return_y in (False, True):
        for a_nd, b_nd in ((2, 2), (3, 3), (3, 2), (2, 3)):
            for c, bias, x in ((None, None, None), (_spec(2), _spec(1), _spec(2))):
                strategies = gemm_fused_strategies(_spec(a_nd), _spec(b_nd), c, bias, x,
                                                   activation="none", return_y=return_y)
                (outs, ins), = [s for s in strategies if isinstance(s[0][0], Partial)]
                # a, b on K; every term added to the product Partial, so counted once
                assert ins[:2] == [Shard(a_nd - 1), Shard(b_nd - 2)], ins
                assert ins[2:5] == [None if t is None else Partial("sum") for t in (c, bias, x)]
                assert outs == [Partial("sum"), Partial("sum") if return_y else Replicate()]


def test_gemm_axpby_split_k_counts_c_once():
    (outs, ins), = [s for s in gemm_axpby_strategies(_spec(2), _spec(2), _spec(2), 1.0, 1.0)
                    if isinstance(s[0][0], Partial)]
    assert ins[:3] == [Shard(1), Shard(0), Partial("sum")]
    (outs, ins), = [s for s in gemm_axpby_strategies(_spec(2), _spec(2)) if
                    isinstance(s[0][0], Partial)]
    assert ins[2] is None  # no c: no placement for it


def test_strategies_match_the_schema():
    for op, fn, n_out, args, kw in (
            (torch.ops.bw.gemm_axpby.default, gemm_axpby_strategies, 1,
             (_spec(3), _spec(2), None), {}),
            (torch.ops.bw.gemm_fused.default, gemm_fused_strategies, 2,
             (_spec(3), _spec(3), _spec(3), _spec(1), None), {"activation": "none"}),
            (torch.ops.bw.gemm_fused.default, gemm_fused_strategies, 2,
             (_spec(3), _spec(3), _spec(3), _spec(1), None), {"activation": "silu"})):
        for outs, ins in fn(*args, **kw):
            assert len(outs) == n_out
            assert len(ins) == len(op._schema.arguments)
            for i, arg in enumerate(args):  # None args get no placement, tensors one
                assert (ins[i] is None) == (arg is None), (ins, i)
            assert all(p is None for p in ins[len(args):])  # the non-tensor arguments


def test_sharding_cache_key_hashes_every_non_tensor_argument():
    # the rules read activation and return_y: the cache key must include them (module docstring)
    from blackwell_ops.distributed import _SCHEMA_INFO
    for op, info in _SCHEMA_INFO.items():
        first = next(i for i, arg in enumerate(op._schema.arguments)
                     if "Tensor" not in str(arg.type))
        assert info.static_argnum == first, (op, info)


def test_trailing_placements_in_one_place():
    # where trailing optional tensors (e.g. per-tensor scales after out_dtype) get their placement
    from blackwell_ops.distributed import _axpby_tail, _fused_tail
    assert _axpby_tail() == [None] * 3 and _fused_tail() == [None] * 6
    assert _fused_tail(None, _spec(0)) == [None] * 6 + [None, Replicate()]
