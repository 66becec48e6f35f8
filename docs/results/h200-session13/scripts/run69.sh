#!/usr/bin/env bash
# Session 13, call 6: after the test refactor (helpers.activation_tolerance, one operand maker in
# test_gpu_tile_order.py): that file and test_gpu_fused.py on two sm90 kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_axpby,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_fused_gelu_erf"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 100 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_tile_order.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-200
el done
