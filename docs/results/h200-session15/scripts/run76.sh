#!/usr/bin/env bash
# Session 15, call 2: the scale epilogue (no C) beside the axpby kernels of the same tiles: build 8
# kernels, their GPU tests and SASS, probe_scale.py (side by side with _scaled_mm / torch.mm), then
# ncu counters at 8192^3 FP8.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session15/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
Q=sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap
B=sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop
export BW_KERNELS="${P}_axpby,${P}_scale,${P}_scale_e128x64,${Q}_axpby,${Q}_scale,${B}_axpby,${B}_scale,${B}_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 120 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_scale.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt
el probe; PYTHONUNBUFFERED=1 timeout 260 python3 $S/probe_scale.py ${ROUNDS:-8} > $OUT/probe_scale.txt 2>&1; grep -v "rel err" $OUT/probe_scale.txt; grep -c FAILED $OUT/probe_scale.txt
MET="gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,dram__bytes_read.sum,launch__shared_mem_per_block_dynamic"
for w in axpby scale scale_e128x64 scaled_mm; do
  [ $(( $(date +%s) - T0 )) -gt 560 ] && break
  el "ncu $w"; echo "== $w" >> $OUT/ncu.txt
  timeout 30 ncu --clock-control none --metrics $MET -k regex:"device_kernel|nvjet" --launch-skip 1 --launch-count 1 python3 $S/ncu_scale.py $w >> $OUT/ncu.txt 2>&1
done
grep -E "==|gpu__|sm__|smsp__|dram__|launch__" $OUT/ncu.txt
el done
