#!/usr/bin/env bash
# Session 31, call 2 (run126): the whole default set for sm_90a (132 kernels' sm_90a half) at
# main with session 30's loads and planner; every GPU test, and the planner and kernel-set tests
# under the device's torch; the SASS check of every kernel built.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el tests; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el cpu-tests; timeout 40 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head | cut -c1-250
el done
