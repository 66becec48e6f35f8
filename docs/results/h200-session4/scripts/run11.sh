#!/usr/bin/env bash
# tune.py with interleaved timing (timed_rows): FP8 axpby and fused cases on the default kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tune; timeout 150 python3 benchmarks/tune.py --suite fp8 --reps 10 --out $OUT/tune_fp8 2>&1 | grep -v "Warn\|redispatch" | tail -40
el done
