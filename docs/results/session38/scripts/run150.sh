#!/usr/bin/env bash
# Session 38, call 3 (run150): session 38's sm90_preference rule (16-bit inputs take the 128x256
# cooperative kernel over the 128x128 ping-pong at K > 2048 where its waves are 90% full), checked
# through the op: probe38.py rows (the op's pick beside both kernels by name and the cuBLAS peer)
# on the three roles' kernels of x @ W.T and x @ W, then the GPU tests of the op on them.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_kernels "sm90_bf16_bf16_ak_*_128x256x64_c2x1_coop_axpby,sm90_bf16_bf16_ak_*_128x128x64_c1x2_pingpong_axpby,sm90_bf16_bf16_ak_*_64x128x64_c1x2_pingpong_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
S=4096x4096x4096,8192x4096x14336,16384x4096x14336,2048x4096x4096,4096x14336x4096,1024x6144x4096,4096x4096x1024,4096x4096x2048
el probe38; timeout 240 python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn > $OUT/probe38_rows.txt 2>&1; echo "probe38 rc $?"; cut -c1-330 $OUT/probe38_rows.txt
el "GPU tests"; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
