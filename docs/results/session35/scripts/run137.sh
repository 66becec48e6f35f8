#!/usr/bin/env bash
# Session 35, call 2 (run137), on run136's machine while warm (its build kept): the SASS of the
# 86 sm_90a kernels, the int8 suite (its results folder did not come back: too many files; the
# table is in int8_bench.log), and the fp8 suite a second time.
export PYTHONPATH=/tmp/site; T0=$(date +%s)
timeout 120 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -4 $OUT/sass.txt
timeout 100 python3 benchmarks/bench_gemm.py --suite int8 --peers int_mm --reps 60 --warmup 25 --out $OUT/int8 > $OUT/int8_bench.log 2>&1; echo "int8 rc $?"
L=$(( 380 - ($(date +%s)-T0) )); timeout $L python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8b > $OUT/fp8b_bench.log 2>&1; echo "fp8b rc $?"
