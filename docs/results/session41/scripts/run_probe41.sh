#!/usr/bin/env bash
# Session 41: `run_probe41.sh blocks` (run161) and `run_probe41.sh chain` (run163), probe41.py's two
# modes, on the kernels run160 built: the op (128x256 scale kernel), _scaled_mm, CUTLASS's
# FastAccum. (run161's nvidia-smi line did not yet ask for the serial.)
set -uo pipefail
MODE=${1:?blocks or chain}
. "$(dirname "$0")/../../session32/scripts/common.sh"
G=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${G}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${G}128x256x128_c2x1_coop_fastaccum_axpby" || exit 1
nvidia-smi --query-gpu=name,serial,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
el probe; timeout 400 python3 docs/results/session41/scripts/probe41.py "$MODE" > "$OUT/$MODE.txt" 2>&1; echo "probe rc $?"
cut -c1-300 "$OUT/$MODE.txt"
el done
