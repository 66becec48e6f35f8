#!/usr/bin/env bash
# Session 22, call 3 (run100): the default kernel set for sm_90a as shipped (with the small-M FP8 and
# INT8 kernels), SASS of every kernel, all GPU tests, then the benchmarks: the new quant_small_m
# suite (FP8 / INT8 at Llama-3 8B MLP token counts 16-2048 against torch._scaled_mm /
# torch._int_mm) and the int8 suite (whose 4096^3 call now runs on the 128x128 ping-pong tile).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "blackwell_ops:" $OUT/build.log | cut -c1-200
el sass; timeout 90 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -v "^ok " $OUT/sass.txt | cut -c1-200
el tests; timeout 170 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el bench small; timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out $OUT/quant_small_m > $OUT/bench_small.log 2>&1; echo "bench rc $?"; tail -26 $OUT/bench_small.log | cut -c1-200
el bench int8; timeout 90 python3 benchmarks/bench_gemm.py --suite int8 --peers int_mm --reps 60 --warmup 25 --out $OUT/int8 > $OUT/bench_int8.log 2>&1; echo "bench rc $?"; tail -9 $OUT/bench_int8.log | cut -c1-200
el done
