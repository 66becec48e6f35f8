#!/usr/bin/env bash
# Session 40, call 3 (run159): run158's probe again on the warm machine (run158's build and
# editable install kept), after fixing probe40.py's read of _C.compiled_kernels().
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
el probe; timeout 400 python3 docs/results/session40/scripts/probe40.py > $OUT/probe40.txt 2>&1; echo "probe rc $?"
cut -c1-400 $OUT/probe40.txt
el done
