#!/usr/bin/env bash
# Session 35, call 5 (run139): the 128x128 tie turned to 2x1 (csrc/gemm/heuristics.cpp,
# kSm90Fp8Shapes) through the op, in the little device time left: the default set's nine
# e4m3 -> bf16 128-row overlap kernels without C-less stream or fused roles (what the planner
# takes at three or more rows of tiles), probe34.py verify and its rows (the op's pick beside
# every kernel by name), then the tile-order GPU tests of the 128x192 pick and the deep splits.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_kernels "sm90_e4m3_bf16_ak_bk_128x*_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x*_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_128x*_coop_fp8overlap_scale_e128x64,sm90_e4m3_bf16_ak_bk_128x*_coop_fp8overlap_ts_scale_e128x64" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el probes; timeout 40 python3 docs/results/session34/scripts/probe34.py verify > $OUT/probe34_verify.txt 2>&1; echo "verify rc $?"
timeout 40 python3 docs/results/session34/scripts/probe34.py > $OUT/probe34_rows.txt 2>&1; echo "rows rc $?"; tail -1 $OUT/probe34_rows.txt
el tests; timeout 40 python3 -m pytest -v -rfEs -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py -k "128x192 or deep_tiles" > $OUT/pytest_tile_order.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_tile_order.log | cut -c1-300; grep -E "128x192|FAILED|ERROR" $OUT/pytest_tile_order.log | head -12 | cut -c1-200
el done
