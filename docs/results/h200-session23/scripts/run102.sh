#!/usr/bin/env bash
# Session 23, call 1 (run102): where FP8 decode time goes. Builds (sm_90a) the kernels the planner
# takes at M <= 128 and small-M candidates (tools/generate_kernels.py, _SM90_FP8_SMALL_CANDIDATES
# and CUTLASS stream-K), then probe23.py: torch.profiler (every GPU activity per call), ncu
# (clocks left alone) and side-by-side medians, at Llama-3 8B's MLP, M = 16 / 64 / 128.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session23/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}64x128x128_c1x2_pingpong_axpby,${F}64x128x128_c1x1_pingpong_axpby,${F}64x64x128_c1x1_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c1x2_coop_sk_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el profile; PYTHONUNBUFFERED=1 timeout 150 python3 $S/probe23.py profile > $OUT/profile.txt 2>&1; echo "profile rc $?"; grep -v "rel err" $OUT/profile.txt | cut -c1-220 | head -150; grep -c FAILED $OUT/profile.txt
el ncu; M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__registers_per_thread,sm__cycles_active.avg
timeout 200 ncu --profile-from-start off --clock-control none --metrics $M --csv --log-file $OUT/ncu.csv python3 $S/probe23.py ncu > $OUT/ncu_labels.txt 2>&1; echo "ncu rc $?"; grep "ncu-label" $OUT/ncu_labels.txt | wc -l; wc -l $OUT/ncu.csv; head -5 $OUT/ncu.csv | cut -c1-300
el time; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe23.py time > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt
el done
