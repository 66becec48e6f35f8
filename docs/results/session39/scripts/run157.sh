#!/usr/bin/env bash
# Session 39, call 5 (run157): ncu counters of the FP8 plain product at Llama-8B up, 8192^3 and
# Llama-8B down, ours (the 128x256 scale kernel, the planner's pick there) against
# torch._scaled_mm, and of e5m2 x e4m3 at 8192^3; one launch each after the write flush, clocks
# left alone (cycle counts compare; the clock is reported) (probe39.py ncu). Then the op and
# _scaled_mm at 8192^3 with a in e4m3 and in e5m2, side by side (probe39.py time), and both at
# 8192 x {14336, 8192} x K for K = 1024-8192 (probe39.py ksweep). Not run in session 39 (no
# machine came after run156).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; build_kernels "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64,sm90_e5m2xe4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
MET="gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic"
el ncu; timeout 300 ncu --profile-from-start off --clock-control none --cache-control none --metrics $MET python3 docs/results/session39/scripts/probe39.py ncu > $OUT/ncu_base.txt 2>&1; echo "ncu rc $?"
grep -E "ncu-label|checks|void|nvjet|gpu__|sm__|smsp__|dram__|lts__|launch__|ERR|rror" $OUT/ncu_base.txt | sed -E 's/^(  void device_kernel<.{0,60}).*\((Params|[0-9]).*/\1 .../' | cut -c1-200 | head -150
el "time mixed"; timeout 90 python3 docs/results/session39/scripts/probe39.py time > $OUT/time_mixed.txt 2>&1; echo "time rc $?"; cat $OUT/time_mixed.txt | cut -c1-300
el ksweep; timeout 150 python3 docs/results/session39/scripts/probe39.py ksweep > $OUT/ksweep.txt 2>&1; echo "ksweep rc $?"; cat $OUT/ksweep.txt | cut -c1-300
el done
