#!/usr/bin/env bash
# Session 5, call 4: the op's run-time schedule against run_kernel's at 8192^3 FP8.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe; BW_LOG=1 timeout 120 python3 .whl/probe_swz.py 2>&1 | grep -v Warn | tee $OUT/probe_swz.txt
el done
