#!/usr/bin/env bash
# Session 24, call 1 (run106): FP8 small-M candidates with the cluster along the weights (tokens
# multicast; tools/generate_kernels.py _SM90_FP8_MULTICAST_CANDIDATES) beside the planner's
# kernels: SASS, the GPU tests that run every compiled kernel, probe24.py time (Llama-3 8B MLP,
# M = 16-256), then ncu (clocks left alone) at the down shape, M = 16 / 64 / 128.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session24/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}*_swapab_axpby,${F}64x64x128_*_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap_axpby,${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_axpby,${F}128x128x128_c2x1_coop_fp8overlap_ts_axpby,${F}128x256x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt | tail -20
el probe; PYTHONUNBUFFERED=1 timeout 240 python3 $S/probe24.py time > $OUT/time.txt 2>&1; echo "probe rc $?"; grep -v "rel err" $OUT/time.txt; grep -c FAILED $OUT/time.txt
el ncu; M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,launch__grid_size,sm__cycles_active.avg
timeout 150 ncu --profile-from-start off --clock-control none --metrics $M --csv --log-file $OUT/ncu.csv python3 $S/probe24.py ncu 16x4096x14336,64x4096x14336,128x4096x14336 > $OUT/ncu_labels.txt 2>&1; echo "ncu rc $?"; grep -c "ncu-label" $OUT/ncu_labels.txt; wc -l $OUT/ncu.csv
el tests; timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_swap.py tests/test_gpu_tile_order.py tests/test_gpu_quant.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|Error" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el done
