#!/usr/bin/env bash
# Session 24, call 4 (run109): the default set for sm_90a (80 kernels: the 64x64 FP8 ping-pong
# tile in; the tail-split kernels with the memset-free flags), SASS, every GPU test, the flags'
# and 64x64 tests verbose, and the quant_small_m benchmark suite (the command of session 23).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; timeout 120 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head; grep swapab $OUT/sass.txt | cut -c1-200
el gpu-tests-new; timeout 120 python3 -m pytest -v -p no:cacheprovider tests/test_gpu_tile_order.py -k "split_flags or split_in_a_cuda_graph or 64x64 or below_a_wave" > $OUT/pytest_new.log 2>&1; echo "new rc $?"; tail -1 $OUT/pytest_new.log
el gpu-tests; timeout 240 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el bench; mkdir -p /tmp/qsm; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out /tmp/qsm > $OUT/bench_small.log 2>&1; echo "bench rc $?"; ls /tmp/qsm; cp /tmp/qsm/*.csv /tmp/qsm/*.json $OUT/ 2>/dev/null; tail -40 $OUT/bench_small.log
el done
