"""The planner (csrc/gemm/heuristics.cpp) as a pure function, for both arches, on CPU."""
import pytest

from blackwell_ops import _C


def plan(arch=90, table="all", **problem):
    p = dict(m=4096, n=4096, k=4096, ab="bfloat16")
    p.update(problem)
    return _C.plan(p, arch, table)


@pytest.mark.parametrize("arch", [90, 100])
@pytest.mark.parametrize("ab", ["bfloat16", "float16"])
@pytest.mark.parametrize("a_major", ["K", "MN"])
@pytest.mark.parametrize("b_major", ["K", "MN"])
def test_every_layout_has_a_kernel_in_all(arch, ab, a_major, b_major):
    name, why = plan(arch, ab=ab, a_major=a_major, b_major=b_major)
    assert name is not None, why
    assert name.startswith(f"sm{arch}_")
    tag = {"bfloat16": "bf16", "float16": "f16"}[ab]
    assert f"_{tag}_{tag}_a{a_major.lower()}_b{b_major.lower()}_" in name


@pytest.mark.parametrize("arch", [90, 100])
def test_fp32_output(arch):
    name, _ = plan(arch, ab="float16", d="float32", c="float32")
    assert name is not None and "_f16_f32_" in name


def test_other_archs_fall_back():
    for arch in (80, 89, 103, 120):
        name, why = plan(arch)
        assert name is None and "compute capability" in why


def test_exact_fp32_inputs_have_no_kernel_and_the_reason_names_tf32():
    name, why = plan(ab="float32")
    assert name is None and "no kernel takes float32 inputs at full fp32 precision" in why
    assert "allow_tf32" in why


def test_float64_inputs_have_no_kernel():
    name, why = plan(ab="float64")
    assert name is None and "no kernel computes float64 x float64 -> float64" in why


@pytest.mark.parametrize("arch", [90, 100])
@pytest.mark.parametrize("ab, b, d, family", [
    ("float8_e4m3fn", None, "bfloat16", "e4m3_bf16"), ("float8_e4m3fn", None, "float32", "e4m3_f32"),
    ("float8_e5m2", "float8_e4m3fn", "bfloat16", "e5m2xe4m3_bf16"),
    ("int8", None, "int32", "s8_s32"), ("int8", None, "bfloat16", "s8_bf16"),
    ("tf32", None, "float32", "tf32_f32")])
def test_quant_types_plan_to_their_kernel(arch, ab, b, d, family):
    """8-bit and tf32 problems in the K-major layout plan to the kernel of their types."""
    problem = dict(ab=ab, d=d, a_major="K", b_major="K", m=4096, n=4096, k=4096)
    if b:
        problem["b"] = b
    name, why = _C.plan(problem, arch, "all")
    assert name is not None and name.startswith(f"sm{arch}_{family}_ak_bk_"), (name, why)


QUANT_FAMILIES = [("float8_e4m3fn", None, "bfloat16", "e4m3_bf16"),
                  ("float8_e5m2", "float8_e4m3fn", "bfloat16", "e5m2xe4m3_bf16"),
                  ("int8", None, "int32", "s8_s32"), ("tf32", None, "float32", "tf32_f32")]


@pytest.mark.parametrize("ab, b, d, family", QUANT_FAMILIES)
@pytest.mark.parametrize("a_major, b_major", [("K", "MN"), ("MN", "K"), ("MN", "MN")])
def test_quant_types_mn_major_only_on_sm100(ab, b, d, family, a_major, b_major):
    """sm90's wgmma reads 8-bit and tf32 operands K-major only: no kernel, and the op copies the
    operand K-major (csrc/bw_ops_cuda.cpp). sm100's UMMA reads them MN-major too: a kernel of
    that exact layout, so the op copies nothing."""
    problem = dict(ab=ab, d=d, a_major=a_major, b_major=b_major, m=256, n=256, k=256)
    if b:
        problem["b"] = b
    name, why = _C.plan(problem, 90, "all")
    assert name is None and f"no compiled sm_90a kernel for {ab}" in why, (name, why)
    name, why = _C.plan(problem, 100, "all")
    layout = f"_a{a_major.lower()}_b{b_major.lower()}_"
    assert name is not None and name.startswith(f"sm100_{family}{layout}"), (name, why)


def test_int8_needs_int8_b():
    name, why = _C.plan(dict(ab="int8", b="float8_e4m3fn", d="bfloat16", m=64, n=64, k=64), 90,
                        "all")
    assert name is None and "no kernel computes int8 x float8_e4m3fn" in why


def test_c_dtype_must_match_output():
    name, why = plan(ab="bfloat16", d="bfloat16", c="float32")
    assert name is None and "reads c as float32" in why


def test_fp16_output_from_bf16_is_refused():
    name, why = plan(ab="bfloat16", d="float16")
    assert name is None and "no kernel computes bfloat16 x bfloat16 -> float16" in why


