#!/usr/bin/env bash
# Session 15, call 4 (call 3's build, on the same warm machine): the fp8 suite, then
# probe_scale.py with what time is left.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export PYTHONPATH=/tmp/site
el fp8; timeout ${SUITE_S:-230} python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/r/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; tail -14 $OUT/fp8_bench.log | cut -c1-170
el probe; PYTHONUNBUFFERED=1 timeout $(( ${LIMIT_S:-300} - ($(date +%s) - T0) )) python3 docs/results/h200-session15/scripts/probe_scale.py ${ROUNDS:-8} > $OUT/probe_scale.txt 2>&1; grep -v "rel err" $OUT/probe_scale.txt
el done
