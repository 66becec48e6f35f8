#!/usr/bin/env bash
# Session 34, call 1 (run133): main's default sm_90a set (build inputs b962d7e, session 31's planner),
# asked for as kind nvidia-h200. The fp8 and int8 suites side by side first (issue #9's rows), then
# every GPU test, then the planner and kernel-set tests under the device's torch in the time left
# (session 33's run132, never run). No SASS check: run131 checked all 84 kernels of these inputs.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el fp8; timeout 100 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
el int8; timeout 60 python3 benchmarks/bench_gemm.py --suite int8 --peers int_mm --reps 60 --warmup 25 --out $OUT/int8 > $OUT/int8_bench.log 2>&1; echo "bench rc $?"; grep -A10 "^case" $OUT/int8_bench.log | cut -c1-200
LEFT=$(( 560 - ($(date +%s) - T0) )); [ $LEFT -gt 175 ] && LEFT=175
el "all GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "cpu tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el done
