#!/usr/bin/env bash
# Session 5, call 7: 128x128 vs 128x256 FP8 overlap kernels in long bursts (power-limited clocks).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 100 python3 .whl/probe_tiles2.py 40 2>&1 | grep -v Warn | tee $OUT/probe_tiles2.txt
timeout 60 python3 .whl/probe_tiles2.py 10 2>&1 | grep -v Warn | tee -a $OUT/probe_tiles2.txt
kill $SMI
el done
