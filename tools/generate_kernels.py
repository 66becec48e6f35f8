#!/usr/bin/env python3
"""The single source of truth for the kernel set.

Every CUTLASS kernel the project can build is one row of KERNELS below. From that table this
script writes, under csrc/gemm/generated/:

  <name>.cu          one template instantiation per file (one nvcc job each), registering itself
                     with the runtime registry when the extension loads;
  kernel_table.inc   every row as a C++ KernelConfig, which the planner and
                     `python -m blackwell_ops.info` read (compiled or not).

The output is committed. `python tools/generate_kernels.py --check` (run by the test suite)
fails when the committed files and this table disagree; setup.py imports `select()` to learn
which files a preset and arch list compile.

Presets nest: ci (CI: one kernel per arch, SASS-checked) < default (what `pip install .` builds)
< all.
"""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "csrc" / "gemm" / "generated"
ARCHS = (90, 100)
PRESETS = ("ci", "default", "all")

# Element types: (name in kernel names, CUTLASS type, KernelConfig enumerator)
DTYPES = {
    "f16": ("cutlass::half_t", "DType::F16"),
    "bf16": ("cutlass::bfloat16_t", "DType::BF16"),
    "f32": ("float", "DType::F32"),
    "tf32": ("cutlass::tfloat32_t", "DType::TF32"),  # fp32 in memory, tf32 tensor-core math
    "e4m3": ("cutlass::float_e4m3_t", "DType::E4M3"),
    "e5m2": ("cutlass::float_e5m2_t", "DType::E5M2"),
    "s8": ("int8_t", "DType::I8"),
    "s32": ("int32_t", "DType::I32"),
}
FP8 = ("e4m3", "e5m2")
# Input type -> the output types a kernel may write. 8-bit and tf32 inputs: the MMA's own
# accumulator (fp32, int32 for int8) rounded once to a 16-bit float, fp32, or exact int32.
OUTPUTS = {"f16": ("f16", "f32"), "bf16": ("bf16", "f32"), "tf32": ("f32",),
           "e4m3": ("bf16", "f16", "f32"), "e5m2": ("bf16", "f16", "f32"),
           "s8": ("s32", "bf16", "f16", "f32")}
SCHEDULES = {
    # name: (arch, C++ policy type, KernelConfig enumerator)
    "coop": (90, "bw::gemm::sm90::Cooperative", "Schedule::Sm90Cooperative"),
    "pingpong": (90, "bw::gemm::sm90::Pingpong", "Schedule::Sm90Pingpong"),
    # FP8 only: the accurate mainloop with each promotion overlapped with the next MMAs
    # (csrc/gemm/sm90/fp8_overlapped_promotion.hpp); 128x128 or 128x256 tiles.
    "coop_fp8overlap": (90, "bw::gemm::sm90::CooperativeFp8Overlap",
                        "Schedule::Sm90CooperativeFp8Overlap"),
    # FP8 only: CUTLASS's FP8FastAccum cooperative mainloop, which accumulates in the wgmma's own
    # reduced-precision accumulator without promotion (torch._scaled_mm's use_fast_accum=True).
    # A tuning candidate: the planner never picks it (csrc/gemm/heuristics.cpp).
    "coop_fastaccum": (90, "bw::gemm::sm90::CooperativeFastAccum",
                       "Schedule::Sm90CooperativeFastAccum"),
    # Swapped kernels: CUTLASS's A, the call's weights, which such a kernel reads once, loaded
    # with the L2 evict-first hint (csrc/gemm/sm90/tma_loads.hpp).
    "coop_stream": (90, "bw::gemm::sm90::CooperativeStreamedA",
                    "Schedule::Sm90CooperativeStreamedA"),
    # FP8 only: coop_fp8overlap with CUTLASS's B, the call's weights, loaded evict-first (ibid.),
    # for grids of one row of clusters, which read each weight byte once (the planner's rule).
    "coop_fp8overlap_stream": (90, "bw::gemm::sm90::CooperativeFp8OverlapStreamedB",
                               "Schedule::Sm90CooperativeFp8OverlapStreamedB"),
    # FP8 only: the overlap mainloop and the project's load() on the ping-pong kernel, one warp
    # group a 64-row tile (64x128 or 64x256: the cooperative kernels' per-group extents).
    "pingpong_fp8overlap": (90, "bw::gemm::sm90::PingpongFp8Overlap",
                            "Schedule::Sm90PingpongFp8Overlap"),
    "1sm": (100, "bw::gemm::sm100::OneSm", "Schedule::Sm100_1Sm"),
    "2sm": (100, "bw::gemm::sm100::TwoSm", "Schedule::Sm100_2Sm"),
}
MAJORS = {"k": "Major::K", "mn": "Major::MN"}
# Epilogue trees (csrc/gemm/epilogue.hpp): the plain ones have no activation and may write int32.
PLAIN_EPILOGUES = ("Axpby", "Scale")
EPILOGUES = (*PLAIN_EPILOGUES, "Fused", "FusedLean")
ACTIVATIONS = {"none": "None", "relu": "Relu", "gelu_tanh": "GeluTanh", "gelu_erf": "GeluErf",
               "silu": "Silu"}
TILE_SCHEDULERS = {
    # name: (C++ tile scheduler tag, KernelConfig enumerator, kernel-name suffix)
    "persistent": ("void", "TileScheduler::Persistent", ""),
    "streamk": ("cutlass::gemm::StreamKScheduler", "TileScheduler::StreamK", "_sk"),
    # the band order with the last wave split along K (csrc/gemm/tile_order.hpp, TailSplit)
    "tailsplit": ("bw::gemm::sm90::TailSplitScheduler", "TileScheduler::TailSplit", "_ts"),
}


