#!/usr/bin/env bash
# Session 10, call 6: the ci kernel set on both archs with 0119410's build inputs (can_implement's
# message now from epilogue_mismatch, on sm100 kernels too): SASS, then the sm100 host-path dry
# runs and the quant, planner and kernel GPU tests.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16 BW_KERNELS=ci
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-160 $OUT/sass.txt | tail -9
el tests; timeout 200 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_sm100_host.py tests/test_gpu_quant.py tests/test_planner.py tests/test_gpu.py > $OUT/pytest_gpu.log 2>&1; tail -2 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el done
