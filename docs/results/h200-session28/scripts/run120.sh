#!/usr/bin/env bash
# Session 28, call 5 (run120), an experiment (experiments.patch beside these scripts, not on
# main): the FP8 overlap 128x128 kernel in 2x1 clusters with CUTLASS's B (the call's weights)
# loaded evict-first, beside the same kernel as it is, at M = 192-512 (one or two cluster rows).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session28/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap*_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el time; PYTHONUNBUFFERED=1 timeout 60 python3 $S/probe28.py time 256x14336x4096,256x4096x14336,192x14336x4096,512x14336x4096 > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt; grep -c FAILED $OUT/time.txt
el done