@dataclasses.dataclass(frozen=True)
class Kernel:
    arch: int
    ab: str                      # A element type (and B's unless `b` is set)
    cd: str                      # C/D element type
    a_major: str                 # "k" (row-major a) or "mn"
    b_major: str                 # "k" (b = W.T) or "mn" (row-major b)
    tile: tuple[int, int, int]   # CTA tile (sm90) or MMA tile (sm100, over the CTA pair for 2sm)
    cluster: tuple[int, int]     # (0, 0): run-time cluster shape (sm100)
    schedule: str
    preset: str                  # smallest preset holding this kernel
    preferred_cluster: tuple[int, int] = (0, 0)
    fallback_cluster: tuple[int, int] = (0, 0)  # run-time cluster: used when preferred won't fit
    epilogue: str = "Axpby"         # or "Fused": act(alpha*acc + beta*C + bias) + x_factor*X, Y;
                                    # or "FusedLean": Fused without X and Y (epilogue.hpp);
                                    # or "Scale": Axpby without C, D = alpha*acc (epilogue.hpp)
    activation: str = "none"        # with Fused: a key of ACTIVATIONS
    scheduler: str = "persistent"  # or "streamk" (sm90 cooperative): split-K/stream-K per call,
                                   # or "tailsplit" (sm90 cooperative): the last wave split in K
    b: str = ""                     # B element type when it differs from A's (mixed FP8)
    epi_tile: tuple[int, ...] = ()  # sm90 axpby/scale: the epilogue subtile (M, N); () CUTLASS's
                                    # automatic choice (128x32 on cooperative 128x256 tiles)
    swap_ab: bool = False           # sm90 axpby: CUTLASS computes D^T = B^T A^T (the call's M is
                                    # the MMA's N); tile and cluster in the call's terms
                                    # (csrc/gemm/types.hpp, KernelConfig::swap_ab)

    @property
    def b_type(self) -> str:
        return self.b or self.ab

    @property
    def name(self) -> str:
        t = "x".join(map(str, self.tile))
        c = "dyn%dx%d" % self.preferred_cluster if self.cluster == (0, 0) else "%dx%d" % self.cluster
        sk = TILE_SCHEDULERS[self.scheduler][2]
        epi = {"Axpby": "axpby", "Scale": "scale", "Fused": f"fused_{self.activation}",
               "FusedLean": f"lean_{self.activation}"}[self.epilogue]
        ab = self.ab if self.b_type == self.ab else f"{self.ab}x{self.b_type}"
        et = "_e%dx%d" % self.epi_tile if self.epi_tile else ""
        sw = "_swapab" if self.swap_ab else ""
        return (f"sm{self.arch}_{ab}_{self.cd}_a{self.a_major}_b{self.b_major}"
                f"_{t}_c{c}_{self.schedule}{sk}{sw}_{epi}{et}")

    @property
    def presets(self) -> tuple[str, ...]:
        return PRESETS[PRESETS.index(self.preset):]

    def validate(self) -> None:
        sched_arch = SCHEDULES[self.schedule][0]
        assert sched_arch == self.arch, f"{self.name}: schedule {self.schedule} is sm{sched_arch}"
        assert self.ab in OUTPUTS and self.cd in OUTPUTS[self.ab], f"{self.name}: types"
        assert self.b_type == self.ab or (self.ab in FP8 and self.b_type in FP8), self.name
        if self.arch == 90 and self.ab in (*FP8, "s8", "tf32"):
            # wgmma reads 8-bit and tf32 operands from shared memory K-major only (only 16-bit
            # types have the transpose bit); other layouts are copied K-major by the op.
            assert (self.a_major, self.b_major) == ("k", "k"), f"{self.name}: sm90 needs K-major"
        assert self.epilogue in PLAIN_EPILOGUES or self.cd != "s32", \
            f"{self.name}: fused needs a float D"
        kbytes = self.tile[2] * (1 if self.ab in (*FP8, "s8") else 4 if self.ab == "tf32" else 2)
        assert kbytes == 128, f"{self.name}: a tile's K extent is one 128-byte swizzle row"
        if self.cluster == (0, 0):
            pm, pn = self.preferred_cluster
            fm, fn = self.fallback_cluster
            assert self.arch == 100 and fm and fn and pm % fm == 0 and pn % fn == 0, self.name
        if self.schedule == "2sm":
            assert self.tile[0] == 256, self.name
            assert (self.cluster == (0, 0) and self.fallback_cluster[0] % 2 == 0
                    or self.cluster[0] % 2 == 0), f"{self.name}: 2-SM needs CTA pairs along M"
        if self.schedule == "1sm":
            assert self.tile[0] in (64, 128), self.name
        assert self.activation in ACTIVATIONS, self.name
        assert self.epilogue in EPILOGUES, self.name
        assert self.epilogue not in PLAIN_EPILOGUES or self.activation == "none", self.name
        if self.schedule in ("coop_fp8overlap", "coop_fp8overlap_stream"):
            # N chunks of 192 - N/2 (csrc/gemm/sm90/fp8_overlapped_promotion.hpp, "Registers")
            assert self.ab in FP8 and self.tile[0] == 128 and self.tile[1] in (128, 192, 256), \
                f"{self.name}: FP8 overlap tiles are 128x128, 128x192 or 128x256"
        if self.schedule == "pingpong_fp8overlap":
            assert self.ab in FP8 and self.tile[0] == 64 and self.tile[1] in (128, 256), \
                f"{self.name}: FP8 ping-pong overlap tiles are 64x128 or 64x256"
        if self.schedule == "coop_fastaccum":
            assert self.ab in FP8 and self.epilogue in PLAIN_EPILOGUES, \
                f"{self.name}: FastAccum is FP8"
        if self.epi_tile:
            assert self.arch == 90 and self.epilogue in PLAIN_EPILOGUES, \
                f"{self.name}: the fused trees take CUTLASS's automatic epilogue tile"
        if self.scheduler == "streamk":
            assert self.schedule == "coop", f"{self.name}: CUTLASS's stream-K is sm90 cooperative only"
        if self.swap_ab:
            # CUTLASS's tile is (tile[1], tile[0]): the cooperative schedule's two warp groups
            # split its M, 128 rows; the call's M (the MMA's N) takes 8-256 in steps of 8.
            assert (self.arch == 90 and self.epilogue in PLAIN_EPILOGUES and not self.epi_tile
                    and self.schedule in ("coop", "coop_stream") and self.tile[1] == 128
                    and self.tile[0] % 8 == 0 and self.tile[0] <= 256), \
                f"{self.name}: a swapped kernel is sm90 cooperative, 128 wide, plain epilogue"
        if self.schedule == "coop_stream":
            # evict-first is right only for an operand no two clusters read: the swapped
            # kernels' weights (each tile covers all of the call's rows)
            assert self.swap_ab, f"{self.name}: coop_stream is for swapped kernels"
        if self.scheduler == "tailsplit":
            # fixup() runs in CUTLASS's cooperative kernel (the ping-pong one never calls it)
            assert self.schedule in ("coop", "coop_fp8overlap", "coop_stream",
                                     "coop_fp8overlap_stream"), \
                f"{self.name}: the tail split is sm90 cooperative only"


def _family(arch, preset, dtype_pairs, majors, **cfg):
    return [Kernel(arch=arch, ab=ab, cd=cd, a_major=a, b_major=b, preset=preset, **cfg)
            for ab, cd in dtype_pairs for a, b in majors]


