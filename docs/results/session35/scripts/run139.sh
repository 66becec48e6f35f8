#!/usr/bin/env bash
# Session 35, call 4 (run139): the 128x128 tie turned to 2x1 (csrc/gemm/heuristics.cpp,
# kSm90Fp8Shapes) through the op. Session 34's reduced build (the default set's e4m3 -> bf16
# plain-product kernels, 17 sm_90a kernels with the 128x192 ones), the planner tests under the
# device's torch, the tile-order GPU tests by name (the 128x192 pick's test among them), then
# probe34.py verify and its rows (the op's pick beside every kernel by name).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
export BW_KERNELS="default,-sm90_f16_*,-sm90_bf16_*,-sm90_s8_*,-sm90_tf32_*,-sm90_u8_*,-sm90_e5m2*,-sm90_e4m3_f16_*,-sm90_e4m3_f32_*,-sm90_*_fused_*,-sm90_*_lean_*"
el build; CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=17 python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el probes; timeout 40 python3 docs/results/session34/scripts/probe34.py verify > $OUT/probe34_verify.txt 2>&1; echo "verify rc $?"
timeout 40 python3 docs/results/session34/scripts/probe34.py > $OUT/probe34_rows.txt 2>&1; echo "rows rc $?"; tail -1 $OUT/probe34_rows.txt
el "tests"; timeout 60 python3 -m pytest -v -rfEs -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py > $OUT/pytest_tile_order.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_tile_order.log | cut -c1-300; grep -E "128x192|FAILED|ERROR" $OUT/pytest_tile_order.log | head -20 | cut -c1-200
timeout 30 python3 -m pytest -q -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_planner.log 2>&1; echo "planner rc $?"; tail -1 $OUT/pytest_planner.log
el done
