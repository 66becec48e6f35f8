"""DTensor sharding rules for bw.gemm_axpby and bw.gemm_fused (tensor parallelism).

Imported by ``import blackwell_ops`` when torch.distributed.tensor is available; importing it
registers the rules with ``torch.distributed.tensor.experimental.register_sharding``. With them
the ops accept DTensor arguments, and ``parallelize_module`` works on ``blackwell_ops.nn.Linear``
(ColwiseParallel / RowwiseParallel), forward and backward (the backward runs bw.gemm_axpby on
DTensors too).

Strategies offered, per mesh dimension (DTensor expands them to every dimension of the mesh and
redistributes the inputs to the cheapest one). Row / column / K below are the operands' own
dims: a's row dim is a.dim()-2 and its K dim a.dim()-1, b's K dim b.dim()-2 and its column dim
b.dim()-1, D's (and c's, x's) row dim D.dim()-2 and column dim D.dim()-1.

=========  ==================================  ===================================================
strategy   gemm_axpby                          gemm_fused
=========  ==================================  ===================================================
replicate  every tensor Replicate              every tensor Replicate
split M    a, c, D on rows; b Replicate        a, c, x, D, Y on rows; b, bias Replicate
split N    b, c, D on columns; a Replicate     b, c, x, D, Y on columns, bias Shard(0); a Replicate
split K    a, b on K, c Partial("sum"),        not offered
           D Partial("sum")
split L    3-D a / b / c / D on dim 0 (a 2-D   likewise, x too; bias Replicate
           operand Replicate)
=========  ==================================  ===================================================

Y (gemm_fused's second output) follows D when ``return_y``; otherwise it is the empty (0,)
tensor, Replicate in every strategy.

Refused, and why (DTensor then redistributes to an offered strategy, so the result stays right;
no placement raises an error):

* nothing for gemm_axpby. Split K with c given keeps c counted once: c takes a Partial("sum")
  placement, so a Replicate c is partitioned locally (no communication) into values that sum to
  c, each rank adds beta * (its part) to alpha * a_i @ b_i, and the sum over ranks is
  alpha * a @ b + beta * c. (A Replicate c in a split-K strategy would be added once per rank.)
* split K for gemm_fused, for every activation: act(sum_i P_i) != sum_i act(P_i) for a
  non-linear activation, and even with activation "none" a bias, c or x would be added once per
  rank. A K-sharded gemm_fused therefore gathers a and b (or reshards them to rows / columns)
  and returns a Shard or Replicate D, never a Partial.
* Partial a, b, bias or x: no strategy takes them (only split K's c); DTensor reduces them first.

The output of a split-K gemm_axpby is Partial in the output dtype: the per-rank partial sums are
rounded to out_dtype before they are summed, so for 16-bit outputs the error is up to
world_size roundings rather than one (request out_dtype=torch.float32 for exactness).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import torch
from torch.distributed.tensor import Partial, Replicate, Shard
from torch.distributed.tensor._op_schema import RuntimeSchemaInfo
from torch.distributed.tensor.experimental import register_sharding

__all__ = ["gemm_axpby_strategies", "gemm_fused_strategies"]

PlacementList = List[Optional[object]]
Strategy = Tuple[PlacementList, PlacementList]


def _dims(a, b):
    """(a.ndim, b.ndim, D.ndim) from the specs register_sharding passes (DTensorSpec-like)."""
    da, db = a.ndim, b.ndim
    return da, db, 3 if 3 in (da, db) else 2


def _opt(t, placement):
    """The placement for an optional tensor argument: None when it was not given."""
    return None if t is None else placement


def _core_strategies(a, b, c, extra: Sequence = ()) -> List[Tuple[object, list]]:
    """(D's placement, [a, b, c, *extra] placements) for replicate, split M, split N and split L.

    `extra` are optional tensors of D's shape (gemm_fused's x) placed like c."""
    da, db, do = _dims(a, b)
    rep = Replicate()
    out_like = [c, *extra]
    row_d, col_d = Shard(do - 2), Shard(do - 1)
    found = [
        (rep, [rep, rep] + [_opt(t, rep) for t in out_like]),                        # replicate
        (row_d, [Shard(da - 2), rep] + [_opt(t, row_d) for t in out_like]),          # split M
        (col_d, [rep, Shard(db - 1)] + [_opt(t, col_d) for t in out_like]),          # split N
    ]
    if do == 3:  # split L: a 2-D operand is shared by every batch, hence Replicate
        l_d = Shard(0)
        found.append((l_d, [l_d if da == 3 else rep, l_d if db == 3 else rep]
                      + [_opt(t, l_d) for t in out_like]))
    return found


def gemm_axpby_strategies(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None) -> List[Strategy]:
    """Acceptable ([D], [a, b, c, alpha, beta, out_dtype]) placements for bw.gemm_axpby."""
    strategies = [([d], [pa, pb, pc, None, None, None])
                  for d, (pa, pb, pc) in _core_strategies(a, b, c)]
    # split K: D = sum over ranks of (alpha * a_i @ b_i + beta * c_i) with sum_i c_i = c (c
    # Partial), so c is counted once (see the module docstring).
    da, db, _ = _dims(a, b)
    partial = Partial("sum")
    strategies.append(([partial], [Shard(da - 1), Shard(db - 2), _opt(c, partial), None, None,
                                   None]))
    return strategies


def gemm_fused_strategies(a, b, c=None, bias=None, x=None, alpha=1.0, beta=0.0, x_factor=1.0,
                          activation="none", return_y=False, out_dtype=None) -> List[Strategy]:
    """Acceptable ([D, Y], [a, b, c, bias, x, <6 non-tensors>]) placements for bw.gemm_fused.
    No split K (see the module docstring)."""
    strategies = []
    do = _dims(a, b)[2]
    for d, (pa, pb, pc, px) in _core_strategies(a, b, c, (x,)):
        split_n = d == Shard(do - 1)
        pbias = _opt(bias, Shard(0) if split_n else Replicate())
        y = d if return_y else Replicate()
        strategies.append(([d, y], [pa, pb, pc, pbias, px] + [None] * 6))
    return strategies


# register_sharding derives a RuntimeSchemaInfo that hashes the non-tensor arguments into
# DTensor's sharding-cache key only from the first int argument on (here out_dtype). The rules
# above read return_y (Y's placement), so every non-tensor argument is hashed. With torch 2.14.1
# tests/test_distributed.py (the same specs with both return_y values) passes without this too;
# it is kept so that the rules' correctness does not depend on how the cache key is built.
_SCHEMA_INFO = {
    torch.ops.bw.gemm_axpby.default: RuntimeSchemaInfo(static_argnum=3, needs_pytree=True),
    torch.ops.bw.gemm_fused.default: RuntimeSchemaInfo(static_argnum=5, needs_pytree=True),
}


def _register() -> None:
    from torch.distributed.tensor import DTensor

    register_sharding(torch.ops.bw.gemm_axpby.default)(gemm_axpby_strategies)
    register_sharding(torch.ops.bw.gemm_fused.default)(gemm_fused_strategies)
    propagator = DTensor._op_dispatcher.sharding_propagator
    propagator.op_to_schema_info.update(_SCHEMA_INFO)


_register()
