#!/usr/bin/env bash
# Session 14, call 5: the whole default kernel set for sm_90a with the padded calls (and the copy
# kernel of csrc/ops/pad_copy.cu), then every GPU-marked test.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log; grep -a "nvcc 90a" $OUT/build.log | head -2
el tests; timeout $(( 475 - ($(date +%s) - T0) )) python3 -m pytest -m gpu -q -rs -p no:cacheprovider --durations=8 tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -4 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -20
el done
