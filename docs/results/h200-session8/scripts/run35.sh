#!/usr/bin/env bash
# Session 8, call 1: cluster shapes 2x2 / 4x1 against 2x1 on the 128x256 FP8 overlap kernels
# (plain and fused gelu_tanh): SASS, the FP8 kernel-vs-reference tests on them, the probe.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128
K=""
for c in 2x1 2x2 4x1; do K="$K,${P}_c${c}_coop_fp8overlap_axpby,${P}_c${c}_coop_fp8overlap_fused_gelu_tanh"; done
export BW_KERNELS="${K#,},${P}_c2x1_coop_fp8overlap_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el tests; timeout 120 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py -k "kernel_vs_reference" > $OUT/pytest_gpu.log 2>&1; tail -2 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el probe; timeout 240 python3 .whl/probe_cluster.py 40 2>&1 | tee $OUT/probe_cluster.txt
el done
