#!/usr/bin/env bash
# Session 7, call 6: EXPERIMENT: the FP8 fused epilogue without its X/Y nodes (4 mainloop stages on
# 128x256 instead of 3), built as the gelu_erf kernels; SASS and a side-by-side probe.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_erf,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_erf"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el probe; timeout 200 python3 .whl/probe_lean.py 40 2>&1 | tee $OUT/probe_lean.txt
el done
