#!/usr/bin/env bash
# Session 11, call 2: FastAccum on 128x144 (probe_144b.py) beside 128x256 and _scaled_mm.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fastaccum_axpby,sm90_e4m3_bf16_ak_bk_128x144x128_c2x1_coop_fastaccum_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "spill\|C75" $OUT/build.log | sort | uniq -c | head -20
el sass; timeout 120 python3 -m blackwell_ops.info --sass > $OUT/sass.txt 2>&1; tail -12 $OUT/sass.txt
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>&1 &
SMI=$!
el probe; timeout 400 python3 .whl/probe_144b.py 8 > $OUT/probe_144b.txt 2>&1; grep -v "rel err\|plan " $OUT/probe_144b.txt | tail -12; grep -c FAILED $OUT/probe_144b.txt
kill $SMI
el done