@pytest.mark.parametrize("operand,field,value,expect", [
    ("a_operand", "ptr", (1 << 20) + 2, "a's data pointer is not 16-byte aligned"),
    ("b_operand", "ld", 4100, "b's leading stride 4100 is not a multiple of 8"),
    ("c_operand", "ptr", (1 << 20) + 8, "c's data pointer"),
    ("d_operand", "ld", 4097, "out's leading stride"),
])
def test_alignment(operand, field, value, expect):
    problem = {operand: {field: value}}
    if operand == "c_operand":
        problem["c"] = "bfloat16"
    name, why = plan(**problem)
    assert name is None and expect in why


def test_unaligned_extent():
    name, why = plan(k=4100)  # a is K-major: K must be a multiple of 8
    assert name is None and "unit-stride extent 4100" in why
    name, _ = plan(k=4100, a_major="MN", b_major="MN")  # K has no unit stride: fine
    assert name is not None


def test_batch_stride_alignment_and_broadcast():
    name, why = plan(l=4, b_operand={"batch": 12})
    assert name is None and "batch stride 12" in why
    name, _ = plan(l=4, b_operand={"batch": 0})  # b shared by every batch
    assert name is not None


def test_32bit_sizes():
    name, why = plan(m=2**31)
    assert name is None and "32-bit" in why


def test_compiled_table_only_offers_compiled_kernels():
    compiled = {k["name"] for k in _C.compiled_kernels()}
    for arch in (90, 100):
        name, why = plan(arch, table="compiled")
        assert name is None or name in compiled
        if not any(k.startswith(f"sm{arch}_") for k in compiled):
            assert "no sm_" in why


@pytest.mark.parametrize("m,schedule", [(1, "1sm"), (64, "1sm"), (128, "1sm"), (129, "2sm"),
                                        (4096, "2sm")])
@pytest.mark.parametrize("b_major", ["K", "MN"])
def test_sm100_small_m_takes_a_1sm_kernel(m, schedule, b_major):
    name, why = plan(100, m=m, b_major=b_major)
    assert name is not None, why
    assert f"_{schedule}_" in name, name


def test_sm100_small_m_without_a_1sm_kernel_takes_2sm():
    name, _ = plan(100, m=64, a_major="MN")  # no 1-SM kernel for an M-major a
    assert name is not None and "_2sm_" in name


def test_sm90_ignores_the_sm100_rule():
    name, _ = plan(90, m=100, n=8192, k=4096)  # a 1-SM case on sm100
    assert name.startswith("sm90_") and "_1sm_" not in name and "_2sm_" not in name


# The sm90 rules (csrc/gemm/heuristics.cpp, sm90_preference), from the H200 sweep in
# benchmarks/results/h200/tune/ and session 38's H100 timings (docs/results/session38/).
@pytest.mark.parametrize("mnkl,config", [
    ((1, 8192, 8192, 1), "64x128x64_c1x2_pingpong"),     # M <= 64
    ((64, 4096, 14336, 1), "64x128x64_c1x2_pingpong"),
    ((128, 4096, 14336, 1), "64x128x64_c1x2_pingpong"),  # 32 tiles of 128x128: under 3/4 wave
    ((1024, 1024, 1024, 1), "64x128x64_c1x2_pingpong"),
    ((4096, 4096, 256, 1), "128x256x64_c2x1_coop"),      # K <= 256
    ((512, 512, 128, 64), "128x256x64_c2x1_coop"),
    ((8192, 8192, 8192, 1), "128x256x64_c2x1_coop"),     # M and N >= 8192
    ((4096, 4096, 1024, 1), "128x128x64_c1x2_pingpong"), # the rest: K <= 2048
    ((4096, 4096, 2048, 1), "128x128x64_c1x2_pingpong"),
    ((2048, 2048, 2048, 8), "128x128x64_c1x2_pingpong"),
    ((1024, 6144, 4096, 1), "128x128x64_c1x2_pingpong"), # 192 tiles of 128x256: a wave and 45%
    ((4096, 4096, 4096, 1), "128x256x64_c2x1_coop"),     # K > 2048, 128x256 waves 90% full
    ((2048, 4096, 4096, 1), "128x256x64_c2x1_coop"),     # (session 38)
    ((8192, 4096, 14336, 1), "128x256x64_c2x1_coop"),
    ((16384, 4096, 14336, 1), "128x256x64_c2x1_coop"),
    ((4096, 14336, 4096, 1), "128x256x64_c2x1_coop"),
    ((16384, 4096, 2048, 1), "128x128x64_c1x2_pingpong"),  # K = 2048: the ping-pong's deep-K
    ((8192, 4096, 2048, 1), "128x128x64_c1x2_pingpong"),   # slowdown is absent (session 39)
])
@pytest.mark.parametrize("table", ["all", "compiled"])
def test_sm90_shape_rules(mnkl, config, table):
    m, n, k, l = mnkl
    name, why = plan(90, table=table, m=m, n=n, k=k, l=l, b_major="K")
    compiled = {c["name"] for c in _C.compiled_kernels()}
    if table == "compiled" and f"sm90_bf16_bf16_ak_bk_{config}_axpby" not in compiled:
        pytest.skip(f"this build lacks sm90_bf16_bf16_ak_bk_{config}_axpby")
    assert name == f"sm90_bf16_bf16_ak_bk_{config}_axpby", (name, why)