# Tile and cluster choices:
# - sm90 128x256x64 cooperative, cluster 2x1: the config measured on the H200 (2026-11-30) to
#   match cuBLAS torch.mm at 8192^3 bf16 and beat torch.addmm 1.2-1.3x at 4096x4096x(512-1024).
#   Cluster 2x1 multicasts each B tile to the two CTAs that share it.
# - sm100 256x128x64 2-SM MMA over a CTA pair, run-time cluster 4x1 preferred (two pairs, so A
#   and B tiles are multicast) with a 2x1 fallback (one pair). Untuned: no Blackwell GPU here.
# - sm100 128x128x64 1-SM MMA for M <= 128, where a 256-row 2-SM tile would be at least half
#   empty; run-time cluster 1x2 preferred (the CTAs along N share, and multicast, the A tile),
#   1x1 fallback.
# - sm90 128x128x64 ping-pong, cluster 1x2, and 64x128x64 ping-pong, cluster 1x2: chosen by the
#   H200 sweep of benchmarks/tune.py (benchmarks/results/h200/tune/, 2026-11-30) over 8 candidate
#   configs x 6 run-time schedules on 36 problems. 128x128 ping-pong was the fastest or within 3%
#   on most mid and large problems with K > 256; 64x128 ping-pong on M <= 64 and on problems of
#   less than a wave of 128x128 tiles. Stream-K/split-K (CUTLASS's stream-K scheduler) never beat
#   the best data-parallel config by more than 3% and cost 1-3% where it lost, so the default set
#   has none; the candidates stay in `all`.
# The ci preset holds one kernel per arch, the layout of contiguous a @ contiguous b.
_SM90_BIG = dict(tile=(128, 256, 64), cluster=(2, 1), schedule="coop")
_SM90_MID = dict(tile=(128, 128, 64), cluster=(1, 2), schedule="pingpong")
_SM90_SMALL = dict(tile=(64, 128, 64), cluster=(1, 2), schedule="pingpong")
_SM100_BIG = dict(tile=(256, 128, 64), cluster=(0, 0), preferred_cluster=(4, 1),
                  fallback_cluster=(2, 1), schedule="2sm")
_SM100_SMALL_M = dict(tile=(128, 128, 64), cluster=(0, 0), preferred_cluster=(1, 2),
                      fallback_cluster=(1, 1), schedule="1sm")
_ALL_MAJORS = [("k", "k"), ("k", "mn"), ("mn", "k"), ("mn", "mn")]
# sm90 candidates: the stream-K scheduler (data-parallel, split-K or stream-K chosen per call) on
# cooperative tiles of two shapes and cluster orientations; ping-pong (one consumer warp group per
# tile, the two overlapping epilogue and MMA) on smaller tiles for small M and mid-size problems.
_SM90_CANDIDATES = [
    dict(tile=(128, 256, 64), cluster=(2, 1), schedule="coop", scheduler="streamk"),
    dict(tile=(128, 256, 64), cluster=(1, 2), schedule="coop", scheduler="streamk"),
    dict(tile=(256, 128, 64), cluster=(2, 1), schedule="coop", scheduler="streamk"),
    dict(tile=(128, 128, 64), cluster=(2, 1), schedule="coop", scheduler="streamk"),
    dict(tile=(128, 128, 64), cluster=(1, 2), schedule="pingpong"),
    dict(tile=(64, 128, 64), cluster=(1, 2), schedule="pingpong"),
    dict(tile=(64, 256, 64), cluster=(1, 2), schedule="pingpong"),
]

# 8-bit (FP8, INT8) and TF32 inputs (issue #9). A tile's K extent is one 128-byte swizzle row:
# 128 elements of 8 bits, 32 of tf32. On sm90 only the nn.Linear layout x @ W.T (K-major a and b,
# also what torch._scaled_mm and torch._int_mm take): wgmma reads these types K-major only, and the
# op copies other layouts K-major (one-time warning). sm100's UMMA reads them MN-major too: the
# plain product there has every layout (_SM100_QUANT_LAYOUTS below). Untuned: the 16-bit roles with K
# scaled to 128 bytes; plain products on the big tile, the fused epilogue on the mid tile
# (ping-pong overlaps one warp group's epilogue with the other's MMA); sm90 FP8 below.
# sm90 FP8 is the exception: an accurate FP8 GEMM promotes the wgmma accumulator into an fp32
# sum every 128 of K, which CUTLASS's FP8 mainloop does with every MMA in flight waited for, so
# the tensor cores idle meanwhile. The project's mainloop (schedule coop_fp8overlap,
# csrc/gemm/sm90/fp8_overlapped_promotion.hpp) overlaps the promotion with the next MMAs, at the
# cost of a third accumulator set (two chunk accumulators beside the fp32 sum). Measured on the
# H200 with benchmarks/tune.py --suite fp8 (benchmarks/results/h200/tune_fp8/, 2026-11-30; ms,
# e4m3 -> bf16 with scales), first on 128x128 tiles (run2):
#                              overlap c2x1  overlap c1x2  CUTLASS c2x1  CUTLASS c1x2
#   8192^3                         0.926         0.942         1.099         0.949
#   8192x14336x4096 (up)           0.825         0.804         0.928         0.815
#   8192x4096x14336 (down)         0.820         0.958         1.016         0.792
#   8192^3 + C                     0.927         0.981         1.073         0.967
#   8192^3 + bias + gelu_tanh      1.145         1.107         1.338         1.218
#   up + bias + gelu_tanh          0.904         0.955         1.172         1.118
# then wider tiles with the N extent in chunks of 64 (run6; torch._scaled_mm in the same run;
# 128x192 is no candidate any more: never the fastest, and its fused kernel spills):
#                              128x128   128x192   128x256   _scaled_mm
#   4096^3                      0.108     0.120     0.106      0.103
#   8192^3                      0.878     0.826     0.810      0.750
#   8192x14336x4096 (up)        0.772     0.771     0.772      0.697
#   8192x4096x14336 (down)      0.738     0.733     0.704      0.685
#   8192^3 + C                  0.934     0.954     0.860      0.887
#   8192^3 + bias + gelu_tanh   1.081     1.036     0.909
#   up + bias + gelu_tanh       0.971     0.967     0.907
# tune.py's interleaved rows (2 reps a provider a round) favoured 128x256, but a side-by-side in
# long bursts (40 reps a provider a round; the H200 runs FP8 at its power limit, 1.5-1.8 GHz)
# did only for the fused epilogue (docs/results/h200-session5/probe_tiles2.txt; ms):
#                              128x128   128x256   _scaled_mm
#   8192^3                      0.927     0.942      0.846
#   8192^3 + bias + gelu_tanh   1.160     0.998
#   down                        0.805     0.816      0.760
#   down + bias + gelu_tanh     0.915     0.824
# So the default set had overlap c2x1 on 128x128 (plain and fused) and on 128x256 (fused, which
# the planner takes when its tiles fill a wave of SMs: csrc/gemm/heuristics.cpp). Session 7
# chained the mainloop's groups (each hands its last promotion to the next), which shortens
# every drain, and a 128x256 tile drains 4x as often as a 128x128 one. Side by side in long
# bursts (docs/results/h200-session7/probe_tiles3.txt; ms):
#                              128x128   128x256   _scaled_mm
#   8192^3                      0.895     0.879      0.820
#   4096^3                      0.115     0.110      0.111
#   8192x14336x4096 (up)        0.845     0.796      0.746
#   8192x4096x14336 (down)      0.771     0.754      0.741
# so plain bf16-output products now also take 128x256 from a wave. 128x192 (three chunks of 64)
# compiled clean with chained groups but ran 0.83-0.87x _scaled_mm against 128x256's 0.95-1.01x
# (probe_tiles4.txt there; its diff in experiments.patch). Measured and dropped in
# the first sweep: ping-pong 64x128 and 64x192 (1.36-1.52 ms: ping-pong runs one warp group's
# mainloop at a time, so each promotion's wait stalls the tensor cores outright), and CUTLASS's
# mainloop on 128x256 (spills: a 64x256 warp-group tile needs 2 x 128 accumulator registers).
# Session 6 (docs/results/h200-session6/, diff in its experiments.patch): ping-pong on the overlap
# mainloop (64x128 c2x1/c1x2, 64x256; 1.15-1.48 against 0.94 ms at 8192^3: each group drain idles
# the tensor cores) and stream-K on 128x128 (0.960-0.975 against 0.949 ms); both dropped.
# Session 10: stream-K on 128x256 (1.6% slower). Session 11: cuBLAS's 128x144 tile in 72- and
# 48-column chunks, about 20% slower than 128x256 (FastAccum on 128x144: 9% slower than on
# 128x256); docs/results/h200-session1{0,1}/, diffs in their experiments.patch. Session 12:
# A from registers (RS wgmma) on 128x256, in 32-column chunks (64-column ones spilled in the
# k-loop): within 0.7% of the shipped kernel, and so was a 32-column SS control that reads A
# twice as often (docs/results/h200-session12/, diff in its experiments.patch).
_SM90_FP8 = dict(tile=(128, 128, 128), cluster=(2, 1), schedule="coop_fp8overlap")
_SM90_FP8_WIDE = dict(tile=(128, 256, 128), cluster=(2, 1), schedule="coop_fp8overlap")
# sm90 FP8 without C (Epilogue::Scale, csrc/gemm/epilogue.hpp): the wide tile built with no C, so
# its epilogue keeps no C buffers in shared memory and delays each TMA store by one subtile, with
# a 128x64 epilogue subtile (4 store rounds a tile instead of CUTLASS's automatic 128x32's 8),
# which without C buffers still leaves the mainloop its 4 stages. Side by side on the H200: the
# same bits as the axpby kernel, 0.1-2.1% less time (8192^3 0.981x -> 1.001x torch._scaled_mm in
# one run, 0.985x -> 0.986x in another). The measurements, and the candidates not kept (128x128,
# bf16; their diff is docs/results/h200-session15/experiments.patch): docs/design.md, "Scale
# kernels". Session 16 measured and dropped a whole tile of D buffers (CUTLASS's StagesD 4, one
# mainloop stage less), D stored straight from the registers, the cluster along N (1x2), and
# 16-bit scale kernels (same section; diffs in docs/results/h200-session16/).
_SM90_FP8_SCALE = dict(_SM90_FP8_WIDE, epi_tile=(128, 64))
# The same with the last wave's tiles split along K where the tiles fill at most 3 whole waves
# and the split saves an eighth of a tile (csrc/gemm/tile_order.hpp, TailSplit); the planner takes
# it only for the calls it splits (csrc/gemm/heuristics.cpp). Side by side on the H200
# (docs/results/h200-session17/, 20 rounds, two runs): 1536x4096x8192 0.82x -> 0.93x
# torch._scaled_mm, 2560x4096x8192 0.85x -> 0.93x; unsplit it runs up to 3% slower than the plain
# scale kernel, and split at 8192^3 and Llama-8B up (15 and 27 whole waves) it gained nothing.
_SM90_FP8_SCALE_TS = dict(_SM90_FP8_SCALE, scheduler="tailsplit")
# all: sm90 FP8 candidates (e4m3 -> bf16, x @ W.T) for benchmarks/tune.py --suite fp8: the other
# cluster orientation, CUTLASS's accurate mainloop for comparison, and CUTLASS's FastAccum (no
# promotion; torch._scaled_mm's use_fast_accum=True), which the planner never picks (it is less
# accurate than the ops promise) but tune.py measures against _scaled_mm's own fast mode.
# The 128x128 overlap tile with its cluster along N (one row of tiles: the small-M set below).
_SM90_FP8_ROW = dict(_SM90_FP8, cluster=(1, 2))
_SM90_FP8_CANDIDATES = [
    _SM90_FP8_ROW,
    dict(tile=(128, 256, 128), cluster=(2, 1), schedule="coop_fp8overlap"),
    dict(tile=(128, 128, 128), cluster=(2, 1), schedule="coop"),
    dict(tile=(128, 128, 128), cluster=(1, 2), schedule="coop"),
    dict(tile=(128, 256, 128), cluster=(2, 1), schedule="coop_fastaccum"),
    dict(tile=(128, 128, 128), cluster=(1, 2), schedule="coop_fastaccum"),
]

