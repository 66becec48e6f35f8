#!/usr/bin/env bash
# Session 14, call 4: host time of each path (probe_host.py) on two bf16 x @ W.T kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session14/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_bf16_bf16_ak_bk_64x128x64_c1x2_pingpong_axpby,sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe; timeout 120 python3 $S/probe_host.py > $OUT/probe_host.txt 2>&1; cat $OUT/probe_host.txt | cut -c1-200
el done
