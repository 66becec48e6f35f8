#!/usr/bin/env bash
# Session 39, call 2 (run154), on run153's machine while warm (its default build kept): every GPU
# test with session 38's planner, then the fp8 suite and the 16-bit default suite (peers without
# torch.compile, for time), side by side as the benchmarks do.
set -uo pipefail
export PYTHONPATH=/tmp/site
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el "all GPU tests"; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el "fp8 suite"; timeout 170 python3 benchmarks/bench_gemm.py --suite fp8 --reps 80 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "fp8 rc $?"; grep -E "x.*(met|MISS)|geometric" $OUT/fp8_bench.log | cut -c1-200
LEFT=$(( 585 - ($(date +%s) - T0) ))
el "default suite ($LEFT s)"; timeout $LEFT python3 benchmarks/bench_gemm.py --suite default --peers addmm,mm+epi --reps 20 --time-limit $(( LEFT - 40 )) --out $OUT/default > $OUT/default_bench.log 2>&1; echo "default rc $?"; grep -E "^[a-z].*x$|geometric" $OUT/default_bench.log | cut -c1-200
el done