# Small M on sm90 (session 22, docs/results/h200-session22/probe22_run98.txt: Llama-3 8B's MLP,
# M = 16-2048, against torch._scaled_mm / torch._int_mm). The kernels above cluster two CTAs
# along M, so at M <= 128 one CTA of each cluster had no rows: FP8 ran 0.52-0.70x _scaled_mm at
# M <= 128 (16x14336x4096: 47.8 against 24.7 us) and INT8 on 128x256 tiles 0.49-0.67x _int_mm
# at M = 32. Measured side by side (us, M = 16 / 64 / 128):
#                                           up (N 14336, K 4096)   down (N 4096, K 14336)
#   _scaled_mm                                24.7 / 26.2 / 25.8     27.1 / 25.4 / 27.6
#   FP8 overlap 128x128, cluster 2x1          47.8 / 40.1 / 37.1     50.6 / 50.7 / 44.9
#   FP8 overlap 128x128, cluster 1x2          31.6 / 30.7 / 26.9     43.0 / 43.1 / 43.7
#   FP8 64x128 ping-pong (CUTLASS's mainloop) 28.4 / 27.1 / 32.3     41.3 / 41.3 / 42.5
#   CUTLASS stream-K 128x128 1x2, split 2-4   37.0 / 36.8 / 34.0     38.8 / 38.8 / 37.1
# So FP8 e4m3 -> bf16 got the cluster along N for one row of 128-row tiles, the 64-row
# ping-pong tile for M <= 64, and tail-split twins of both 128x128 tiles, whose scheduler below
# a wave splits few deep tiles along K over the idle SMs (csrc/gemm/tile_order.hpp; the down
# shape has 16 cluster tiles of 112 k-tiles). 128x128 ping-pong on FP8 spilled (892 bytes) and
# ran 2-8x slower. INT8 takes the 16-bit roles (ping-pong 64x128 and 128x128, cluster 1x2; the
# planner's sm90_preference): at M = 32-2048 they ran 0.94-1.83x _int_mm against 0.49-1.69x on
# 128x256 alone.
# Session 23 (docs/results/h200-session23/: profile_run102.txt, ncu_run102.csv, time_run103.txt)
# found why decode stayed behind: cuBLAS runs it swapped (nvjet_sm90_qqtst_64x16_..._TNT at
# 16 tokens: D^T = B^T A^T, the tokens on the MMA's N, which wgmma sizes in steps of 8), while a
# 64-row tile computes 4x the MMAs at 16 tokens, 128 rows 8x (the 128x128 tile below a wave is
# MMA-bound there: 16 us of wgmma per SM at 16x4096x14336). Swapped kernels (KernelConfig::
# swap_ab; cooperative, 128 weights x T tokens on CUTLASS's FP8 mainloop, the tail-split
# scheduler splitting the deep shapes below a wave) took decode to (us, M = 1 / 16 / 32 / 64):
#                                           up (N 14336, K 4096)       down (N 4096, K 14336)
#   _scaled_mm                                24.3 / 24.5 / 24.6 / 25.5  26.6 / 26.3 / 25.2 / 25.8
#   before: the planner's kernel              29.0 / 28.3 / 28.4 / 26.4  38.0 / 37.1 / 37.2 / 37.2
#   swapped, tokens 16 (tail-split)           25.5 / 26.0                29.6 / 29.2
#   swapped, tokens 32 (tail-split)           25.8 / 26.1 / 26.2         30.2 / 29.7 / 30.1
#   swapped, tokens 64 (tail-split)           27.4 / 26.6 / 26.5 / 26.3  31.1 / 30.7 / 31.0 / 31.2
# Dropped after the same run: the 16-token tile with a 1x2 cluster (equal: 26.0 / 29.2 us at
# M = 16) and without the tail split (25.7 / 29.1 us, within noise, and one kernel for both
# shapes is less to build); the 64x128 ping-pong moves to `all` (the swapped tiles take every
# e4m3 -> bf16 call of M <= 64). The 64x64 ping-pong ran 30.6 us at 64 and 128 x 4096 x 14336
# (sw64 31.2, the planner's 128x128 twin 33.4 at M = 128): a lead for M = 65-128, taken below.
_SM90_FP8_SMALL = dict(tile=(64, 128, 128), cluster=(1, 2), schedule="pingpong")
# Session 28 (docs/results/h200-session28/time_run116.txt, ncu_run116.txt): the swapped tiles
# load the weights evict-first (schedule coop_stream, csrc/gemm/sm90/tma_loads.hpp). After the
# benchmarks' flush (256 MiB written, so the L2 holds dirty lines), the weight stream of the
# plain kernels made the L2 write back 20-23 MB during each call, evict-first 6-8 MB (cuBLAS
# 17-23 MB); side by side (us, M = 1 / 16 / 32 / 64):
#                                           up (N 14336, K 4096)       down (N 4096, K 14336)
#   _scaled_mm                                24.8 / 24.3 / 25.1 / 26.0  26.7 / 27.0 / 25.2 / 25.7
#   swapped, plain loads (coop)               26.1 / 26.1 / 26.4 / 26.9  29.1 / 29.1 / 29.7 / 30.5
#   swapped, weights evict-first (coop_stream) 23.2 / 23.4 / 23.7 / 24.0  26.2 / 26.3 / 26.8 / 27.7
# With the L2 flushed by a read instead (clean lines) the two ran alike (21.1-25.5 us). The
# plain-load tiles stay in `all` as the control. Wider swapped tiles, 96 and 128 tokens, then
# beat the planner's kernels at M = 65-128 where their tiles fill a wave or K is deep (us,
# time_run117.txt; the planner's rule in csrc/gemm/heuristics.cpp):
#                     80 / 96 / 128 x 14336 x 4096   80 / 96 / 128 x 4096 x 14336   128 x 4096 x 4096
#   _scaled_mm             25.3 / 25.4 / 25.8             25.7 / 26.0 / 27.5               12.6
#   swapped, 96 tokens     24.0 / 23.9                    28.8 / 28.8
#   swapped, 128 tokens    25.7 / 25.9 / 24.5             30.3 / 30.0 / 30.4               19.6
#   64x64 ping-pong        45.3 / 41.1 / 35.4             33.9 / 31.1 / 30.8               14.6
#   128x128 c1x2           28.5 / 28.3 / 27.1             43.8 / 43.7 / 43.9               17.9
_SM90_FP8_SWAP_PLAIN = [dict(tile=(t, 128, 128), cluster=(1, 1), schedule="coop",
                             scheduler="tailsplit", swap_ab=True) for t in (16, 32, 64)]
