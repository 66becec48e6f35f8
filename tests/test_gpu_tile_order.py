"""On an H100/H200: the sm90 kernels' band tile order (csrc/gemm/tile_order.hpp through
csrc/gemm/sm90/tile_scheduler.hpp) computes every output tile exactly once where the bands do
not divide the tile grid. Every compiled sm90 persistent axpby and scale kernel, of every input
type, runs with swizzle 8 along both raster orders on a grid of 11 x 5 clusters (so each order has
a last, partial band), batched and not, against the fp64 reference, with D poisoned beforehand; the
fused kernels (full and lean) likewise, unbatched. The tail-split kernels (the last wave split
along K, csrc/gemm/tile_order.hpp) on problems whose plan splits: every piece's partial sum
reaches its tile once, bit for bit the same on every run, after whole waves and below a wave;
and the op's FP8 calls below a wave of deep tiles take a tail-split kernel; those where a wave
of 128x192 tiles costs least, the 128x192 scale kernel.
Marked gpu: skipped, with the reason, without a GPU."""
import gc
import time

import pytest
import torch

from blackwell_ops import _C, gemm_axpby
from helpers import (activation_tolerance, assert_close, fp8_linear_call, fp8_op_twice,
                     fused_reference, gpu_arch, kernel_dtype, kernel_params, kernel_tolerance,
                     kernels_for_this_gpu,
                     out_tolerance, poison_next_alloc, rand_input, reference, scale_tensor,
                     scaled_alpha)

pytestmark = pytest.mark.gpu


def _sm90_persistent(*epilogues, schedulers=("persistent", "tail_split")):
    if not torch.cuda.is_available() or gpu_arch() != 90:
        return []
    return [k for e in epilogues for k in kernels_for_this_gpu(e) if k["scheduler"] in schedulers]


KERNELS = kernel_params(_sm90_persistent("axpby", "scale"),
                        "no compiled sm90 persistent axpby kernel for this GPU (or no H100/H200)")
FUSED = kernel_params(_sm90_persistent("fused", "lean"),
                      "no compiled sm90 persistent fused kernel for this GPU (or no H100/H200)")
TAIL_SPLIT = kernel_params(
    _sm90_persistent("axpby", "scale", "fused", "lean", schedulers=("tail_split",)),
    "no compiled sm90 tail-split kernel for this GPU (or no H100/H200)")


def _operands(kernel, lead=()):
    """(a, b, generator) on a grid of 11 clusters along M and 5 along N, the last tile of each
    partial, laid out as the kernel reads them; 16-element steps keep every layout's 16-byte
    alignment. Bands of 8 (along_n: rows of M) or 4 (along_m: 5 columns of N narrow the band)
    leave 3 and 1 rows in the last band."""
    (tm, tn, tk), (cm, cn) = kernel["tile"], kernel["cluster"]
    m, n, k = tm * cm * 11 - 16, tn * cn * 5 - 16, 3 * tk
    g = torch.Generator(device="cuda").manual_seed(m + n + len(lead))
    a = rand_input((*lead, m, k), kernel_dtype(kernel["ab"]), "cuda", g,
                   transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), kernel_dtype(kernel["b"]), "cuda", g,
                   transposed=kernel["b_major"] == "K")
    return a, b, g


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
@pytest.mark.parametrize("batch", [None, 2])
def test_band_order_computes_every_tile_once(kernel, raster, batch, monkeypatch):
    # tf32 kernels take float32 inputs only where torch allows TF32 for matmuls.
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", True)
    lead = () if batch is None else (batch,)
    a, b, g = _operands(kernel, lead)
    (m, k), n, cd = a.shape[-2:], b.shape[-1], kernel_dtype(kernel["cd"])
    integer, no_c = cd == torch.int32, kernel["epilogue"] == "scale"
    c = None if integer or no_c else rand_input((*lead, m, n), cd, "cuda", g)
    alpha, beta = (1.0, 0.0) if integer or no_c else (0.75, -1.25)
    poison_next_alloc((*lead, m, n), cd, "cuda")
    msg, d = _C.run_kernel(a, b, c, alpha, beta, cd, kernel["name"], True,
                           {"swizzle": 8, "raster": raster})
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    assert d.shape == (*lead, m, n) and d.dtype == cd
    assert_close(d, reference(a, b, c, alpha, beta), kernel_tolerance(kernel),
                 f"{kernel['name']} {m}x{n}x{k} batch={batch} {raster}")


