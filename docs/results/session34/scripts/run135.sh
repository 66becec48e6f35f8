#!/usr/bin/env bash
# Session 34, call 3 (run135): main's default sm_90a set with the 128x192 FP8 scale kernels and
# the planner that takes them (86 kernels). probe34.py verify (the planner's picks against each
# kernel by name, where the 128x192 tile is taken or nearly so), the SASS of the two new kernels,
# every GPU test, and the fp8 suite (issue #9's rows) in the time left.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el probe; PYTHONUNBUFFERED=1 timeout 90 python3 docs/results/session34/scripts/probe34.py verify > $OUT/probe34_verify.txt 2>&1; echo "probe rc $?"; cut -c1-330 $OUT/probe34_verify.txt
el sass; timeout 40 python3 tools/check_sass.py $(python3 -c "from blackwell_ops import _C; print(' '.join(k['name'] for k in _C.compiled_kernels() if '128x192' in k['name']))") > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-250 $OUT/sass.txt
LEFT=$(( 555 - ($(date +%s) - T0) )); [ $LEFT -gt 175 ] && LEFT=175
el "all GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "fp8 suite ($LEFT s)"; timeout $LEFT python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
el done