_SM90_FP8_SWAP = [dict(_SM90_FP8_SWAP_PLAIN[0], schedule="coop_stream", tile=(t, 128, 128))
                  for t in (16, 32, 64, 96, 128)]
# Session 24 (docs/results/h200-session24/: time_run106.txt, time2_run107.txt, time_run108.txt)
# took the 64x64 ping-pong tile (no cluster) into the default set for 65-128 rows whose 64x64
# tiles fill 3/4 to 1 wave at K <= 16384, which it runs unsplit (us, side by side, run108 after
# the memset-free flags; the last column run107, before them):
#                       80x4096x4096  128x4096x4096  128x3584x8192  128x4096x14336  128x4096x28672
#   _scaled_mm              12.5          12.5           17.8            27.2            43.6
#   64x64 ping-pong         15.2          14.2           20.7            30.6            53.0
#   128x128 tail-split      19.9          19.4           23.5            33.2            50.6
#   128x128 unsplit         17.8          17.3           27.6            43.4            75.8
# Measured and not taken (run106): the same tile with a 1x2 or 1x4 cluster (the tokens
# multicast; 33.3 and 54.1 us at 128 x 4096 x 14336), and the swapped 32- and 64-token tiles
# with a 1x2 or 1x4 cluster (within 1 us of the planner's at M = 16-64).
_SM90_FP8_PP6464 = dict(_SM90_FP8_SMALL, tile=(64, 64, 128), cluster=(1, 1))
# Session 29 (docs/results/h200-session29/): 129-256 rows, one row of 2x1 clusters of 128x128
# tiles, whose grid reads each weight byte once (each B tile by one cluster, multicast): the
# weights loaded evict-first (schedule coop_fp8overlap_stream), persistent and tail-split; the
# planner takes them only for such grids (csrc/gemm/heuristics.cpp). Measured side by side in
# session 28 (time_run120.txt there, us, the benchmarks' write flush):
#                          256x14336x4096  256x4096x14336 (tail split)  192x14336x4096  512x14336x4096
#   _scaled_mm                  30.0              35.0                       31.6            49.4
#   plain loads                 34.5              36.1                       34.9            55.6
#   weights evict-first         31.6              33.0                       33.6            54.7
_SM90_FP8_STREAM = dict(_SM90_FP8, schedule="coop_fp8overlap_stream")
# Session 36 (docs/results/session36/): at 129-256 rows x 4096 x 4096 our best kernels ran 18-19
# us against _scaled_mm's 15-16 on a lent H100, with the same slope in K (probe36 ksweep); ncu
# named cuBLAS's kernel there nvjet_sm90_qqtst_64x128_128x8_2x1: 64x128 tiles (K 128), a 2x1
# cluster, 128 CTAs at 256 rows where our 128x128 tiles launch 64. Measured side by side
# (run142-h100/probe36_rows.txt there, us; the op: the planner before):
#                                      129 / 192 / 256 x 4096 x 4096   256 x 6144 x 4096
#   _scaled_mm                              14.8 / 15.2 / 16.6              20.1
#   the op (2x1 stream tail-split)          19.5 / 19.7 / 20.0              20.4 (unsplit)
#   64x128 ping-pong (CUTLASS's mainloop)   18.1 / 18.3 / 18.6              28.6
#     with a 2x1 cluster                    18.9 / 18.9 / 19.2              29.5
#   overlap mainloop on ping-pong, 64x128   17.1 / 17.3 / 17.5              25.6
#     with a 2x1 cluster                    18.0 / 18.2 / 18.7              27.2
#     64x256, 2x1                           22.6 / 22.7 / 22.9              26.8
# The default set takes the 64x128 overlap ping-pong without a cluster (pingpong_fp8overlap: the
# overlap mainloop with the project's load() on CUTLASS's ping-pong kernel, one warp group a
# tile), the planner for 129-256 rows whose 64x128 tiles fit a wave (csrc/gemm/heuristics.cpp);
# the others stay in `all`.
_SM90_FP8_PP_OVERLAP = dict(tile=(64, 128, 128), cluster=(1, 1), schedule="pingpong_fp8overlap")
_SM90_FP8_PP64 = [dict(_SM90_FP8_SMALL, cluster=(2, 1)),
                  dict(_SM90_FP8_PP_OVERLAP, cluster=(2, 1)),
                  dict(_SM90_FP8_PP_OVERLAP, tile=(64, 256, 128), cluster=(2, 1))]
