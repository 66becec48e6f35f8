#!/usr/bin/env bash
# Session 6, call 2: ncu (clocks left alone) on our 128x128 FP8 overlap kernel and cuBLAS's
# (torch._scaled_mm) at 8192^3: speed of light, memory, warp states, scheduler, instruction mix.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
SECS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats"
el ncu-ours; timeout 200 ncu --clock-control none $SECS -k regex:device_kernel --launch-skip 1 --launch-count 1 python3 .whl/ncu_target.py ${P}_128x128x128_c2x1_coop_fp8overlap_axpby > $OUT/ncu_ours.txt 2>&1; tail -5 $OUT/ncu_ours.txt
el ncu-cublas; timeout 200 ncu --clock-control none $SECS -k regex:nvjet --launch-skip 1 --launch-count 1 python3 .whl/ncu_target.py scaled_mm > $OUT/ncu_cublas.txt 2>&1; tail -5 $OUT/ncu_cublas.txt
el done
