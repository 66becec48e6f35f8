#!/usr/bin/env bash
# Session 36, call 1 (run140). On an H200 (none lent since session 30): session 34's run136, the
# issue's H200 run of main (default sm_90a set, every GPU test, the fp8 suite). On an H100:
# session 35's unrun run139 (the 128x128 tie to 2x1 through the op; the tile-order GPU tests of
# the 128x192 pick and the deep splits) on its nine kernels plus the small-M candidates of
# probe36.py (the 2x1 stream twins, the 64-row ping-pongs), then probe36.py's rows and K sweep.
set -uo pipefail
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$GPU"
if [[ "$GPU" == *H200* ]]; then exec bash docs/results/session34/scripts/run136.sh; fi
. "$(dirname "$0")/../../session32/scripts/common.sh"
P=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${P}128x*_coop_fp8overlap_axpby,${P}128x*_coop_fp8overlap_ts_axpby,${P}128x*_coop_fp8overlap_scale_e128x64,${P}128x*_coop_fp8overlap_ts_scale_e128x64,${P}128x128x128_c2x1_coop_fp8overlap_stream*,${P}64x*_pingpong_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el probe34; timeout 40 python3 docs/results/session34/scripts/probe34.py verify > $OUT/probe34_verify.txt 2>&1; echo "verify rc $?"
timeout 40 python3 docs/results/session34/scripts/probe34.py > $OUT/probe34_rows.txt 2>&1; echo "rows rc $?"; tail -1 $OUT/probe34_rows.txt
el tests; timeout 40 python3 -m pytest -v -rfEs -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py -k "128x192 or deep_tiles" > $OUT/pytest_tile_order.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_tile_order.log | cut -c1-300; grep -E "128x192|FAILED|ERROR" $OUT/pytest_tile_order.log | head -12 | cut -c1-200
el probe36; timeout 70 python3 docs/results/session36/scripts/probe36.py > $OUT/probe36_rows.txt 2>&1; echo "probe36 rc $?"; cut -c1-330 $OUT/probe36_rows.txt
timeout 40 python3 docs/results/session36/scripts/probe36.py ksweep > $OUT/probe36_ksweep.txt 2>&1; echo "ksweep rc $?"; cut -c1-330 $OUT/probe36_ksweep.txt
el done
