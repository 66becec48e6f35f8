#!/usr/bin/env bash
# Session 23, call 2 (run103): the swapped FP8 kernels (D^T = B^T A^T, tools/generate_kernels.py
# _SM90_FP8_SWAP) beside the kernels the planner took at M <= 128 before: SASS, the GPU tests that
# run every compiled kernel (band order, tail split, quant, the new test_gpu_swap.py), then
# probe23.py time2 (M = 1-128 at Llama-3 8B's MLP, against torch._scaled_mm).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session23/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}*_swapab_axpby,${F}64x128x128_c1x2_pingpong_axpby,${F}64x64x128_c1x1_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt
el tests; timeout 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_swap.py tests/test_gpu_tile_order.py tests/test_gpu_quant.py tests/test_gpu_scale.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|Error" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el probe; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe23.py time2 > $OUT/time2.txt 2>&1; echo "probe rc $?"; grep -v "rel err" $OUT/time2.txt; grep -c FAILED $OUT/time2.txt
el done
