#!/usr/bin/env bash
# Session 6, call 11: run_entry returning a Status (review mend): the run_kernel / run_kernel_fused
# tests on the H200 (sm100 dry runs, by-name launches against the op and the fp64 reference).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
Q=sm100_bf16_bf16_ak_bk_256x128x64_cdyn4x1_2sm
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_fused_gelu_tanh,${Q}_axpby,${Q}_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_sm100_host.py tests/test_gpu_fused.py tests/test_gpu_quant.py tests/test_kernel_set.py > $OUT/pytest_gpu.log 2>&1; tail -6 $OUT/pytest_gpu.log
el done
