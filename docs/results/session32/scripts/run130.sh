#!/usr/bin/env bash
# Session 32, call 2 (run130), on run129's warm build: SASS of every sm_90a kernel; the planner and
# kernel-set tests under the device's torch; the fp8 suite side by side (ours, _scaled_mm, compile).
set -uo pipefail
. "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
el sass; timeout 120 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head | cut -c1-250
el bench; timeout 300 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "cpu tests ($LEFT s left)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el done
