#!/usr/bin/env bash
# Session 36, call 4 (run143): main's default sm_90a set with the 64x128 overlap ping-pong
# (87 kernels), the new kernel's SASS, and every GPU test with the time the build leaves.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
timeout 30 python3 tools/check_sass.py sm90_e4m3_bf16_ak_bk_64x128x128_c1x1_pingpong_fp8overlap_axpby > $OUT/sass_ppo.txt 2>&1; echo "sass rc $?"; cat $OUT/sass_ppo.txt | cut -c1-300
LEFT=$(( 590 - ($(date +%s) - T0) ))
el "all GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
