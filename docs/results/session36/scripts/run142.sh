#!/usr/bin/env bash
# Session 36, call 3 (run142): the 64-row FP8 candidates of tools/generate_kernels.py
# (_SM90_FP8_PP64: the 64x128 ping-pong with a 2x1 cluster, and the overlap mainloop on the
# ping-pong kernel at 64x128 2x1 / 1x1 and 64x256 2x1), with run140's 2x1 stream kernel, its
# tail-split twin, the plain 2x1 kernel and the 64x128 ping-pong without a cluster beside them:
# their output tests (test_gpu_quant.py on every compiled kernel), then probe36.py's rows and
# K sweep.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
P=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${P}64x*_c2x1_pingpong*,${P}64x128x128_c1x1_pingpong*,${P}128x128x128_c2x1_coop_fp8overlap_stream*,${P}128x128x128_c2x1_coop_fp8overlap_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
el tests; timeout 90 python3 -m pytest -q -rfEs -p no:cacheprovider -m gpu tests/test_gpu_quant.py > $OUT/pytest_quant.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_quant.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_quant.log | head -12 | cut -c1-250
el probe36; timeout 90 python3 docs/results/session36/scripts/probe36.py > $OUT/probe36_rows.txt 2>&1; echo "probe36 rc $?"; cut -c1-420 $OUT/probe36_rows.txt
timeout 50 python3 docs/results/session36/scripts/probe36.py ksweep > $OUT/probe36_ksweep.txt 2>&1; echo "ksweep rc $?"; cut -c1-420 $OUT/probe36_ksweep.txt
el done