@pytest.mark.parametrize("kernel", FUSED)
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
def test_band_order_fused_kernels(kernel, raster):
    # The fused epilogues (full: with x and Y; lean: without) on the same grid.
    a, b, g = _operands(kernel)
    (m, k), n, cd = a.shape, b.shape[-1], kernel_dtype(kernel["cd"])
    bias = rand_input((n,), cd, "cuda", g)
    full = kernel["epilogue"] == "fused"
    x = rand_input((m, n), cd, "cuda", g) if full else None
    alpha, x_factor, act = 0.75, (1.5 if full else 0.0), kernel["activation"]
    poison_next_alloc((m, n), cd, "cuda")
    msg, out = _C.run_kernel_fused(a, b, None, bias, x, alpha, 0.0, x_factor, act, full, cd,
                                   kernel["name"], True, {"swizzle": 8, "raster": raster})
    assert msg.startswith("ok"), msg
    torch.cuda.synchronize()
    d, y = out
    what = f"{kernel['name']} {m}x{n}x{k} {raster}"
    tol = activation_tolerance(kernel_tolerance(kernel), act)
    assert_close(d, fused_reference(a, b, None, bias, x, alpha, 0.0, x_factor, act), tol, what + " D")
    if full:
        assert_close(y, reference(a, b), kernel_tolerance(kernel), what + " Y")


# (M, N, K, batch) for 128x256 tiles in 2x1 clusters (66 clusters on 132 SMs). 10 x 10 cluster
# tiles: the 34 after the first wave split in 3 k-ranges. 11 x 7: 11 tiles after the first wave,
# in 4 ranges. The same batched twice: 22 tiles after two waves, in 3 ranges. Then below a wave
# (split-K over the idle clusters, the grid of all SMs): 100 x 4000 x 14000 is 16 cluster tiles
# of 128x128 in 1x2 clusters (4 ranges of 110 k-tiles) and 8 of 128x256 in 2x1; 250 x 4000 x 14000
# 32 of 128x128 in either cluster and 16 of 128x256; batched, 100 x 2000 x 8000 x 2 is 16 of
# 128x128 in 1x2 clusters. Last tiles partial in M, N and K.
_SPLIT_SHAPES = [(2544, 2544, 4032, None), (2800, 1776, 4000, None), (2800, 1776, 4000, 2),
                 (100, 4000, 14000, None), (250, 4000, 14000, None), (100, 2000, 8000, 2)]


