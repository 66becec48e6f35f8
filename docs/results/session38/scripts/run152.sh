#!/usr/bin/env bash
# Session 38, call 4 (run152): session 38's 16-bit rule for fp16 inputs (it covers F16 and BF16;
# run148-151 timed bf16 only): probe38.py rows in fp16 on the three roles' fp16 kernels of
# x @ W.T and x @ W, then the same bf16 rows again on whatever GPU came, with the time left.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
K="128x256x64_c2x1_coop_axpby 128x128x64_c1x2_pingpong_axpby 64x128x64_c1x2_pingpong_axpby"
SPEC=$(for t in f16_f16 bf16_bf16; do for k in $K; do printf "sm90_%s_ak_*_%s," $t $k; done; done)
el build; build_kernels "${SPEC%,}" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
S=4096x4096x4096,8192x4096x14336,16384x4096x14336,1024x6144x4096,4096x4096x1024
el probe38 f16; timeout 80 python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn f16 > $OUT/probe38_f16.txt 2>&1; echo "f16 rc $?"; cut -c1-330 $OUT/probe38_f16.txt
LEFT=$(( 250 - ($(date +%s) - T0) ))
el "probe38 bf16 ($LEFT s)"; timeout $LEFT python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn bf16 > $OUT/probe38_bf16.txt 2>&1; echo "bf16 rc $?"; cut -c1-330 $OUT/probe38_bf16.txt
el done
