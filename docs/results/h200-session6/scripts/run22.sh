#!/usr/bin/env bash
# Session 6, call 3: DRAM bytes and cycles of our 128x128 FP8 kernel at 8192^3 for each tile order
# (raster x swizzle), against cuBLAS's; ncu with clocks left alone.
set -uo pipefail
export PYTHONPATH=/tmp/site
if ! python3 -c "import blackwell_ops._C" 2>/dev/null; then bash .whl/run21.sh > /dev/null 2>&1; fi
MET="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second"
for r in heuristic along_m along_n; do for s in 1 2 4 8; do
  echo "== raster $r swizzle $s"; timeout 60 ncu --clock-control none --metrics $MET -k regex:device_kernel --launch-skip 1 --launch-count 1 python3 .whl/ncu_swz.py $r $s 2>&1 | grep -E "dram__|lts__|gpu__time|sm__cycles"
done; done
echo "== cublas"; timeout 60 ncu --clock-control none --metrics $MET -k regex:nvjet --launch-skip 1 --launch-count 1 python3 .whl/ncu_target.py scaled_mm 2>&1 | grep -E "dram__|lts__|gpu__time|sm__cycles"
