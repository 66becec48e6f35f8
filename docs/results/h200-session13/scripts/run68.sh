#!/usr/bin/env bash
# Session 13, call 5: the band tile order under the fused epilogues: four sm90 fused kernels
# (FP8 full and lean on 128x256, FP8 lean on 128x128, bf16 ping-pong full), the tile-order and
# fused GPU tests.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x
export BW_KERNELS="${P}256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}256x128_c2x1_coop_fp8overlap_lean_silu,${P}128x128_c2x1_coop_fp8overlap_lean_relu,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_fused_gelu_erf"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 200 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_tile_order.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -6 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el done
