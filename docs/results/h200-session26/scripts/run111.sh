#!/usr/bin/env bash
# Session 26, call 1 (run111): the default sm_90a kernel set (80 kernels), every GPU test with the
# failures listed (-rfE; session 25's run110 on 14 kernels had 3 failures it did not name), then
# probe26.py (eager vs CUDA graph replay: event time and CUPTI kernel time).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el gpu-tests; timeout 200 python3 -m pytest -q -rfE -m gpu -p no:cacheprovider tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el probe; timeout 90 python3 docs/results/h200-session26/scripts/probe26.py > $OUT/probe26.txt 2>&1; echo "probe rc $?"; cut -c1-700 $OUT/probe26.txt
el done
