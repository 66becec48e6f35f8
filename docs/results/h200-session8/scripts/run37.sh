#!/usr/bin/env bash
# Session 8, call 4: the ci kernel set on both arches and every GPU test, after the review mends
# (one lean-misfit helper, plan loop) and the new GPU compile tests (tests/test_compile.py).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16 BW_KERNELS=ci
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-160 $OUT/sass.txt
el tests; timeout 480 python3 -m pytest -m gpu -q -rs -p no:cacheprovider --durations=12 tests > $OUT/pytest_gpu.log 2>&1; tail -18 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
grep -n "test_compile" $OUT/pytest_gpu.log | head
el done
