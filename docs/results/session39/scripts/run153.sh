#!/usr/bin/env bash
# Session 39, call 1 (run153): main's default sm_90a set (87 kernels), then session 38's 16-bit
# rule (sm90_preference: fp16/bf16 take the 128x256 cooperative kernel over the 128x128
# ping-pong at K > 2048 where its waves are 90% full), measured on H100s only, on whatever GPU
# came: probe38.py rows in bf16, x @ W.T and x @ W, with + C and without, each role's kernel by
# name beside the op and torch.addmm / torch.mm. The shapes add K <= 2048 at M = 8192 / 16384
# (where the rule keeps the ping-pong) to see whether its slowdown at 16384 x 4096 x 14336
# reaches the shallower calls.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
S=4096x4096x4096,8192x4096x14336,16384x4096x14336,16384x4096x2048,8192x4096x2048,1024x6144x4096,4096x4096x1024,8192x14336x4096
LEFT=$(( 585 - ($(date +%s) - T0) ))
el "probe38 bf16 ($LEFT s)"; timeout $LEFT python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn bf16 > $OUT/probe38_bf16.txt 2>&1; echo "bf16 rc $?"; cut -c1-330 $OUT/probe38_bf16.txt
el done
