#!/usr/bin/env bash
# Session 8, call 8: the GPU compile tests after the review (each compiled graph is profiled for
# a CUTLASS kernel launch), on the ci set's sm90 kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=ci
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 200 python3 -m pytest -m gpu -v -rs -p no:cacheprovider tests/test_compile.py > $OUT/pytest_gpu.log 2>&1; grep -E "PASS|FAIL|SKIP|Error|passed|failed" $OUT/pytest_gpu.log | head -20
el done
