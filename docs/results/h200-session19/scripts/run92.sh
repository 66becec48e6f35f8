#!/usr/bin/env bash
# Session 19, call 2 (run92): a bare machine again (call 1's was given back before this call could
# start), so the whole default sm_90a set is rebuilt, then the fp8 suite of benchmarks/bench_gemm.py,
# then session 18's op-level probe for longer (ROUNDS rounds of 30 timed runs a shape).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log
el fp8; timeout ${SUITE_S:-240} python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/r/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; tail -14 $OUT/fp8_bench.log | cut -c1-170
el probe; PYTHONUNBUFFERED=1 timeout $(( 590 - ($(date +%s) - T0) )) python3 docs/results/h200-session18/scripts/probe18.py ${ROUNDS:-20} > $OUT/probe18.txt 2>&1; echo "probe rc $?"; grep -v "rel err" $OUT/probe18.txt | cut -c1-400; grep -c FAILED $OUT/probe18.txt
el done
