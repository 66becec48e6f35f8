#!/usr/bin/env bash
# Session 13, call 4 (on call 3's warm machine and build: the default set with the band tile
# order): the fp8 suite, then the default (16-bit) suite.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
export PYTHONPATH=/tmp/site
python3 -c "import blackwell_ops._C" || { echo "no build on this machine"; exit 1; }
el fp8; timeout 200 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/r/fp8 > $OUT/fp8_bench.log 2>&1; tail -13 $OUT/fp8_bench.log
el default; timeout 270 python3 benchmarks/bench_gemm.py --suite default --peers addmm,mm+epi,eager,compile --reps 20 --time-limit 200 --out $OUT/r/default > $OUT/default.log 2>&1; tail -30 $OUT/default.log
tar czf $OUT/results.tgz -C $OUT r && rm -rf $OUT/r
el done
