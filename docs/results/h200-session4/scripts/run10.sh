#!/usr/bin/env bash
# 16-bit kernels after the CutlassGemm change (MainloopOf) and the planner/pin changes: the ci set
# (sm90 part) and the bf16 128x128 ping-pong family; the GPU tests over them.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="ci,sm90_bf16_bf16_*_128x128x64_c1x2_pingpong_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 240 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu.py tests/test_gpu_fused.py tests/test_gpu_reliability.py tests/test_planner.py tests/test_autograd.py tests/test_fused_autograd.py tests/test_compile.py tests/test_gpu_quant.py > $OUT/pytest_gpu.log 2>&1; tail -6 $OUT/pytest_gpu.log
el done
