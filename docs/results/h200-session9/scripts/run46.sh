#!/usr/bin/env bash
# Session 9, call 6: compute-sanitizer (memcheck, racecheck, synccheck) on the FP8 kernels under the
# planner's new tile order (swizzle 8), on a problem whose tile grid is rounded up by the swizzle
# (1000x1800x256: 128x256 tiles 8x8, 128x128 tiles 8x15, both rounded to 16 rows of tiles).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el sanitize; timeout 400 python3 tools/sanitize.py --out $OUT/sanitize --shape 1000x1800x256 --tools memcheck,racecheck,synccheck --jobs 9 > $OUT/sanitize.log 2>&1; echo "rc $?"; cat $OUT/sanitize/sanitize.txt
tar czf $OUT/sanitize_logs.tgz -C $OUT sanitize/logs && rm -rf $OUT/sanitize/logs
el done
