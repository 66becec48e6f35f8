#!/usr/bin/env bash
# Session 18, call 1 (run90): main as session 17 left it plus the op-level tail-split test: the whole
# default kernel set for sm_90a (with the two tail-split twins), every GPU-marked test, then the
# public op timed at the 1-3 wave FP8 shapes (probe18.py), then the SASS check in the time left.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session18/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log
el tests; timeout $(( 470 - ($(date +%s) - T0) )) python3 -m pytest -m gpu -q -rs -p no:cacheprovider --durations=8 tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el probe; PYTHONUNBUFFERED=1 timeout $(( 560 - ($(date +%s) - T0) )) python3 $S/probe18.py ${ROUNDS:-8} > $OUT/probe18.txt 2>&1; echo "probe rc $?"; grep -v "rel err" $OUT/probe18.txt | cut -c1-400; grep -c FAILED $OUT/probe18.txt
el sass; timeout $(( 595 - ($(date +%s) - T0) )) python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep "checked" $OUT/sass.txt
el done