@pytest.mark.parametrize("ab,d,tag", [("bfloat16", "bfloat16", "bf16_bf16"),
                                       ("float16", "float16", "f16_f16")])
@pytest.mark.parametrize("a_major,b_major", [("K", "MN"), ("MN", "K"), ("MN", "MN")])
def test_sm90_deep_k_rule_holds_in_every_16bit_layout(ab, d, tag, a_major, b_major):
    # Session 38's rule (K > 2048, 128x256 waves 90% full) for each layout the kernels come in;
    # INT8 keeps the 128x128 ping-pong there (test_sm90_int8_takes_the_16bit_roles).
    prefix = f"sm90_{tag}_a{a_major.lower()}_b{b_major.lower()}_"
    for (m, n, k), config in [((8192, 4096, 14336), "128x256x64_c2x1_coop"),
                              ((4096, 4096, 1024), "128x128x64_c1x2_pingpong")]:
        name, why = plan(90, m=m, n=n, k=k, ab=ab, d=d, a_major=a_major, b_major=b_major)
        assert name == f"{prefix}{config}_axpby", (name, why)


def test_sm90_shape_rules_fall_back_to_another_config_when_missing():
    # f16 -> f32 with an M-major a has only the big config in `default`... in `all` too, since the
    # small-M configs exist only for a K-major a: the planner takes what exists.
    name, why = plan(90, m=16, ab="float16", d="float32", a_major="MN", b_major="MN")
    assert name is not None and "_128x256x64_c2x1_coop_" in name, (name, why)


def test_sm90_schedule_is_data_parallel():
    name, _, sched = _C.plan(dict(m=4096, n=4096, k=4096, ab="bfloat16"), 90, "all", True)
    assert sched["decomposition"] in ("heuristic", "data_parallel") and sched["splits"] == 1


_FP8 = dict(ab="float8_e4m3fn", d="bfloat16", a_major="K", b_major="K")
_BF16 = dict(ab="bfloat16", d="bfloat16", a_major="K", b_major="K")


@pytest.mark.parametrize("problem,swizzle", [
    (dict(m=8192, n=8192, k=8192, **_FP8), 8),        # A + B 128 MiB, 2048 tiles of 128x256
    (dict(m=8192, n=14336, k=4096, **_FP8), 8),       # Llama-8B up
    (dict(m=4096, n=4096, k=4096, **_FP8), 1),        # A + B 32 MiB: in the L2
    (dict(m=9000, n=8192, k=8192, **_FP8), 8),        # 71 tile rows: the band order pads none
    (dict(m=8192, n=8192, k=8192, **_BF16), 8),
    (dict(m=8192, n=4096, k=14336, **_BF16), 8),      # Llama-8B down
    (dict(m=4096, n=4096, k=1024, **_BF16), 1),       # A + B 16 MiB
    (dict(m=128, n=8192, k=8192, **_BF16), 1),        # 128 tiles of 64x128: under two waves
    (dict(m=8192, n=8192, k=8192, ab="tf32", d="float32", a_major="K", b_major="K"), 8),
    (dict(m=8192, n=14336, k=4096, ab="int8", d="int32", a_major="K", b_major="K"), 8),
], ids=["fp8-8192", "fp8-up", "fp8-4096", "fp8-padded", "bf16-8192", "bf16-down",
        "bf16-shallow", "bf16-m128", "tf32-8192", "int8-up"])
def test_sm90_tile_swizzle(problem, swizzle):
    # csrc/gemm/heuristics.cpp, sm90_swizzle: swizzle 8 once A + B outgrow the L2 over at least
    # two waves of tiles (the band order narrows it to the rows there are); CUTLASS's raster.
    name, why, sched = _C.plan(problem, 90, "all", True)
    assert name is not None and name.startswith("sm90_"), why
    assert (sched["raster"], sched["swizzle"]) == ("heuristic", swizzle), (name, sched)


