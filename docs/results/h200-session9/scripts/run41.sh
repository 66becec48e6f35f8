#!/usr/bin/env bash
# Session 9, call 1: the tile order (raster, swizzle) of the 128x256 FP8 kernels, side by side.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
nvidia-smi --query-gpu=timestamp,power.draw,power.limit,clocks.sm,clocks.mem,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!
el probe; timeout 400 python3 .whl/probe_sched.py 40 6 2>&1 | tee $OUT/probe_sched.txt
kill $SMI
el done