_SM90_FP8_SMALL_M = [_SM90_FP8_ROW, *_SM90_FP8_SWAP, dict(_SM90_FP8, scheduler="tailsplit"),
                     dict(_SM90_FP8_ROW, scheduler="tailsplit"), _SM90_FP8_PP6464,
                     _SM90_FP8_STREAM, dict(_SM90_FP8_STREAM, scheduler="tailsplit"),
                     _SM90_FP8_PP_OVERLAP]
# all: CUTLASS's stream-K scheduler (split-K per call) on the cooperative 128x128 tile, which lost
# to the above at small M (session 22's table, last row; INT8: 0.72-1.25x _int_mm).
_SM90_8BIT_STREAMK = dict(tile=(128, 128, 128), cluster=(1, 2), schedule="coop", scheduler="streamk")
# all: the 64-row FP8 ping-pong tiles: session 22's default for M <= 64, and session 23's
# candidates without a cluster (64x128, 64x64); the swapped tiles with plain loads (session 23's
# default, the control of session 28's evict-first ones).
_SM90_FP8_SMALL_CANDIDATES = [_SM90_FP8_SMALL, dict(_SM90_FP8_SMALL, cluster=(1, 1)),
                              *_SM90_FP8_SWAP_PLAIN, *_SM90_FP8_PP64]
# Session 34 (docs/results/session34/): the 128x192 overlap tile (three chunks of 64) as scale
# kernels (calls without C), for 300-1152 rows, where a 128x128 grid is a wave and a bit and a
# 128x256 one is under a wave of tiles of twice the work (640 x 4096 x 4096: 160 / 80 / 110 tiles
# of 128x128 / 128x256 / 128x192 on 132 SMs). Session 7 measured it 7-11% slower per tile than
# 128x128 at 4096-8192 rows; side by side on a lent H100 (run134-h100/probe34.txt there, us):
#                             640x4096x4096  300x6144x4096  384x6144x4096  640x14336x4096
#   _scaled_mm                     21.6           23.2           22.8            63.1
#   the planner's kernel before    28.4           30.6           30.6            72.5
#   128x192, cluster 2x1           26.3           29.0           29.2            81.8
#   128x192, cluster 1x2           26.7           30.2           30.3            70.8
# The planner takes it where its grid costs least (csrc/gemm/heuristics.cpp, sm90_fp8_places).
_SM90_FP8_MID = [dict(tile=(128, 192, 128), cluster=c, schedule="coop_fp8overlap",
                      epilogue="Scale", epi_tile=(128, 64)) for c in ((2, 1), (1, 2))]

# sm100 8-bit and tf32 kernels in the layouts other than x @ W.T, in the default build for the
# types each training step of an FP8 / INT8 / TF32 layer meets: e4m3 -> bf16 (the forward, x @ W
# for a row-major (K, N) W), e5m2 x e4m3 -> bf16 (FP8 training's input gradient dY @ W is
# K-major x MN-major, its weight gradient dY.T @ X MN-major x MN-major), int8 -> int32 and
# tf32 -> fp32. The other output types have them in `all` only, for build time (a default build
# copies such calls' operands K-major, with the one-time warning). sm90's wgmma cannot read these
# types MN-major, so there the copy is the hardware's rule.
_SM100_QUANT_LAYOUTS = {("e4m3", "", "bf16"), ("e5m2", "e4m3", "bf16"), ("s8", "", "s32"),
                        ("tf32", "", "f32")}


def _with_k(cfg, tk):
    """cfg with its tile's K extent set to tk (one 128-byte swizzle row of the input type)."""
    return dict(cfg, tile=cfg["tile"][:2] + (tk,))


