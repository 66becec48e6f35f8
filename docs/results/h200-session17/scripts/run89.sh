#!/usr/bin/env bash
# Session 17, call 5 (run89): main's FP8 e4m3 -> bf16 wide scale kernel and its tail-split twin
# (the device budget left allowed two kernels): the tail-split, scale and planner tests, SASS,
# then the op itself (torch.ops.bw.gemm_axpby as a user calls it) against torch._scaled_mm where
# the planner takes the tail-split kernel and where it does not.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session17/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_scale_e128x64,${P}_ts_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 100 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_tile_order.py tests/test_gpu_scale.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10 | cut -c1-300
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt
el op; PYTHONUNBUFFERED=1 timeout 90 python3 $S/probe17d.py ${ROUNDS:-8} > $OUT/probe17d.txt 2>&1; grep -v "rel err" $OUT/probe17d.txt; grep -c FAILED $OUT/probe17d.txt
el done
