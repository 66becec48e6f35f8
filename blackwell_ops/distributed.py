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
split K    a, b on K, c Partial("sum"),        activation "none" only: a, b on K, c, bias, x
           D Partial("sum")                    Partial("sum"), D (and Y) Partial("sum")
split L    3-D a / b / c / D on dim 0 (a 2-D   likewise, x too; bias Replicate
           operand Replicate)
=========  ==================================  ===================================================

Y (gemm_fused's second output) follows D when ``return_y``; otherwise it is the empty (0,)
tensor, Replicate in every strategy. The per-tensor scales (scale_a, scale_b: one value that
multiplies the whole product) are Replicate in every strategy, split K included.

Split K and the other terms: every tensor added to the product (c; gemm_fused's bias and x) takes
a Partial("sum") placement in the split-K strategy, so it is counted once. DTensor partitions a
Replicate tensor into a Partial locally, without communication (each rank holds t / world_size),
each rank adds its part to its alpha * a_i @ b_i, and the sum over ranks is the full result:
D = alpha * a @ b + beta * c (+ bias + x_factor * x). (A Replicate c, bias or x in a split-K
strategy would be added once per rank.) gemm_fused's Y = a @ b is then Partial too.

Refused, and why (DTensor then redistributes to an offered strategy, so the result stays right;
no placement raises an error):

* split K for gemm_fused with an activation other than "none": act(sum_i P_i) != sum_i act(P_i)
  for relu / gelu / silu, so the per-rank results do not sum to D. A K-sharded gemm_fused with an
  activation gathers a and b (or reshards them to rows / columns) and returns a Shard or
  Replicate D, never a Partial. With activation "none" D is linear in (a @ b, c, bias, x) and
  split K is offered (above).
* Partial a, b: no strategy takes them; DTensor reduces them first. Likewise a Partial c, bias or
  x outside split K (every strategy but split K places them Replicate or Shard).

The output of a split-K strategy is Partial in the output dtype: the per-rank partial sums are
rounded to out_dtype before they are summed, so for 16-bit outputs the error is up to
world_size roundings rather than one (request out_dtype=torch.float32 for exactness).

The strategies depend on which tensors are present, their ranks, return_y and (split K) on
whether activation is "none"; the sharding-cache key therefore includes every non-tensor
argument (``_SCHEMA_INFO`` below).
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


def _split_k(a, b) -> Tuple[Shard, Shard]:
    """a's and b's placements in the split-K strategy: each on its K dim."""
    da, db, _ = _dims(a, b)
    return Shard(da - 1), Shard(db - 2)


# The placements of the arguments after each op's leading tensors (a, b, c; gemm_fused's bias, x),
# identical in every strategy: None for each non-tensor argument, then Replicate for each trailing
# optional tensor given (None for one not given). The one place to extend when a schema gains
# trailing optional tensors, e.g. per-tensor scales after out_dtype: add them to the strategy
# function's signature and pass them here (`tail = _fused_tail(scale_a, scale_b)`). Replicate is
# right for a scalar that multiplies the product (linear, so split K stays exact); a tensor that
# must follow a's rows or b's columns would need a per-strategy placement instead.
def _axpby_tail(*trailing_tensors) -> PlacementList:
    return [None] * 3 + [_opt(t, Replicate()) for t in trailing_tensors]  # alpha, beta, out_dtype


def _fused_tail(*trailing_tensors) -> PlacementList:
    # alpha, beta, x_factor, activation, return_y, out_dtype
    return [None] * 6 + [_opt(t, Replicate()) for t in trailing_tensors]


def gemm_axpby_strategies(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None, scale_a=None,
                          scale_b=None) -> List[Strategy]:
    """Acceptable ([D], [a, b, c, alpha, beta, out_dtype, scale_a, scale_b]) placements for
    bw.gemm_axpby. The per-tensor scales are Replicate in every strategy."""
    tail = _axpby_tail(scale_a, scale_b)
    strategies = [([d], [pa, pb, pc] + tail) for d, (pa, pb, pc) in _core_strategies(a, b, c)]
    # split K: D = sum over ranks of (alpha * a_i @ b_i + beta * c_i) with sum_i c_i = c (c
    # Partial), so c is counted once (see the module docstring).
    pa, pb, partial = *_split_k(a, b), Partial("sum")
    strategies.append(([partial], [pa, pb, _opt(c, partial)] + tail))
    return strategies


def gemm_fused_strategies(a, b, c=None, bias=None, x=None, alpha=1.0, beta=0.0, x_factor=1.0,
                          activation="none", return_y=False, out_dtype=None, scale_a=None,
                          scale_b=None) -> List[Strategy]:
    """Acceptable ([D, Y], [a, b, c, bias, x, <6 non-tensors>, scale_a, scale_b]) placements for
    bw.gemm_fused. Split K only for activation "none" (see the module docstring); the per-tensor
    scales are Replicate in every strategy."""
    tail = _fused_tail(scale_a, scale_b)
    strategies = []
    do = _dims(a, b)[2]
    for d, (pa, pb, pc, px) in _core_strategies(a, b, c, (x,)):
        split_n = d == Shard(do - 1)
        pbias = _opt(bias, Shard(0) if split_n else Replicate())
        y = d if return_y else Replicate()
        strategies.append(([d, y], [pa, pb, pc, pbias, px] + tail))
    if activation == "none":
        # split K: D = alpha * acc + beta * c + bias + x_factor * x is linear in (acc, c, bias,
        # x); with each of c, bias, x Partial (a Replicate one is partitioned locally into parts
        # that sum to it) every term is counted once in the sum over ranks. Y = acc likewise.
        pa, pb = _split_k(a, b)
        partial = Partial("sum")
        y = partial if return_y else Replicate()
        strategies.append(([partial, y], [pa, pb] + [_opt(t, partial) for t in (c, bias, x)]
                           + tail))
    return strategies


# register_sharding derives a RuntimeSchemaInfo that hashes the non-tensor arguments into
# DTensor's sharding-cache key only from the first int argument on (here out_dtype, the last
# argument). gemm_fused's rules read activation (split K only for "none") and return_y (Y's
# placement), so every non-tensor argument must be hashed: otherwise a split-K (Partial) choice
# cached for activation "none" would be reused for "gelu_erf" on the same specs, and the
# per-rank activations would be summed (a wrong D). static_argnum = index of the first
# non-tensor argument (alpha) in each schema; tests/test_distributed.py calls the same specs with
# both activations and both return_y values to check it.
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
