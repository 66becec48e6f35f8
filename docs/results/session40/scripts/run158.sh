#!/usr/bin/env bash
# Session 40, call 2 (run158): energy per call of the FP8 plain product, ours and its one-change
# variants against torch._scaled_mm, at 8192^3 and Llama-8B up (probe40.py), on the kernels it
# names plus the op's own.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
G=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${G}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${G}128x256x128_c2x1_coop_fp8overlap_axpby,${G}128x256x128_c2x1_coop_fastaccum_axpby,${G}128x128x128_c2x1_coop_fp8overlap_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
el probe; timeout 400 python3 docs/results/session40/scripts/probe40.py > $OUT/probe40.txt 2>&1; echo "probe rc $?"
cut -c1-400 $OUT/probe40.txt
el done
