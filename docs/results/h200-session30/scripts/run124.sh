#!/usr/bin/env bash
# Session 30, call 2 (run124): the planner's session-30 rule for FP8 at three or more rows of
# 128-row tiles (csrc/gemm/heuristics.cpp, sm90_fp8_order), on run123's kernels (the default
# set's 41 sm_90a FP8 kernels): the GPU tests of the FP8 kernels' files, the planner and
# kernel-set tests, and probe30.py op mode (scaled_mm and the op, side by side) at 129-1536 rows.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session30/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="default,-sm90_f16_*,-sm90_bf16_*,-sm90_s8_*,-sm90_tf32_*,-sm90_u8_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el time; PYTHONUNBUFFERED=1 timeout 90 python3 $S/probe30.py op > $OUT/time_op.txt 2>&1; echo "time rc $?"; cut -c1-200 $OUT/time_op.txt
el tests; timeout 200 python3 -m pytest -q -rfEs -p no:cacheprovider -m gpu tests/test_gpu_quant.py tests/test_gpu_swap.py tests/test_gpu_tile_order.py tests/test_gpu_scale.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el cpu-tests; timeout 60 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300
el done
