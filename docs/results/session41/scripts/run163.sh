#!/usr/bin/env bash
# Session 41, call 4 (run163): probe41.py chain (blocks of 20 with or without an idle gap, events per call or per block)
# on the kernels run160 built: the op (128x256 scale kernel), _scaled_mm, CUTLASS's FastAccum.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
G=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${G}128x256x128_c2x1_coop_fp8overlap_scale_e128x64,${G}128x256x128_c2x1_coop_fastaccum_axpby" || exit 1
nvidia-smi --query-gpu=name,serial,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
el probe; timeout 400 python3 docs/results/session41/scripts/probe41.py chain > $OUT/chain.txt 2>&1; echo "probe rc $?"
cut -c1-300 $OUT/chain.txt
el done
