#!/usr/bin/env bash
# Session 12, call 1: build the RS experiment kernels (probe_rs.py) and time them side by side.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session12/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_
export BW_KERNELS="${P}fp8overlap_axpby,${P}fp8overlap_lean_gelu_tanh,${P}fastaccum_axpby,${P}fp8overlap_xx*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "spill\|C75" $OUT/build.log | sort | uniq -c | head -20
el sass; timeout 150 python3 -m blackwell_ops.info --sass > $OUT/sass.txt 2>&1; tail -12 $OUT/sass.txt
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>&1 &
SMI=$!
el probe; timeout 330 python3 $S/probe_rs.py ${ROUNDS:-8} > $OUT/probe_rs.txt 2>&1; grep -v "rel err\|plan " $OUT/probe_rs.txt | tail -12; grep -c FAILED $OUT/probe_rs.txt
kill $SMI
el done
