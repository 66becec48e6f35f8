#!/usr/bin/env bash
# Session 16, call 5: main as it stands (build inputs of 6b78ca5, the review commit that no GPU had
# run as a whole): the whole default kernel set for sm_90a, every GPU-marked test, the SASS check,
# then, in the time left, a smoke run of benchmarks/tune.py --suite fp8 (scale kernels among the
# candidates since 066396a; a smoke, not a measurement: 10 reps, 3 warm-up runs).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log
el tests; timeout $(( 500 - ($(date +%s) - T0) )) python3 -m pytest -m gpu -q -rs -p no:cacheprovider --durations=8 tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -20
el sass; timeout $(( 560 - ($(date +%s) - T0) )) python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep "checked" $OUT/sass.txt
el tune; timeout $(( 590 - ($(date +%s) - T0) )) python3 benchmarks/tune.py --suite fp8 --reps 10 --warmup 3 --schedules dp --out $OUT/tune_smoke > $OUT/tune_smoke.log 2>&1; echo "tune rc $?"; tail -5 $OUT/tune_smoke.log | cut -c1-200
el done