def _quant(arch, preset, dtype_triples, fused_acts=(), ci=None):
    out = []
    for ab, b, cd in dtype_triples:
        fp8_sm90 = arch == 90 and ab in FP8
        big = dict(_SM90_FP8 if fp8_sm90 else {90: _SM90_BIG, 100: _SM100_BIG}[arch])
        mid = dict(_SM90_FP8 if fp8_sm90 else {90: _SM90_MID, 100: _SM100_BIG}[arch])
        tk = 32 if ab == "tf32" else 128
        cfg = _with_k(big, tk)
        p = "ci" if ci == (ab, b, cd) else preset
        # The plain product in x @ W.T, and on sm100, whose UMMA reads 8-bit and tf32 operands
        # MN-major as well (the instruction descriptor's a/b major bits), in the other three
        # layouts too, so the op copies nothing there (_SM100_QUANT_LAYOUTS; ci: x @ W)
        other = preset if (ab, b, cd) in _SM100_QUANT_LAYOUTS else "all"
        in_p = _ALL_MAJORS[:2] if p == "ci" else _ALL_MAJORS[:1]  # the layouts in preset p
        for am, bm in _ALL_MAJORS if arch == 100 else _ALL_MAJORS[:1]:
            lp = p if (am, bm) in in_p else other
            out.append(Kernel(arch=arch, ab=ab, b=b, cd=cd, a_major=am, b_major=bm, preset=lp,
                              **cfg))
        # sm90 FP8: the wide tile beside the 128x128 one, for problems of a wave or more: fused,
        # and plain for bf16 output (the other outputs keep 128x128 alone, for build time)
        wide = [_SM90_FP8_WIDE] if fp8_sm90 else []
        if cd == "bf16":
            out += [Kernel(arch=arch, ab=ab, b=b, cd=cd, a_major="k", b_major="k", preset=preset,
                           **w) for w in wide]
        if cd == "bf16" and fp8_sm90:
            # and for calls without C, the wide tile's scale kernel (_SM90_FP8_SCALE; in ci for
            # e4m3 -> bf16, so CI compiles and SASS-checks the void-C epilogue), and its twin
            # with the tail-split scheduler (_SM90_FP8_SCALE_TS; in ci likewise)
            out += [Kernel(arch=arch, ab=ab, b=b, cd=cd, a_major="k", b_major="k", preset=p,
                           epilogue="Scale", **cfg) for cfg in (_SM90_FP8_SCALE, _SM90_FP8_SCALE_TS)]
        # sm90 small M (_SM90_FP8_SMALL_M above): FP8 e4m3 -> bf16 the cluster along N, the
        # swapped tiles and the tail-split twins of 128x128, and for 300-1152 rows the 128x192
        # scale kernels (_SM90_FP8_MID); INT8 the 16-bit roles' tiles
        if arch == 90 and (ab, b, cd) == ("e4m3", "", "bf16"):
            small = _SM90_FP8_SMALL_M + _SM90_FP8_MID
        elif arch == 90 and ab == "s8":
            small = [_with_k(c, tk) for c in (_SM90_SMALL, _SM90_MID)]
        else:
            small = []
        # (ci: the 16-token swapped tile, so CI compiles and SASS-checks the swapped template)
        out += [Kernel(arch=arch, ab=ab, b=b, cd=cd, a_major="k", b_major="k", **c,
                       preset="ci" if ci == (ab, b, cd) and c is _SM90_FP8_SWAP[0] else preset)
                for c in small]
        # Fused, and on sm90 FP8 also lean (no X/Y, so one more mainloop stage: epilogue.hpp)
        # for the calls without x and return_y; ci holds the lean gelu_tanh on the wide tile.
        epilogues = ["Fused", "FusedLean"] if fp8_sm90 else ["Fused"]
        for act in fused_acts if (ab, b, cd) == ("e4m3", "", "bf16") else ():
            for fcfg in [_with_k(mid, tk), *wide]:
                for epi in epilogues:
                    p = ("ci" if ci == (ab, b, cd) and (epi, act, fcfg) ==
                         ("FusedLean", "gelu_tanh", _SM90_FP8_WIDE) else preset)
                    out.append(Kernel(arch=arch, ab=ab, b=b, cd=cd, a_major="k", b_major="k",
                                      epilogue=epi, activation=act, preset=p, **fcfg))
    return out


_QUANT_DEFAULT = [("e4m3", "", "bf16"), ("e4m3", "", "f16"), ("e4m3", "", "f32"),
                  ("e5m2", "e4m3", "bf16"), ("s8", "", "s32"), ("s8", "", "bf16"),
                  ("tf32", "", "f32")]
_QUANT_ALL = [("e4m3", "e5m2", "bf16"), ("e5m2", "", "bf16"), ("s8", "", "f32"),
              ("s8", "", "f16")]

KERNELS: list[Kernel] = [
    Kernel(arch=90, ab="bf16", cd="bf16", a_major="k", b_major="mn", preset="ci", **_SM90_BIG),
    Kernel(arch=100, ab="bf16", cd="bf16", a_major="k", b_major="mn", preset="ci", **_SM100_BIG),
    # ci also holds e4m3 -> bf16 per arch (its SASS shows the FP8 MMA), on sm100 also in the
    # x @ W layout (an MN-major 8-bit b: tools/check_sass.py reads the major bits of its MMA's
    # instruction descriptor); default the rest of
    # _QUANT_DEFAULT, and the fused epilogue for e4m3 -> bf16 (every activation); all adds
    # _QUANT_ALL. Fused kernels for e4m3 -> bf16 only: gemm_fused with other 8-bit types runs
    # the composite.
    *[k for arch in ARCHS for k in
      _quant(arch, "default", _QUANT_DEFAULT, ACTIVATIONS, ci=("e4m3", "", "bf16"))
      + _quant(arch, "all", _QUANT_ALL)],
    # default: both 16-bit types in every majorness (autograd's backward GEMMs run on transposed
    # views, so training needs all four), and the seed's fp16 -> fp32 C/D case for contiguous a.
    *[k for arch, cfg in ((90, _SM90_BIG), (100, _SM100_BIG))
      for k in (_family(arch, "default", [("bf16", "bf16"), ("f16", "f16")], _ALL_MAJORS, **cfg)
                + _family(arch, "default", [("f16", "f32")], [("k", "k"), ("k", "mn")], **cfg))],
    # default, sm90: the mid config in every layout; the small-M config in the layouts where M is
    # the token count (the forward x @ W.T, x @ W and the input gradient), i.e. a K-major a.
    *_family(90, "default", [("bf16", "bf16"), ("f16", "f16")], _ALL_MAJORS, **_SM90_MID),
    *_family(90, "default", [("f16", "f32")], [("k", "k"), ("k", "mn")], **_SM90_MID),
    *_family(90, "default", [("bf16", "bf16"), ("f16", "f16"), ("f16", "f32")],
             [("k", "k"), ("k", "mn")], **_SM90_SMALL),
    # The fused epilogue (bw.gemm_fused), one kernel per activation, in the nn.Linear layout
    # x @ W.T (blackwell_ops.nn.Linear's forward) for both 16-bit types. sm90: the mid config,
    # whose ping-pong schedule overlaps one warp group's heavier epilogue with the other's MMA.
    # ci: one per arch, so CI compiles and SASS-checks the fused tree on both.
    *[Kernel(arch=arch, ab=ab, cd=ab, a_major="k", b_major="k", epilogue="Fused", activation=act,
             preset="ci" if (ab, act) == ("bf16", "gelu_tanh") else "default", **cfg)
      for arch, cfg in ((90, _SM90_MID), (100, _SM100_BIG)) for ab in ("bf16", "f16")
      for act in ACTIVATIONS],
    # default, sm100: 1-SM kernels for small M in the forward layouts (x @ W.T and x @ W).
    *_family(100, "default", [("bf16", "bf16"), ("f16", "f16")], [("k", "k"), ("k", "mn")],
             **_SM100_SMALL_M),
    # all: sm90 tuning candidates in the nn.Linear layout (x @ W.T), measured against
    # each other by benchmarks/tune.py; the planner's sm90 rules come from that sweep.
    *[Kernel(arch=90, ab=ab, cd=cd, a_major="k", b_major="k", preset="all", **cfg)
      for ab, cd, cfgs in (("bf16", "bf16", _SM90_CANDIDATES), ("f16", "f32", _SM90_CANDIDATES[::3]))
      for cfg in cfgs],
    *[Kernel(arch=90, ab="e4m3", cd="bf16", a_major="k", b_major="k", preset="all", **cfg)
      for cfg in _SM90_FP8_CANDIDATES + _SM90_FP8_SMALL_CANDIDATES],
    *[Kernel(arch=90, ab=ab, cd=cd, a_major="k", b_major="k", preset="all", **_SM90_8BIT_STREAMK)
      for ab, cd in (("e4m3", "bf16"), ("s8", "s32"))],
    *[Kernel(arch=90, ab="e4m3", cd="bf16", a_major="k", b_major="k", preset="all",
             epilogue="Fused", activation="gelu_tanh", **cfg)
      for cfg in _SM90_FP8_CANDIDATES if cfg["schedule"] != "coop_fastaccum"],
    # all: fp32 output in every majorness for both input types.
    *[k for arch, cfg in ((90, _SM90_BIG), (100, _SM100_BIG))
      for k in _family(arch, "all", [("f16", "f32"), ("bf16", "f32")], _ALL_MAJORS, **cfg)],
]
# `all` re-lists kernels of smaller presets; keep the first (smallest preset) of each name.
_seen: dict[str, Kernel] = {}
for _k in KERNELS:
    _seen.setdefault(_k.name, _k)
