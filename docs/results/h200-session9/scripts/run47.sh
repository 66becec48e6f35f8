#!/usr/bin/env bash
# Session 9, call 7: swizzle 8 against CUTLASS's order, settled, on the sm90 INT8, TF32 and 16-bit
# kernels (probe_sched4.py).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby,sm90_tf32_f32_ak_bk_128x256x32_c2x1_coop_axpby,sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_axpby,sm90_bf16_bf16_ak_bk_64x128x64_c1x2_pingpong_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe; timeout 300 python3 .whl/probe_sched4.py 2>&1 | tee $OUT/probe_sched4.txt
el done
