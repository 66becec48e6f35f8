#!/usr/bin/env bash
# Session 13, call 1: the wave tail. probe_wave.py (persistent vs stream-K kernels vs _scaled_mm at
# 8192^3 and at exact-16-wave shapes), then ncu counters of each at 8192^3.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session13/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_sk_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el probe; PYTHONUNBUFFERED=1 timeout 240 python3 $S/probe_wave.py ${ROUNDS:-10} > $OUT/probe_wave.txt 2>&1; cat $OUT/probe_wave.txt | grep -v "rel err"; grep -c FAILED $OUT/probe_wave.txt
ncu --query-metrics 2>/dev/null | grep -i "gmma\|tensor_op" | head -20 > $OUT/ncu_query.txt
MET="gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic"
for w in pers sk_dp sk_sk scaled_mm; do
  el "ncu $w"; echo "== $w" >> $OUT/ncu.txt
  timeout 90 ncu --clock-control none --metrics $MET -k regex:"device_kernel|nvjet" --launch-skip 1 --launch-count 1 python3 $S/ncu_one.py $w >> $OUT/ncu.txt 2>&1
done
grep -E "==|gpu__|sm__|smsp__|dram__|lts__|launch__" $OUT/ncu.txt
el done
