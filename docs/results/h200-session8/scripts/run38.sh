#!/usr/bin/env bash
# Session 8, call 5: the plain FP8 ceiling of this kernel skeleton (probe_ceiling.py): CUTLASS's
# FastAccum 128x256 kernel beside ours and torch._scaled_mm accurate and fast.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1
export BW_KERNELS="${P}_coop_fp8overlap_axpby,${P}_coop_fastaccum_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el probe; timeout 300 python3 .whl/probe_ceiling.py 40 2>&1 | tee $OUT/probe_ceiling.txt
el done
