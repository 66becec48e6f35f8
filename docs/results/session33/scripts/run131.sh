#!/usr/bin/env bash
# Session 33, call 1 (run131): the default sm_90a set of main (b962d7e's build inputs: session 31's
# planner); the fp8 suite side by side first (issue #9's rows, ~30 s), then every GPU test, then
# the SASS check of every sm_90a kernel in the time left. session 32's two planned calls in one,
# since four refused device tries left too little budget for two.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
el bench; timeout 100 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
LEFT=$(( 590 - ($(date +%s) - T0) )); [ $LEFT -gt 175 ] && LEFT=175
el "all GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "sass ($LEFT s)"; timeout $LEFT python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head | cut -c1-250
el done
