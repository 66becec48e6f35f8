#!/usr/bin/env bash
# Session 7, call 10: the ci kernel set on both arches (16-bit fused and axpby, FP8 plain and lean,
# sm100 kernels for the dry runs) and every GPU test, after the FusedTree refactor (b172de8).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16 BW_KERNELS=ci
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-160 $OUT/sass.txt
el tests; timeout 400 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el done
