#!/usr/bin/env bash
# Session 5, call 3: run-time tile order (swizzle 1/2/4/8, raster) of the default FP8 kernel.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tune; timeout 240 python3 benchmarks/tune.py --suite fp8 --reps 10 --schedules dp,dp_sw2,dp_sw4,dp_sw8,dp_sw4_m,dp_sw4_n --out $OUT/tune_fp8 2>&1 | grep -v "Warn\|redispatch" | tail -60
el done
