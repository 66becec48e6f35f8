#!/usr/bin/env bash
# Session 34's plan for the next session, call 1 (run136; not run in session 34, whose device
# time ran out): main's default sm_90a set with the 128x192 FP8 kernels (86), every GPU test with
# all the time the build leaves (run135 cut them off at 108 s, after 1510 of them), then the fp8
# suite if time is left (issue #9's rows; results to benchmarks/results/h200/ if an H200 comes).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
LEFT=$(( 560 - ($(date +%s) - T0) ))
el "all GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "fp8 suite ($LEFT s)"; [ $LEFT -gt 30 ] && timeout $LEFT python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
el done
