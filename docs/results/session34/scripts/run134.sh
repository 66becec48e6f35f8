#!/usr/bin/env bash
# Session 34, call 2 (run134): the 128x192 FP8 overlap tile experiment. The default set's
# e4m3 -> bf16 plain-product kernels (what the planner takes for calls without C) plus the two
# new 128x192 scale kernels of `all`: 17 sm_90a kernels. Their SASS, the GPU tests of the scale
# kernels (the 128x192 ones among them), then probe34.py (300-2048 rows of Llama-3 8B's shapes).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
export BW_KERNELS="default,-sm90_f16_*,-sm90_bf16_*,-sm90_s8_*,-sm90_tf32_*,-sm90_u8_*,-sm90_e5m2*,-sm90_e4m3_f16_*,-sm90_e4m3_f32_*,-sm90_*_fused_*,-sm90_*_lean_*,sm90_e4m3_bf16_ak_bk_128x192x128_*"
el build; CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el sass; timeout 60 python3 tools/check_sass.py $(python3 -c "from blackwell_ops import _C; print(' '.join(k['name'] for k in _C.compiled_kernels() if '128x192' in k['name']))") > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-250 $OUT/sass.txt
el tests; timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_scale.py tests/test_gpu_tile_order.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
LEFT=$(( 590 - ($(date +%s) - T0) ))
el "probe ($LEFT s)"; PYTHONUNBUFFERED=1 timeout $LEFT python3 docs/results/session34/scripts/probe34.py > $OUT/probe34.txt 2>&1; echo "probe rc $?"; cut -c1-330 $OUT/probe34.txt
el done