@pytest.mark.parametrize("minor,major,limit", [
    (33, 32, 8), (32, 33, 8), (64, 32, 8), (71, 7, 8), (5, 9, 8), (3, 4, 8), (1, 17, 8),
    (13, 13, 4), (13, 13, 2), (13, 13, 1), (9, 1, 8), (8, 1, 8),
])
def test_sm90_band_order_is_a_permutation_in_bands(minor, major, limit):
    # csrc/gemm/tile_order.hpp, run through the same code on the host: every cluster of the grid
    # exactly once; full bands of `band` rows walked column by column, then the last rows.
    band, order = _C.sm90_band_order(minor, major, limit)
    expect_band = 1
    while expect_band * 2 <= min(limit, minor):
        expect_band *= 2
    assert band == expect_band
    assert sorted(order) == [(r, c) for r in range(minor) for c in range(major)]
    full_rows = minor // band * band
    i = 0
    for first in range(0, minor, band):
        rows = band if first < full_rows else minor - full_rows
        for c in range(major):
            for r in range(rows):
                assert order[i] == (first + r, c), (i, order[i], first + r, c)
                i += 1
    assert i == minor * major


@pytest.mark.parametrize("tiles,clusters,k_tiles", [
    (96, 66, 64),      # 1536x4096x8192 on 128x256 FP8 tiles, cluster 2x1, 132 SMs: 1.45 waves
    (160, 66, 64),     # 2560x4096x8192: 2.42 waves
    (100, 66, 32), (67, 66, 64), (24, 7, 1000), (154, 66, 32), (77, 66, 32), (201, 66, 48),
    # below a wave (split-K over the idle clusters): 16x4096x14336 and 256x4096x14336 on FP8
    # 128x128 tiles (16 / 32 cluster tiles of 112 k-tiles), 40 tiles, one tile
    (16, 66, 112), (32, 66, 112), (40, 66, 64), (1, 66, 64),
])
def test_sm90_tail_split_covers_every_k_tile_once(tiles, clusters, k_tiles):
    # csrc/gemm/tile_order.hpp, TailSplit, run on the host: the first `whole` tiles (whole waves)
    # are taken whole; each later tile is cut into `splits` k-ranges, which together cover its
    # k-tiles once, in order. The units go round-robin in k-major order, so the clusters' unit
    # counts differ by at most one and each cluster takes its units in increasing index. A tile's
    # last range reduces it: its peers are the tile's other ranges, each in its own partial
    # slot, and each of smaller index (so no cluster waits for a unit it has not reached).
    whole, split_tiles, splits, runs = _C.sm90_tail_split(tiles, clusters, k_tiles)
    assert splits >= 2 and whole + split_tiles == tiles and whole % clusters == 0
    assert whole == (tiles // clusters) * clusters  # every whole wave, and nothing else, whole
    assert 0 < split_tiles < clusters and len(runs) == clusters
    counts = [len(run) for run in runs]
    assert max(counts) - min(counts) <= 1 and sum(counts) == split_tiles * splits
    ranges, partial_slots, index = {}, set(), {}
    for g, run in enumerate(runs):
        for j, (tile, b, e, peers, partial, slot) in enumerate(run):
            u = g + j * clusters
            assert whole <= tile < tiles and 0 <= b < e <= k_tiles and e - b >= 2
            t = tile - whole
            ranges.setdefault(tile, []).append((b, e))
            if partial:
                assert e < k_tiles and peers == 0 and slot == u
                assert slot < split_tiles * (splits - 1) and slot not in partial_slots
                partial_slots.add(slot)
                index[(t, b)] = u
            else:
                assert e == k_tiles and peers == splits - 1 and slot == t
                assert all(not r[4] for r in run[j:]), "a reducing unit is followed by partials"
                index[(t, "reduce")] = u
    assert sorted(ranges) == list(range(whole, tiles))
    for tile, rs in ranges.items():
        rs.sort()
        assert len(rs) == splits and rs[0][0] == 0 and rs[-1][1] == k_tiles
        assert all(rs[i][1] == rs[i + 1][0] for i in range(splits - 1)), (tile, rs)
        t = tile - whole
        assert all(index[(t, b)] < index[(t, "reduce")] for b, _ in rs[:-1])


def test_sm90_tail_split_only_where_it_pays():
    # 1536x4096x8192 on 128x256 FP8 tiles (1.45 waves): the 30 tiles of the second wave in
    # halves, one round of 32 k-tiles instead of a second wave of 64.
    whole, split_tiles, splits, runs = _C.sm90_tail_split(96, 66, 64)
    assert (whole, split_tiles, splits) == (66, 30, 2)
    assert max(sum(e - b for _, b, e, *_ in run) for run in runs) == 32
    # 11 tiles after a wave: in 4 ranges (44 units, one round of 8 of 32 k-tiles).
    assert _C.sm90_tail_split(77, 66, 32)[:3] == (66, 11, 4)
    # Below a wave: FP8 16x4096x14336 on 128x128 tiles, cluster 1x2 (16 cluster tiles of 112
    # k-tiles) in 4 ranges, one round of 28 k-tiles on 64 of the 66 clusters.
    assert _C.sm90_tail_split(16, 66, 112)[:3] == (0, 16, 4)
    # Nothing to split: whole waves, a single wave, short K, switched off, too little saved
    # (4096^3 on 128x256: 256 tiles, 58 left after 3 waves; below a wave, 56 tiles of 32 k-tiles,
    # FP8 16x14336x4096 on 128x128, whose halves would take two rounds), or more than 3 whole
    # waves (8192^3: 1024 tiles, 15.52 waves; Llama-8B up 8192x14336x4096: 27.15 waves).
    # No split of three or more rounds (session 31): below a wave, 48 tiles of 112 k-tiles, whose
    # 4 ranges the cost model alone would take (384 x 4096 x 14336 on 128x128 1x2: lost 28%).
    assert _C.sm90_tail_split(48, 66, 112)[1:3] == (0, 1)
    assert _C.sm90_tail_split(40, 66, 64)[1:3] == (40, 3)  # two rounds: split
    for args in [(660, 66, 64), (66, 66, 64), (56, 66, 32), (100, 66, 3), (77, 66, 8),
                 (16, 66, 8), (256, 66, 32), (1024, 66, 64), (1792, 66, 32)]:
        assert _C.sm90_tail_split(*args)[1:3] == (0, 1), args
    assert _C.sm90_tail_split(96, 66, 64, False)[1:3] == (0, 1)


def test_sm100_keeps_cutlass_tile_order():
    name, why, sched = _C.plan(dict(m=8192, n=8192, k=8192, **_BF16), 100, "all", True)
    assert name is not None and name.startswith("sm100_"), why
    assert sched["swizzle"] == 1, (name, sched)


_FP8_TILES = [(8192, 8192, 256), (8192, 4096, 256), (4096, 4096, 256),
              (512, 8192, 256), (640, 4096, 256), (65536, 128, 128)]


@pytest.mark.parametrize("fused", [False, True], ids=["plain", "fused"])
@pytest.mark.parametrize("m,n,tile_n", _FP8_TILES)
def test_sm90_fp8_takes_the_wide_tile_when_it_fills_a_wave(m, n, tile_n, fused):
    # 128x256 where its grid of 2x1 clusters takes no more waves (times a cluster's work, less
    # 4%) than the 128x128 ones (at three or more rows of 128-row tiles, session 30: 512 x 8192
    # one wave against two, 640 x 4096 two each; at N = 128 it would add empty chunks), else
    # 128x128; the overlap mainloop in 2x1 clusters (csrc/gemm/heuristics.cpp;
    # docs/results/h200-session5/, h200-session7/, h200-session30/). 128x128 in 1x2 clusters:
    # test_sm90_fp8_small_m.
    name, why = plan(90, m=m, n=n, k=4096, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                     b_major="K", **(dict(activation="gelu_tanh") if fused else dict(c="bfloat16")))
    tail = "lean_gelu_tanh" if fused else "axpby"  # no x or return_y: the lean fused kernel
    assert name == f"sm90_e4m3_bf16_ak_bk_128x{tile_n}x128_c2x1_coop_fp8overlap_{tail}", \
        (name, why)


@pytest.mark.parametrize("m,n,tile_n", [t for t in _FP8_TILES if t != (640, 4096, 256)])
def test_sm90_fp8_without_c_takes_the_scale_kernel_of_the_wide_tile(m, n, tile_n):
    # (640 x 4096 without C: the 128x192 scale kernel since session 34, test_sm90_fp8_small_m)
    # A call without C: on the wide tile the scale kernel (no C buffers, a 128x64 epilogue
    # subtile, the same bits), on 128x128 the axpby kernel, which has no scale sibling.
    name, why = plan(90, m=m, n=n, k=4096, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                     b_major="K")
    tail = "scale_e128x64" if tile_n == 256 else "axpby"
    assert name == f"sm90_e4m3_bf16_ak_bk_128x{tile_n}x128_c2x1_coop_fp8overlap_{tail}", \
        (name, why)


@pytest.mark.parametrize("m,n,k,split", [
    (8192, 8192, 8192, False),   # 15 whole waves: the power limit, no split (tile_order.hpp)
    (4096, 4096, 4096, False),   # 58 left after 3 waves: splitting would save too little
    (896, 4096, 1024, False),    # 8 k-tiles: too short to split
    # session 17's shapes: 96 / 160 tiles, the 30 / 28 after whole waves in halves, one round
    # (session 30 took 128x128 in 1x2 clusters there, by whole waves; session 31 costs the split)
    (1536, 4096, 8192, True), (2560, 4096, 8192, True),
    # (640 x 4096 x 14336: 48 tiles here, whose split would take three rounds; the 1x2 split since
    # session 31, test_sm90_fp8_small_m)
])
def test_sm90_fp8_without_c_takes_the_tail_split_kernel_where_it_splits(m, n, k, split):
    # The tail-split twin of the wide scale kernel ranks first where its scheduler splits the
    # call (csrc/gemm/heuristics.cpp, tail_split_pays), last of its role elsewhere.
    name, why = plan(90, m=m, n=n, k=k, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                     b_major="K")
    ts = "_ts" if split else ""
    assert name == f"sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap{ts}_scale_e128x64", \
        (name, why)
    whole, split_tiles, splits, _ = _C.sm90_tail_split(
        -(-m // 256) * -(-n // 256), 66, -(-k // 128))
    assert (splits > 1) == split


_E4M3 = "sm90_e4m3_bf16_ak_bk_"


@pytest.mark.parametrize("m,n,k,with_c,kernel", [
    # M <= 64: the smallest swapped tile (D^T = B^T A^T) holding the call's rows, with C or
    # without, split along K below a wave where its tail-split plan splits (the down shapes),
    # the weights loaded evict-first (coop_stream) rather than plainly (coop, also in `all`)
    (1, 14336, 4096, False, "16x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (16, 14336, 4096, False, "16x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (17, 4096, 14336, True, "32x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (32, 14336, 4096, True, "32x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (33, 14336, 4096, False, "64x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (64, 14336, 4096, True, "64x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (16, 4096, 14336, False, "16x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (64, 4096, 14336, True, "64x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    # 65-128 rows: a swapped tile where its tiles fill 3/4 of a wave, or the 96-token one at
    # K >= 8192 (session 28)
    (80, 14336, 4096, False, "96x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (96, 14336, 4096, True, "96x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (128, 14336, 4096, False, "128x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (80, 4096, 14336, False, "96x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (80, 3584, 8192, True, "96x128x128_c1x1_coop_stream_ts_swapab_axpby"),
    (96, 12672, 4096, False, "96x128x128_c1x1_coop_stream_ts_swapab_axpby"),  # 99 tiles: 3/4
    (96, 12544, 4096, False, "128x128x128_c1x2_coop_fp8overlap_axpby"),  # 98 tiles: short of it
    (97, 4096, 14336, False, "64x64x128_c1x1_pingpong_axpby"),  # deep, but past the 96 tile
    # else, whose 64x64 tiles fill 3/4 to 1 wave, K <= 16384: the 64x64 ping-pong tile
    (128, 4096, 4096, False, "64x64x128_c1x1_pingpong_axpby"),
    (80, 4096, 4096, True, "64x64x128_c1x1_pingpong_axpby"),
    (128, 4096, 14336, True, "64x64x128_c1x1_pingpong_axpby"),
    (128, 4096, 16400, False, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),  # deeper: split
    (128, 2048, 14336, True, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),  # half a wave
    # one row of 128-row tiles: the cluster along N
    (128, 12288, 2048, False, "128x128x128_c1x2_coop_fp8overlap_axpby"),
    # two rows: cluster 2x1, its twin where that splits (32 cluster tiles); one row of such
    # clusters (129-256 rows) reads each weight byte once: the weights evict-first (session 29)
    (256, 14336, 4096, False, "128x128x128_c2x1_coop_fp8overlap_stream_axpby"),
    (129, 14336, 4096, True, "128x128x128_c2x1_coop_fp8overlap_stream_axpby"),
    (256, 4096, 14336, False, "128x128x128_c2x1_coop_fp8overlap_stream_ts_axpby"),
    (192, 4096, 14336, True, "128x128x128_c2x1_coop_fp8overlap_stream_ts_axpby"),
    (256, 4096, 8192, False, "128x128x128_c2x1_coop_fp8overlap_stream_ts_axpby"),
    # ... but where their 64x128 tiles fit one wave, at K < 8192, the overlap mainloop on the
    # ping-pong kernel (session 36: 129-256 x 4096 x 4096 17.1-17.5 us against 18.6-18.9)
    (129, 4096, 4096, False, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),
    (192, 4096, 4096, True, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),
    (256, 4096, 4096, False, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),
    (256, 4096, 512, True, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),
    (256, 2048, 7168, False, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),
    (256, 4224, 4096, False, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),  # 132 tiles
    # (136 tiles; the twin, whose model splits 34 tiles in 3 ranges, not at K < 8192: session 36)
    (256, 4352, 4096, False, "128x128x128_c2x1_coop_fp8overlap_stream_axpby"),
    (256, 4352, 4096, True, "128x128x128_c2x1_coop_fp8overlap_stream_axpby"),
    (192, 5632, 4096, True, "64x128x128_c1x1_pingpong_fp8overlap_axpby"),  # 3 x 44 tiles
    # three or more rows of 128-row tiles (session 30, sm90_fp8_places): each weight tile read
    # by several clusters, plain loads; the tile and cluster whose grid takes the fewest waves
    # (times a cluster's work), ties to 128x256, then to the 2x1 cluster (session 35: 0-8%
    # faster than 1x2 at such ties on the H100, within 0.5% on the H200)
    (257, 4096, 14336, True, "128x128x128_c2x1_coop_fp8overlap_axpby"),  # 1 wave each
    (384, 14336, 4096, True, "128x128x128_c1x2_coop_fp8overlap_axpby"),  # 3 waves, 2x1: 4
    (640, 6144, 4096, True, "128x128x128_c1x2_coop_fp8overlap_axpby"),  # 2 waves, 2x1: 3
    (640, 4096, 4096, True, "128x256x128_c2x1_coop_fp8overlap_axpby"),  # 2 waves each: wide
    (1152, 6144, 4096, False, "128x256x128_c2x1_coop_fp8overlap_scale_e128x64"),
    # without C also the 128x192 scale kernels (session 34): one wave of them costs 1.62
    # waves of 128x128 (the wide tile's one wave 1.92, the 128x128 grids' two waves 2)
    (640, 4096, 4096, False, "128x192x128_c2x1_coop_fp8overlap_scale_e128x64"),  # 66 clusters
    (300, 6144, 4096, False, "128x192x128_c2x1_coop_fp8overlap_scale_e128x64"),  # 64 clusters
    (640, 14336, 4096, False, "128x192x128_c1x2_coop_fp8overlap_scale_e128x64"),  # 5 x 38
    (640, 14336, 4096, True, "128x128x128_c1x2_coop_fp8overlap_axpby"),  # with C: no 128x192
    (896, 4096, 4096, False, "128x256x128_c2x1_coop_fp8overlap_scale_e128x64"),  # 2 waves of it
    (384, 14336, 4096, False, "128x128x128_c1x2_coop_fp8overlap_axpby"),  # 3 waves of 128x192
    (256, 6144, 4096, False, "128x128x128_c2x1_coop_fp8overlap_stream_axpby"),  # 2 rows: never
    # the 128x128 tail split there: not at K < 8192, nor where below a wave it takes three
    # rounds of units (384 x 4096 x 14336: 48 tiles in 4 ranges); where it follows whole waves
    # of deep tiles, or below a wave in two rounds, it goes first
    (896, 6144, 4096, True, "128x128x128_c2x1_coop_fp8overlap_axpby"),
    (384, 4096, 14336, False, "128x128x128_c2x1_coop_fp8overlap_axpby"),
    (1152, 4096, 14336, True, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),
    # at K >= 8192 each shape costed by its twin's split (session 31): 640 x 4096 x 14336, a wave
    # and 14 tiles on 1x2 (14 split in 4: 67.1 us) before 48 tiles of 128x256 (76.5)
    (640, 4096, 14336, True, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),
    (640, 4096, 14336, False, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),
    (384, 2048, 14336, False, "128x128x128_c1x2_coop_fp8overlap_ts_axpby"),  # 24 cluster tiles
    (512, 4096, 14336, True, "128x128x128_c2x1_coop_fp8overlap_axpby"),
])
def test_sm90_fp8_small_m(m, n, k, with_c, kernel):
    # csrc/gemm/heuristics.cpp (FP8, small M; session 22's measurements in
    # tools/generate_kernels.py, _SM90_FP8_SMALL_M).
    name, why = plan(90, m=m, n=n, k=k, **_FP8, **(dict(c="bfloat16") if with_c else {}))
    assert name == _E4M3 + kernel, (name, why)
    if "_swapab_" in kernel:  # the down shapes split, the up ones not (132 clusters of one CTA)
        tiles = -(-m // int(kernel.split("x")[0])) * -(-n // 128)
        assert (_C.sm90_tail_split(tiles, 132, -(-k // 128))[2] > 1) == (k > n)
    elif "_ts_" in kernel:
        cm, cn = (1, 2) if "c1x2" in kernel else (2, 1)
        tiles = -(-m // (128 * cm)) * -(-n // (128 * cn))
        assert (tiles < 66 or m > 256) and _C.sm90_tail_split(tiles, 66, -(-k // 128))[2] > 1


def test_sm90_fp8_small_m_fused_takes_the_cluster_rule():
    # The fused epilogue has no 64-row or tail-split kernels; the cluster rule holds where a
    # kernel exists (`all`'s 1x2 fused candidate; the default set has 2x1 fused kernels only).
    name, why = plan(90, m=16, n=4096, k=14336, **_FP8, activation="gelu_tanh")
    assert name == _E4M3 + "128x128x128_c1x2_coop_fp8overlap_fused_gelu_tanh", (name, why)


@pytest.mark.parametrize("m,n,k,kernel", [
    (32, 14336, 4096, "64x128x128_c1x2_pingpong"),     # M <= 64
    (128, 4096, 14336, "64x128x128_c1x2_pingpong"),    # under 3/4 of a wave of 128x128 tiles
    (128, 14336, 4096, "128x128x128_c1x2_pingpong"),
    (2048, 4096, 14336, "128x128x128_c1x2_pingpong"),
    (8192, 8192, 8192, "128x256x128_c2x1_coop"),       # M and N >= 8192
])
@pytest.mark.parametrize("d,tag", [("int32", "s32"), ("bfloat16", "bf16")])
def test_sm90_int8_takes_the_16bit_roles(m, n, k, kernel, d, tag):
    # INT8 follows sm90_preference (csrc/gemm/heuristics.cpp) on its own tiles (K extent 128).
    name, why = plan(90, m=m, n=n, k=k, ab="int8", d=d, a_major="K", b_major="K")
    assert name == f"sm90_s8_{tag}_ak_bk_{kernel}_axpby", (name, why)


def test_scale_kernels_are_only_for_calls_without_c():
    # 16-bit calls have no scale kernels; a call with C never takes one.
    for extra in ({}, dict(c="bfloat16")):
        name, why = plan(90, m=8192, n=8192, k=8192, ab="bfloat16", a_major="K", b_major="K",
                         **extra)
        assert name is not None and name.endswith("_axpby"), (name, why)
    name, why = plan(90, m=8192, n=8192, k=8192, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                     b_major="K", c="bfloat16")
    assert name is not None and name.endswith("_axpby"), (name, why)


@pytest.mark.parametrize("extras,kind", [({}, "lean"), (dict(x=True), "fused"),
                                          (dict(return_y=True), "fused"),
                                          (dict(x=True, return_y=True), "fused")],
                         ids=["bias_act", "x", "y", "x_y"])
@pytest.mark.parametrize("m,n,tile_n", [(8192, 8192, 256), (256, 2048, 128)])
def test_sm90_fp8_fused_takes_the_lean_kernel_without_x_and_y(m, n, tile_n, extras, kind):
    # A lean kernel (no X/Y nodes: one more mainloop stage) where the call has neither x nor
    # return_y, the full one otherwise; the same tile either way (csrc/gemm/heuristics.cpp).
    name, why = plan(90, m=m, n=n, k=4096, ab="float8_e4m3fn", d="bfloat16", a_major="K",
                     b_major="K", activation="gelu_tanh", **extras)
    assert name == f"sm90_e4m3_bf16_ak_bk_128x{tile_n}x128_c2x1_coop_fp8overlap_{kind}_gelu_tanh", \
        (name, why)


def test_plan_says_when_only_a_lean_kernel_would_fit():
    # A build with the lean FP8 fused kernel but not the full one (the ci set): a call with x
    # (or Y) finds no kernel, and the reason says why.
    compiled = {k["name"] for k in _C.compiled_kernels()}
    lean = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_lean_gelu_tanh"
    if lean not in compiled or any(n.startswith("sm90_e4m3_bf16_ak_bk_") and
                                   n.endswith("_fused_gelu_tanh") for n in compiled):
        pytest.skip("needs a build with the lean sm90 FP8 gelu_tanh kernel and no full one (ci)")
    for extras, said in ((dict(x=True), "x (with x_factor != 0)"),
                         (dict(return_y=True), "return_y=True")):
        name, why = plan(90, table="compiled", m=8192, n=8192, k=4096, ab="float8_e4m3fn",
                         d="bfloat16", a_major="K", b_major="K", activation="gelu_tanh", **extras)
        assert name is None and "only lean fused kernels (no x, no y) fit" in why and said in why, why
    name, _ = plan(90, table="compiled", m=8192, n=8192, k=4096, ab="float8_e4m3fn", d="bfloat16",
                   a_major="K", b_major="K", activation="gelu_tanh")
    assert name == lean


def test_lean_kernels_are_not_offered_where_only_full_ones_are_built():
    # 16-bit fused calls have full kernels only; without x and y they still find one.
    name, why = plan(90, m=4096, n=4096, k=4096, ab="bfloat16", a_major="K", b_major="K",
                     activation="gelu_tanh")
    assert name is not None and "_fused_gelu_tanh" in name, (name, why)


@pytest.mark.parametrize("ab,b", [("e4m3", ""), ("e5m2", "e4m3")])
def test_sm90_fp8_default_set_has_both_tiles_of_the_plain_product(ab, b):
    # The planner's choices exist in a default build for the bf16-output FP8 products (with C
    # and, on the wide tile, without).
    default = {k["name"] for k in _C.kernel_table() if "default" in k["presets"].split()}
    pair = f"{ab}x{b}" if b else ab
    for tile_n in (128, 256):
        assert f"sm90_{pair}_bf16_ak_bk_128x{tile_n}x128_c2x1_coop_fp8overlap_axpby" in default
    assert f"sm90_{pair}_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64" in default


def test_plan_rejects_an_unknown_activation():
    with pytest.raises(ValueError, match="unknown activation 'tanh'"):
        plan(90, ab="float8_e4m3fn", d="bfloat16", activation="tanh")
