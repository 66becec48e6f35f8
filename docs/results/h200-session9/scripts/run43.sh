#!/usr/bin/env bash
# Session 9, call 3: provider-order bias in interleaved bursts (probe_bias.py), control pairs.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe; timeout 400 python3 .whl/probe_bias.py 2>&1 | tee $OUT/probe_bias.txt
el done
