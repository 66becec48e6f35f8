#!/usr/bin/env bash
# Session 27, call 3 (run115): the default sm_90a build again, probe27.py (is run113's 14 us eager
# gap of the pinned tail-split kernel the pin, a destroyed graph, or noise?), twice.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
for i in 1 2; do el "probe27 #$i"; timeout 90 python3 docs/results/h200-session27/scripts/probe27.py > $OUT/probe27_$i.txt 2>&1; echo "rc $?"; grep -v -i warn $OUT/probe27_$i.txt | cut -c1-300; done
el done
