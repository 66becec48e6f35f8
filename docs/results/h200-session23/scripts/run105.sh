#!/usr/bin/env bash
# Session 23, call 4 (run105): past decode. The swapped 32- and 64-token tiles at M = 65-256 (more
# than one token tile) beside the kernels the planner takes there and the 64x64 ping-pong
# candidate: probe23.py time3 (Llama-3 8B's MLP against torch._scaled_mm).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session23/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}32x128x128_c1x1_coop_ts_swapab_axpby,${F}64x128x128_c1x1_coop_ts_swapab_axpby,${F}64x64x128_c1x1_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_axpby,${F}128x128x128_c2x1_coop_fp8overlap_ts_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -2
el probe; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe23.py time3 > $OUT/time3.txt 2>&1; echo "probe rc $?"; grep -v "rel err" $OUT/time3.txt; grep -c FAILED $OUT/time3.txt
el done
