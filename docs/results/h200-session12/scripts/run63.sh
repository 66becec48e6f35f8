#!/usr/bin/env bash
# Session 12, call 5: the 128x64 epilogue subtile on the 128x256 FP8 kernels (probe_epi.py).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_
export BW_KERNELS="${P}fp8overlap_axpby,${P}fp8overlap_lean_gelu_tanh,${P}fastaccum_axpby,${P}fp8overlap_xx*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "spill\|C75" $OUT/build.log | sort | uniq -c | head -20
el probe; timeout 300 python3 docs/results/h200-session12/scripts/probe_epi.py ${ROUNDS:-30} > $OUT/probe_epi.txt 2>&1; grep -v "rel err" $OUT/probe_epi.txt | tail -12; grep -c FAILED $OUT/probe_epi.txt
el done