KERNELS = sorted(_seen.values(), key=lambda k: k.name)


def select(spec: str, archs) -> list[Kernel]:
    """The kernels a build of `spec` for `archs` (ints, e.g. [90, 100]) compiles.

    spec: a preset name, or a comma-separated list of preset names and kernel-name globs (e.g.
    "ci,sm90_bf16_bf16_ak_bmn_*": the ci preset plus those kernels), for tuning builds. A term
    starting with "-" removes the kernels its glob matches ("default,-sm90_f16_*").
    """
    chosen = set()
    for term in filter(None, (t.strip() for t in spec.split(","))):
        if term.startswith("-"):
            chosen -= {k.name for k in KERNELS if fnmatch.fnmatchcase(k.name, term[1:])}
        elif term in PRESETS:
            chosen |= {k.name for k in KERNELS if term in k.presets}
        elif any(ch in term for ch in "*?[") or any(k.name == term for k in KERNELS):
            matched = {k.name for k in KERNELS if fnmatch.fnmatchcase(k.name, term)}
            if not matched:
                raise ValueError(f"kernel glob {term!r} matches no kernel")
            chosen |= matched
        else:
            raise ValueError(f"kernel preset {term!r} is not one of {PRESETS} (or a kernel-name glob)")
    return [k for k in KERNELS if k.name in chosen and k.arch in archs]


def kernel_path(k: Kernel) -> pathlib.Path:
    return OUT_DIR / f"{k.name}.cu"


HEADER = "// Generated by tools/generate_kernels.py from its KERNELS table. Do not edit.\n"


def render_kernel(k: Kernel) -> str:
    elem_ab = DTYPES[k.ab][0]
    elem_b = DTYPES[k.b_type][0]
    elem_cd = DTYPES[k.cd][0]
    a, b = MAJORS[k.a_major], MAJORS[k.b_major]
    sched = SCHEDULES[k.schedule][1]
    tsched = TILE_SCHEDULERS[k.scheduler][0]
    act = f"bw::gemm::Activation::{ACTIVATIONS[k.activation]}"
    tm, tn, tk = k.tile
    cm, cn = k.cluster
    pm, pn = k.preferred_cluster
    if k.arch == 90:
        include = "gemm/sm90/gemm_sm90.cuh"
        targs = (f"{elem_ab}, {elem_b}, {elem_cd}, bw::gemm::{a}, bw::gemm::{b}, {tm}, {tn}, {tk},"
                 f" {cm}, {cn}, {sched}, {tsched}, bw::gemm::Epilogue::{k.epilogue}, {act}")
        if k.epi_tile:
            targs += ", cute::Shape<cute::_%d, cute::_%d>" % k.epi_tile
        if k.swap_ab:
            targs += ", cutlass::epilogue::collective::EpilogueTileAuto, true"
        alias = f"bw::gemm::sm90::Gemm<{targs}>"
    else:
        include = "gemm/sm100/gemm_sm100.cuh"
        fm, fn = k.fallback_cluster
        targs = (f"{elem_ab}, {elem_b}, {elem_cd}, bw::gemm::{a}, bw::gemm::{b}, {tm}, {tn}, {tk},"
                 f" {cm}, {cn}, {pm}, {pn}, {fm}, {fn}, {sched}, {tsched}, bw::gemm::Epilogue::{k.epilogue}, {act}")
        alias = f"bw::gemm::sm100::Gemm<{targs}>"
    return (HEADER + f"// Kernel: {k.name} (presets: {' '.join(k.presets)})\n"
            f'#include "{include}"\n\n'
            f"using Kernel_{k.name} = {alias};\n"
            f"BW_REGISTER_KERNEL({k.name}, Kernel_{k.name}, {config_initializer(k)})\n")


def config_initializer(k: Kernel) -> str:
    q = lambda e: f"bw::gemm::{e}"  # noqa: E731
    return ", ".join([
        f'"{k.name}"', str(k.arch), q(DTYPES[k.ab][1]), q(DTYPES[k.b_type][1]), q(DTYPES[k.cd][1]),
        q(MAJORS[k.a_major]), q(MAJORS[k.b_major]), *map(str, k.tile), *map(str, k.cluster),
        *map(str, k.preferred_cluster), *map(str, k.fallback_cluster), q(SCHEDULES[k.schedule][2]),
        q(TILE_SCHEDULERS[k.scheduler][1]), q(f"Epilogue::{k.epilogue}"),
        q(f"Activation::{ACTIVATIONS[k.activation]}"), '"' + " ".join(k.presets) + '"',
        *(["true"] if k.swap_ab else [])])  # swap_ab: a trailing field, written when set


def render_table() -> str:
    rows = "".join(f"BW_KERNEL({config_initializer(k)})\n" for k in KERNELS)
    return (HEADER + "// One BW_KERNEL(...) row per kernel: the initializer of a bw::gemm::KernelConfig.\n"
            + rows)


def expected_files() -> dict[pathlib.Path, str]:
    files = {kernel_path(k): render_kernel(k) for k in KERNELS}
    files[OUT_DIR / "kernel_table.inc"] = render_table()
    return files


def check() -> list[str]:
    """Differences between the committed output and the table, as messages (empty: in sync)."""
    problems = []
    expected = expected_files()
    for path, text in expected.items():
        if not path.exists():
            problems.append(f"missing: {path.relative_to(ROOT)}")
        elif path.read_text() != text:
            problems.append(f"out of date: {path.relative_to(ROOT)}")
    for path in OUT_DIR.glob("*"):
        if path not in expected:
            problems.append(f"not in the table: {path.relative_to(ROOT)}")
    return problems


def write() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    expected = expected_files()
    for path in OUT_DIR.glob("*"):
        if path not in expected:
            path.unlink()
    for path, text in expected.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if the committed files are stale")
    p.add_argument("--list", metavar="PRESET", help="print the kernels of a preset and exit")
    p.add_argument("--archs", default="90,100", help="with --list: comma-separated archs")
    args = p.parse_args(argv)
    for k in KERNELS:
        k.validate()
    if args.list:
        for k in select(args.list, [int(a) for a in args.archs.split(",")]):
            print(k.name)
        return 0
    if args.check:
        problems = check()
        for msg in problems:
            print(msg, file=sys.stderr)
        if problems:
            print("run: python tools/generate_kernels.py", file=sys.stderr)
        return 1 if problems else 0
    write()
    print(f"wrote {len(KERNELS)} kernels and kernel_table.inc to {OUT_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
