#!/usr/bin/env bash
# Session 38, call 2 (run149): run148's probe (probe38.py rows) at more shapes, in the two
# layouts of x @ W.T and x @ W (a K-major; b K-major or MN-major), on the four kernels of those
# layouts; then the kernels cuBLAS runs (probe38.py names).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_kernels "sm90_bf16_bf16_ak_*_128x256x64_c2x1_coop_axpby,sm90_bf16_bf16_ak_*_128x128x64_c1x2_pingpong_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
S=4096x4096x4096,8192x4096x14336,2048x4096x4096,1024x6144x4096,4096x4096x2048,4096x4096x14336,16384x4096x14336,4096x14336x4096,8192x14336x4096,2048x2048x2048,4096x4096x1024,8192x8192x8192
el probe38; timeout 330 python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn > $OUT/probe38_rows.txt 2>&1; echo "probe38 rc $?"; cut -c1-330 $OUT/probe38_rows.txt
el names; timeout 60 python3 docs/results/session38/scripts/probe38.py names > $OUT/probe38_names.txt 2>&1; echo "names rc $?"; cut -c1-200 $OUT/probe38_names.txt
el done
