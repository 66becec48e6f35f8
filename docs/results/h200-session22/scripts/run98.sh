#!/usr/bin/env bash
# Session 22, call 1 (run98): FP8 / INT8 at small M. Builds the default kernels the planner takes
# for these calls and the small-M candidates (sm_90a only), runs the planner/quant tests that
# touch them, SASS, then probe22.py.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session22/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_; I=sm90_s8_s32_ak_bk_
export BW_KERNELS="${F}128x128x128_c2x1_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${F}128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64,${F}128x256x128_c2x1_coop_fp8overlap_axpby,${F}64x128x128_c1x2_pingpong_axpby,${F}128x128x128_c1x2_pingpong_axpby,${F}128x128x128_c1x2_coop_axpby,${F}128x128x128_c1x2_coop_sk_axpby,${I}128x256x128_c2x1_coop_axpby,${I}64x128x128_c1x2_pingpong_axpby,${I}128x128x128_c1x2_pingpong_axpby,${I}128x128x128_c1x2_coop_sk_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -i "spill\|stack frame" $OUT/build.log | sort | uniq -c | head -20
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-160 $OUT/sass.txt
el probe; PYTHONUNBUFFERED=1 timeout 420 python3 $S/probe22.py ${ROUNDS:-5} > $OUT/probe22.txt 2>&1; echo "probe rc $?"; grep -v "rel err\|exact True" $OUT/probe22.txt; grep -c FAILED $OUT/probe22.txt
el done
