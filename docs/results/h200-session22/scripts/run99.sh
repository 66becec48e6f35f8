#!/usr/bin/env bash
# Session 22, call 2 (run99): the small-M kernels as shipped (tools/generate_kernels.py,
# _SM90_FP8_SMALL_M; INT8 on the 16-bit roles' tiles) beside the kernels the planner took before,
# for sm_90a only: the tests that touch them (planner, band order and tail split, incl. the
# split below a wave, quant, scale), SASS, then probe22.py (now with the tail-split twins).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session22/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}128x128x128_c2x1_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}64x128x128_c1x2_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_ts_axpby,${F}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${F}128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64,${F}128x256x128_c2x1_coop_fp8overlap_axpby,sm90_s8_s32_ak_bk_*,sm90_s8_bf16_ak_bk_*,-sm90_s8_*_sk_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "blackwell_ops:" $OUT/build.log; grep -a -i "spill" $OUT/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-160 $OUT/sass.txt
el tests; timeout 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_planner.py tests/test_gpu_tile_order.py tests/test_gpu_quant.py tests/test_gpu_scale.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-300; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -20 | cut -c1-400
el probe; PYTHONUNBUFFERED=1 timeout 300 python3 $S/probe22.py ${ROUNDS:-5} > $OUT/probe22.txt 2>&1; echo "probe rc $?"; grep -v "rel err\|exact True" $OUT/probe22.txt; grep -c FAILED $OUT/probe22.txt
el done
