#!/usr/bin/env bash
# Session 12, call 4: energy per FP8 product (probe_energy.py) with the power, clocks and
# throttle reasons logged each second.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_
export BW_KERNELS="${P}fp8overlap_axpby,${P}fastaccum_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
nvidia-smi --query-gpu=timestamp,power.draw,power.limit,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>/dev/null &
el probe; timeout 300 python3 docs/results/h200-session12/scripts/probe_energy.py ${ROUNDS:-5} > $OUT/probe_energy.txt 2>&1; cat $OUT/probe_energy.txt | tail -14
kill %1 2>/dev/null
el done
