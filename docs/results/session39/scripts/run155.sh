#!/usr/bin/env bash
# Session 39, call 3 (run155), on run153's machine while warm: session 38's 16-bit rule for fp16
# inputs (session 38's unrun run152): probe38.py rows in fp16 at run153's shapes, x @ W.T and
# x @ W; then the int8 suite against torch._int_mm.
set -uo pipefail
export PYTHONPATH=/tmp/site
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
S=4096x4096x4096,8192x4096x14336,16384x4096x14336,16384x4096x2048,8192x4096x2048,1024x6144x4096,4096x4096x1024,8192x14336x4096
el "probe38 f16"; timeout 300 python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn f16 > $OUT/probe38_f16.txt 2>&1; echo "f16 rc $?"; cut -c1-330 $OUT/probe38_f16.txt
el "int8 suite"; timeout 80 python3 benchmarks/bench_gemm.py --suite int8 --peers int_mm --reps 60 --warmup 25 --out $OUT/int8 > $OUT/int8_bench.log 2>&1; echo "int8 rc $?"; grep -E "int8|geometric|targets" $OUT/int8_bench.log | cut -c1-200
el done
