#!/usr/bin/env bash
# Session 36, call 2 (run141): where the 129-256-row FP8 call's time goes. run140 had our best
# kernels there 2-4 us behind _scaled_mm at N = K = 4096 with the same slope in K (probe36
# ksweep): ncu (one launch each after the write flush, L2 and clocks left alone) of _scaled_mm,
# the 2x1 stream kernel and the 64x128 ping-pong at 256 and 129 x 4096 x 4096.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
P=sm90_e4m3_bf16_ak_bk_
el build; build_kernels "${P}128x128x128_c2x1_coop_fp8overlap_stream_axpby,${P}64x128x128_c1x1_pingpong_axpby" || exit 1
el ncu; timeout 200 ncu --profile-from-start off --cache-control none --clock-control none --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats python3 docs/results/session36/scripts/probe36.py ncu > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "ncu-label|^  [a-z_]+.*\(|Duration|Grid Size|Cluster Size|Block Size|Registers Per|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Hit|Mem Busy|Warp Cycles Per Issued|No Eligible|Issued Warp|SM Frequency|Shared Memory Configuration Size" $OUT/ncu.txt | cut -c1-160 | head -150
el done
