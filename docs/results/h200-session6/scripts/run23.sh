#!/usr/bin/env bash
# Session 6, call 4: cycles against K (8192x8192xK) for our 128x128 FP8 kernel and cuBLAS's: the
# intercept is the per-tile cost outside the k-loop (epilogue, prologue); ncu, clocks left alone.
set -uo pipefail
export PYTHONPATH=/tmp/site
if ! python3 -c "import blackwell_ops._C" 2>/dev/null; then bash .whl/run21.sh > /dev/null 2>&1; fi
MET="gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
for p in 8 scaled_mm; do for k in 512 1024 2048 4096 8192; do
  echo "== $p K=$k"; timeout 60 ncu --clock-control none --metrics $MET -k regex:"device_kernel|nvjet" --launch-skip 1 --launch-count 1 python3 .whl/ncu_k.py $p $k 2>&1 | grep -E "gpu__time|sm__"
done; done
