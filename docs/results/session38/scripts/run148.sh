#!/usr/bin/env bash
# Session 38, call 1 (run148): the eight default bf16 -> bf16 kernels of the planner's "Big"
# (128x256 cooperative, 2x1) and "Mid" (128x128 ping-pong, 1x2) roles, one per operand layout,
# timed by name beside the op and torch.addmm / torch.mm, with + C and without (probe38.py); then
# the kernels cuBLAS runs for _scaled_mm and addmm at the probe's shapes (probe38.py names).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_kernels "sm90_bf16_bf16_*_128x256x64_c2x1_coop_axpby,sm90_bf16_bf16_*_128x128x64_c1x2_pingpong_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el names; timeout 100 python3 docs/results/session38/scripts/probe38.py names > $OUT/probe38_names.txt 2>&1; echo "names rc $?"; cut -c1-250 $OUT/probe38_names.txt
el probe38; timeout 300 python3 docs/results/session38/scripts/probe38.py rows > $OUT/probe38_rows.txt 2>&1; echo "probe38 rc $?"; cut -c1-330 $OUT/probe38_rows.txt
el done
