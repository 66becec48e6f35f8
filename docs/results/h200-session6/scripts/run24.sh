#!/usr/bin/env bash
# Session 6, call 5: stream-K for the 128x128 FP8 overlap kernel (probe_sk.py).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_sk_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -3 $OUT/sass.txt
el probe; timeout 200 python3 .whl/probe_sk.py 30 2>&1 | tee $OUT/probe_sk.txt
el done