def _split_plan(kernel, m, n, k, batch):
    (tm, tn, tk), (cm, cn) = kernel["tile"], kernel["cluster"]
    ceil = lambda x, y: -(-x // y)
    tiles = ceil(ceil(m, tm), cm) * ceil(ceil(n, tn), cn) * (batch or 1)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    return _C.sm90_tail_split(tiles, sms // (cm * cn), ceil(k, tk))


@pytest.mark.parametrize("kernel", TAIL_SPLIT)
@pytest.mark.parametrize("shape", _SPLIT_SHAPES, ids=lambda s: "x".join(map(str, s[:3])) +
                         (f"-batch{s[3]}" if s[3] else ""))
@pytest.mark.parametrize("raster", ["along_n", "along_m"])
def test_tail_split_computes_every_tile_once(kernel, shape, raster, monkeypatch):
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", True)
    m, n, k, batch = shape
    whole, split_tiles, splits, _ = _split_plan(kernel, m, n, k, batch)
    if splits == 1:
        pytest.skip(f"this GPU's SM count splits nothing at {shape} for {kernel['name']}")
    lead = () if batch is None else (batch,)
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = rand_input((*lead, m, k), kernel_dtype(kernel["ab"]), "cuda", g,
                   transposed=kernel["a_major"] == "MN")
    b = rand_input((*lead, k, n), kernel_dtype(kernel["b"]), "cuda", g,
                   transposed=kernel["b_major"] == "K")
    cd = kernel_dtype(kernel["cd"])
    epilogue = kernel["epilogue"]
    c = rand_input((*lead, m, n), cd, "cuda", g) if epilogue in ("axpby", "fused", "lean") else None
    sched = {"swizzle": 8, "raster": raster}
    if epilogue in ("fused", "lean"):
        if batch:
            pytest.skip("the fused op is not batched")
        bias = rand_input((n,), cd, "cuda", g)
        full = epilogue == "fused"
        x = rand_input((m, n), cd, "cuda", g) if full else None
        act = kernel["activation"]
        def run(s):
            msg, out = _C.run_kernel_fused(a, b, c, bias, x, 0.75, -1.25, 1.5 if full else 0.0,
                                           act, full, cd, kernel["name"], True, s)
            assert msg.startswith("ok"), msg
            return out[0]
        ref = fused_reference(a, b, c, bias, x, 0.75, -1.25, 1.5 if full else 0.0, act)
        tol = activation_tolerance(kernel_tolerance(kernel), act)
    else:
        def run(s):
            msg, d = _C.run_kernel(a, b, c, 0.75, -1.25 if c is not None else 0.0, cd,
                                   kernel["name"], True, s)
            assert msg.startswith("ok"), msg
            return d
        ref = reference(a, b, c, 0.75, -1.25 if c is not None else 0.0)
        tol = kernel_tolerance(kernel)
    # The host path sizes a workspace exactly when the call splits (and none when told not to).
    msg, _ = _C.run_kernel(a, b, c, 0.75, 0.0, cd, kernel["name"], False, sched) \
        if epilogue in ("axpby", "scale") else ("ok: workspace 1 bytes", None)
    assert msg.startswith("ok") and not msg.startswith("ok: workspace 0 "), msg
    what = f"{kernel['name']} {m}x{n}x{k} batch={batch} {raster} (whole {whole}, {split_tiles} split {splits} ways)"
    poison_next_alloc((*lead, m, n), cd, "cuda")
    d1 = run(sched)
    torch.cuda.synchronize()
    assert_close(d1, ref, tol, what)
    poison_next_alloc((*lead, m, n), cd, "cuda")
    d2 = run(sched)
    assert torch.equal(d1, d2), what + ": not the same bits on a second run"
    poison_next_alloc((*lead, m, n), cd, "cuda")
    d3 = run(dict(sched, decomposition="data_parallel"))
    torch.cuda.synchronize()
    assert_close(d3, ref, tol, what + " data_parallel")


_TS_E4M3 = {k["name"]: k for k in _sm90_persistent("axpby", "scale", schedulers=("tail_split",))
            if k["name"].startswith("sm90_e4m3_bf16_ak_bk_")}


@pytest.mark.skipif(not _TS_E4M3, reason="no compiled sm90 e4m3 -> bf16 tail-split kernel here "
                    "(or no H100/H200)")
@pytest.mark.parametrize("m,n,k", [(640, 4096, 14336), (1152, 4096, 14336)])
def test_op_takes_the_tail_split_kernel_where_it_splits(m, n, k):
    """The public op, not a kernel by name: an FP8 call without C whose last wave the plan splits
    runs on a tail-split twin (the planner's rule, csrc/gemm/heuristics.cpp: 128x128 in 1x2
    clusters after one or two waves of deep tiles), with the scales, against the fp64
    reference, the same bits on a second call."""
    g = torch.Generator(device="cuda").manual_seed(m + k)
    a = rand_input((m, k), torch.float8_e4m3fn, "cuda", g)
    b = rand_input((k, n), torch.float8_e4m3fn, "cuda", g, transposed=True)
    sa, sb = scale_tensor(0.5), scale_tensor(1.5)
    path = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)
    name = path.removeprefix("kernel: ")
    twin = "sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_ts_axpby"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if name not in _TS_E4M3:
        assert not (twin in _TS_E4M3 and sms == 132), f"{m}x{n}x{k}: {path}, not {twin}"
        pytest.skip(f"the op takes {path} here ({sms} SMs; {twin} compiled: {twin in _TS_E4M3})")
    kernel = _TS_E4M3[name]
    whole, split_tiles, splits, _ = _split_plan(kernel, m, n, k, None)
    assert splits > 1, f"{path} is ranked first where it splits nothing at {m}x{n}x{k}"
    poison_next_alloc((m, n), torch.bfloat16, "cuda")
    d1 = gemm_axpby(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    what = f"op {m}x{n}x{k} (whole {whole}, {split_tiles} split {splits} ways): {path}"
    assert_close(d1, reference(a, b, None, scaled_alpha(1.0, sa, sb)), kernel_tolerance(kernel), what)
    poison_next_alloc((m, n), torch.bfloat16, "cuda")
    d2 = gemm_axpby(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    assert torch.equal(d1, d2), what + ": not the same bits on a second call"


_TS_E4M3_AXPBY = {k["name"] for k in _sm90_persistent("axpby", schedulers=("tail_split",))
                  if k["name"].startswith("sm90_e4m3_bf16_ak_bk_")}


@pytest.mark.parametrize("m,n,k,kind", [(100, 2048, 14336, "c1x2_coop_fp8overlap"),
                                        (128, 4096, 28672, "c1x2_coop_fp8overlap"),
                                        (256, 4096, 14336, "c2x1_coop_fp8overlap_stream"),
                                        (384, 2048, 14336, "c1x2_coop_fp8overlap")])
@pytest.mark.parametrize("with_c", [False, True], ids=["no_c", "c"])
def test_op_splits_deep_tiles_below_a_wave(m, n, k, kind, with_c):
    """The public op at small M (Llama-3 8B's down projection at prefill sizes, and half and
    twice as deep; M <= 64 takes a swapped kernel, tests/test_gpu_swap.py, and a wave of 64x64
    tiles at K <= 16384 the 64x64 ping-pong tile, below): few deep 128x128 tiles, which the
    tail-split twin splits along K over the idle SMs (csrc/gemm/heuristics.cpp; one row of 2x1
    clusters, 129-256 rows, with the weights loaded evict-first), with the scales and C, against
    the fp64 reference, the same bits on a second call."""
    name = f"sm90_e4m3_bf16_ak_bk_128x128x128_{kind}_ts_axpby"
    if name not in _TS_E4M3_AXPBY:
        pytest.skip(f"{name} is not compiled here (or no H100/H200)")
    path, ref, outs = fp8_op_twice(m, n, k, -0.5 if with_c else 0.0, seed=m + k)
    assert path == f"kernel: {name}", path
    assert_close(outs[0], ref, out_tolerance(torch.float8_e4m3fn, torch.bfloat16),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"


# The flags of the tail split (csrc/gemm/sm90/tile_scheduler.hpp): an eager launch keeps them in a
# buffer of its stream that every launch leaves zero (csrc/bw_ops_cuda.cpp, attach_split_flags),
# so it needs no memset; a launch captured into a CUDA graph takes a buffer of its own, zeroed when
# made and owned by the graph (captured_split_flags), so the graph needs no memset either.
# 16 x 4096 x 14336 (Llama-3 8B's down projection at decode) splits on the swapped
# 16-token kernel or, without one, the 128x128 twins.
_FLAGS_SHAPE = (16, 4096, 14336)


def _fp8_call(seed):
    """Fresh FP8 operands at _FLAGS_SHAPE, their fp64 reference, a call of the op (no C)."""
    (a, b, _, sa, sb), ref, call = fp8_linear_call(*_FLAGS_SHAPE, 0.0, seed)
    return (a, b, sa, sb), ref, call


def _splitting_path():
    (a, b, sa, sb), _, _ = _fp8_call(0)
    path = _C.explain(a, b, None, 1.0, 0.0, torch.bfloat16, sa, sb)
    if not (path.startswith("kernel: ") and "_ts_" in path):
        pytest.skip(f"the op takes no tail-split kernel at {_FLAGS_SHAPE} here: {path}")
    return path


def test_split_flags_are_left_zero_and_new_data_gets_its_answer():
    """Eager calls one after another on one stream, each on new data (so a reducer that read a
    flag left raised by the call before would add that call's partial sums, which lie in the
    same workspace block, and fail its fp64 check); after each, every flag of the stream is
    zero again."""
    path = _splitting_path()
    tol = out_tolerance(torch.float8_e4m3fn, torch.bfloat16)
    for i in range(4):
        _, ref, call = _fp8_call(100 + i)
        poison_next_alloc((_FLAGS_SHAPE[0], _FLAGS_SHAPE[1]), torch.bfloat16, "cuda")
        d = call()
        assert _C.split_flags_nonzero(d) == 0, f"call {i}: flags left raised ({path})"
        torch.cuda.synchronize()
        assert_close(d, ref, tol, f"call {i}: {path}")


def test_split_flags_per_stream():
    """Two streams running splitting calls at once, each on its own data: each stream has its own
    flags (one buffer shared by concurrent launches would let a reducer see another launch's
    flag), both answers hold, and both streams' flags end zero."""
    path = _splitting_path()
    tol = out_tolerance(torch.float8_e4m3fn, torch.bfloat16)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    calls = [_fp8_call(200 + i) for i in range(2)]
    outs = [[], []]
    for s in streams:
        s.wait_stream(torch.cuda.current_stream())
    for _ in range(6):
        for i, s in enumerate(streams):
            with torch.cuda.stream(s):
                outs[i].append(calls[i][2]())
    torch.cuda.synchronize()
    for i, s in enumerate(streams):
        with torch.cuda.stream(s):
            assert _C.split_flags_nonzero(outs[i][0]) == 0, f"stream {i}: flags left raised"
        for j, d in enumerate(outs[i]):
            assert_close(d, calls[i][1], tol, f"stream {i} call {j}: {path}")


def test_split_in_a_cuda_graph_has_no_memset_and_gives_its_flags_back():
    """Each splitting call captured in a CUDA graph takes a flags buffer of its own (from the free
    list, else made and zeroed outside the graph), so the graph holds kernels and no memset node;
    replays with new data in the captured inputs and NaN in the captured outputs give each call
    the new data's answer; destroying the graph puts its buffers back on
    the free list with every flag zero. More calls are captured than buffers are free, so two are
    made during the capture (cudaMalloc under a global-mode capture) and the rest reused."""
    path = _splitting_path()
    tol = out_tolerance(torch.float8_e4m3fn, torch.bfloat16)
    (a, b, sa, sb), _, call = _fp8_call(500)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside capture
        call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    gc.collect()
    made0, free0, _ = _C.captured_split_flags_state(a)
    calls = free0 + 2
    graph = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(graph):
        outs = [call() for _ in range(calls)]
    types = _C.graph_node_types(graph.raw_cuda_graph())
    assert "memset" not in types and types.count("kernel") >= calls, f"{path}: nodes {types}"
    made1, free1, _ = _C.captured_split_flags_state(a)
    assert (made1 - made0, free1) == (2, 0), (made0, free0, made1, free1)
    graph.instantiate()
    for replay in range(3):
        (a2, b2, _, _), _, _ = _fp8_call(600 + replay)
        a.copy_(a2)
        b.copy_(b2)
        for d in outs:
            d.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ref = reference(a, b, None, scaled_alpha(1.0, sa, sb))
        for i, d in enumerate(outs):
            assert_close(d, ref, tol, f"replay {replay} call {i}: {path}")
    del graph
    gc.collect()
    torch.cuda.synchronize()
    deadline = time.monotonic() + 10.0  # CUDA releases user objects asynchronously
    while _C.captured_split_flags_state(a)[1] < calls and time.monotonic() < deadline:
        time.sleep(0.01)
    made2, free2, nonzero = _C.captured_split_flags_state(a)
    assert (made2, free2, nonzero) == (made1, calls, 0), (made1, calls, made2, free2, nonzero)


_STREAM_B = "sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_stream_axpby"


@pytest.mark.parametrize("m,n,k", [(129, 14336, 4096), (256, 14336, 4096), (200, 6144, 4096)])
@pytest.mark.parametrize("with_c", [False, True], ids=["no_c", "c"])
def test_op_streams_the_weights_on_one_row_of_clusters(m, n, k, with_c):
    """The public op at 129-256 rows, one row of 2x1 clusters of 128x128 tiles, whose grid reads
    each weight byte once, takes the kernel that loads them evict-first where its tail-split twin
    does not split (csrc/gemm/heuristics.cpp; the second CTA of each cluster has 1-128 rows and
    receives the weight tile by multicast), with the scales and C, against the fp64 reference,
    the same bits on a second call."""
    if _STREAM_B not in {k2["name"] for k2 in _sm90_persistent("axpby", schedulers=("persistent",))}:
        pytest.skip(f"{_STREAM_B} is not compiled here (or no H100/H200)")
    path, ref, outs = fp8_op_twice(m, n, k, -0.5 if with_c else 0.0, seed=m + n + k)
    assert path == f"kernel: {_STREAM_B}", path
    assert_close(outs[0], ref, out_tolerance(torch.float8_e4m3fn, torch.bfloat16),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"


_PP6464 = "sm90_e4m3_bf16_ak_bk_64x64x128_c1x1_pingpong_axpby"


@pytest.mark.parametrize("m,n,k", [(128, 4096, 4096), (80, 4096, 4096), (100, 4096, 14336)])
@pytest.mark.parametrize("with_c", [False, True], ids=["no_c", "c"])
def test_op_runs_a_wave_of_64x64_tiles_unsplit(m, n, k, with_c):
    """The public op at 65-128 rows whose 64x64 tiles fill 3/4 to 1 wave at K <= 16384 takes the
    64x64 ping-pong kernel where no swapped tile is taken (M > 96 or K < 8192, and its tiles short
    of 3/4 of a wave; csrc/gemm/heuristics.cpp), with the scales and C, against the fp64
    reference, the same bits on a second call."""
    if _PP6464 not in {k2["name"] for k2 in _sm90_persistent("axpby", schedulers=("persistent",))}:
        pytest.skip(f"{_PP6464} is not compiled here (or no H100/H200)")
    path, ref, outs = fp8_op_twice(m, n, k, -0.5 if with_c else 0.0, seed=m + n + k)
    assert path == f"kernel: {_PP6464}", path
    assert_close(outs[0], ref, out_tolerance(torch.float8_e4m3fn, torch.bfloat16),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"


_W192 = "sm90_e4m3_bf16_ak_bk_128x192x128_c{}_coop_fp8overlap_scale_e128x64"


@pytest.mark.parametrize("m,n,k,cluster", [(640, 4096, 4096, "2x1"), (300, 6144, 4096, "2x1"),
                                           (640, 14336, 4096, "1x2"), (1536, 2048, 1024, "2x1")])
def test_op_takes_the_128x192_tile_where_its_grid_costs_least(m, n, k, cluster):
    """The public op at 300-1536 rows without C, where a wave of 128x192 tiles costs less than
    the 128x128 grids' waves and the 128x256 one's (csrc/gemm/heuristics.cpp, sm90_fp8_places;
    session 34), takes the 128x192 scale kernel (its last column of tiles partly past N: 4096,
    6144, 14336 and 2048 are no multiples of 192; 300 rows leave the last row of tiles partly
    empty), with the scales, against the fp64 reference, the same bits on a second call."""
    name = _W192.format(cluster)
    if name not in {k2["name"] for k2 in _sm90_persistent("scale", schedulers=("persistent",))}:
        pytest.skip(f"{name} is not compiled here (or no H100/H200)")
    path, ref, outs = fp8_op_twice(m, n, k, 0.0, seed=m + n + k)
    assert path == f"kernel: {name}", path
    assert_close(outs[0], ref, out_tolerance(torch.float8_e4m3fn, torch.bfloat16),
                 f"op {m}x{n}x{k}: {path}")
    assert torch.equal(outs[0], outs[1]), f"op {m}x{n}x{k}: not the same bits on a second call"
