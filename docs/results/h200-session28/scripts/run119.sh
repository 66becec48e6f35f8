#!/usr/bin/env bash
# Session 28, call 4 (run119): the default set for sm_90a again (82 kernels, as run118); the
# quant_small_m suite as CUDA graph replays; the SASS check of the 82 (run118's timed out).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
el bench-graphs; mkdir -p /tmp/qg; PYTHONUNBUFFERED=1 timeout 120 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --graphs --out /tmp/qg > $OUT/bench_graphs.log 2>&1; echo "bench rc $?"; for f in results.csv results.json table.txt command.txt; do cp /tmp/qg/$f $OUT/ 2>/dev/null; done; tail -27 $OUT/bench_graphs.log
el sass; timeout 110 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt
el done
