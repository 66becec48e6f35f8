#!/usr/bin/env bash
# Session 40, call 4 (run160): the op, _scaled_mm and two one-change variants of the op's kernel
# under four things run before every timed call (probe40.py regimes): what in the benchmarks'
# write flush puts ours behind _scaled_mm, where back-to-back bursts had them even (run159).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
G=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${G}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${G}128x256x128_c2x1_coop_fastaccum_axpby" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
el probe; timeout 400 python3 docs/results/session40/scripts/probe40.py regimes > $OUT/regimes.txt 2>&1; echo "probe rc $?"
cut -c1-400 $OUT/regimes.txt
el done
