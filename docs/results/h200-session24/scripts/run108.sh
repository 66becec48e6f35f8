#!/usr/bin/env bash
# Session 24, call 3 (run108): the tail split's flags without a memset (a per-stream buffer each
# launch leaves zero; csrc/bw_ops_cuda.cpp, attach_split_flags) and the 64x64 ping-pong rule.
# Builds the FP8 e4m3 -> bf16 kernels the planner takes at small M (the tail-split ones among
# them); SASS; the GPU tests of the tile order, the swapped kernels and quant, and the planner's;
# compute-sanitizer on two tail-split kernels at problems that split; probe24.py profile (the
# memset gone?) and time at the decode and 64x64 shapes.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session24/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}*_swapab_axpby,${F}64x64x128_c1x1_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap*_axpby,${F}128x128x128_c2x1_coop_fp8overlap*_axpby,${F}128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt
el tests; timeout 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_tile_order.py tests/test_gpu_swap.py tests/test_gpu_quant.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|Error" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el sanitize; timeout 150 python3 tools/sanitize.py --out /tmp/san --kernels '16x128x128_c1x1_coop_ts_swapab_axpby|128x128x128_c1x2_coop_fp8overlap_ts_axpby' --shape 16x4000x14000 \
  --tools memcheck,racecheck,synccheck --jobs 6 --timeout 140; echo "sanitize rc $?"
cp /tmp/san/sanitize.txt $OUT/sanitize.txt; cat $OUT/sanitize.txt | tail -12
el profile; PYTHONUNBUFFERED=1 timeout 60 python3 $S/probe24.py profile 16x4096x14336 > $OUT/profile.txt 2>&1; echo "profile rc $?"; grep -v "rel err" $OUT/profile.txt | grep -E "scaled_mm|op|sw16:" | cut -c1-140
el time; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe24.py time 16x4096x14336,32x4096x14336,64x4096x14336,128x4096x14336,16x14336x4096,80x4096x4096,128x4096x4096,80x3584x8192,128x3584x8192,128x4096x8192 > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt | grep -v "op path"; grep -c FAILED $OUT/time.txt
el done
