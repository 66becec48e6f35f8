#!/usr/bin/env bash
# Session 9, call 2: the leading tile orders of the 128x256 FP8 kernels with more rounds
# (probe_sched2.py), then their DRAM bytes against cuBLAS's (ncu, clocks left alone).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!
el probe; timeout 300 python3 .whl/probe_sched2.py 30 10 2>&1 | tee $OUT/probe_sched2.txt
kill $SMI
MET="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second"
el ncu
for shape in "8192 8192 8192" "8192 14336 4096"; do
  for o in "heuristic 1" "heuristic 8" "along_n 8" "along_m 8" "along_m 4" scaled_mm; do
    echo "== $shape $o"; timeout 60 ncu --clock-control none --metrics $MET -k regex:"device_kernel|nvjet" --launch-skip 1 --launch-count 1 python3 .whl/ncu_sched.py $shape $o 2>&1 | grep -E "dram__|lts__|gpu__time|sm__cycles"
  done
done 2>&1 | tee $OUT/ncu_sched.txt
el done
