#!/usr/bin/env bash
# Session 28, call 3 (run118): the default set for sm_90a (82 kernels: the five swapped tiles now
# load the weights evict-first, and take 65-128 rows where measured to pay); every GPU test; the
# quant_small_m suite (eager); the SASS check of the 82.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el tests; timeout 170 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el bench; mkdir -p /tmp/qsm; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out /tmp/qsm > $OUT/bench_small.log 2>&1; echo "bench rc $?"; for f in results.csv results.json table.txt command.txt; do cp /tmp/qsm/$f $OUT/ 2>/dev/null; done; tail -30 $OUT/bench_small.log
el sass; timeout 40 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt
el done
