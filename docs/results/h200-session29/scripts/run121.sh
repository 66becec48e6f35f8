#!/usr/bin/env bash
# Session 29, call 1 (run121): the default set for sm_90a (84 kernels: two new ones load the
# weights evict-first on one row of 2x1 clusters); every GPU test, the planner and kernel-set
# tests; the SASS of the two new kernels; probe29.py's side-by-side timings at 129-512 rows.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session29/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el sass; timeout 30 python3 tools/check_sass.py sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_stream_axpby sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_stream_ts_axpby sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby > $OUT/sass.txt 2>&1; echo "sass rc $?"; cat $OUT/sass.txt | cut -c1-250
el time; PYTHONUNBUFFERED=1 timeout 100 python3 $S/probe29.py > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt; grep -c FAILED $OUT/time.txt
el tests; timeout 170 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el cpu-tests; timeout 60 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el done
