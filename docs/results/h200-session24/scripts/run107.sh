#!/usr/bin/env bash
# Session 24, call 2 (run107): the same 14 kernels as run106; probe24.py profile (where the GPU
# time of a decode call goes: kernels, memsets, idle gaps; M = 16 / 64 / 128 down, 16 up) and
# time2 (the 64x64 ping-pong tile where it fills 3/4 to 1 wave at M = 65-128, and beside).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session24/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}*_swapab_axpby,${F}64x64x128_*_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_axpby,${F}128x128x128_c2x1_coop_fp8overlap_ts_axpby,${F}128x256x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el profile; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe24.py profile > $OUT/profile.txt 2>&1; echo "profile rc $?"; grep -v "rel err" $OUT/profile.txt | cut -c1-160; grep -c FAILED $OUT/profile.txt
el time2; PYTHONUNBUFFERED=1 timeout 240 python3 $S/probe24.py time2 > $OUT/time2.txt 2>&1; echo "time2 rc $?"; grep -v "rel err" $OUT/time2.txt; grep -c FAILED $OUT/time2.txt
el done
