#!/usr/bin/env bash
# Session 28, call 2 (run117): the swapped tiles with evict-first weights in the default set
# (coop_stream), and wider ones (96, 128 tokens) for M = 65-128 beside the planner's kernels
# there. Builds those and the e4m3 -> bf16 kernels the planner takes up to M = 256; the swapped
# kernels' GPU tests and the planner's; probe28.py time at M = 80-128 and again at M = 1-64.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session28/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}*_coop_stream_ts_swapab_axpby,${F}64x64x128_c1x1_pingpong_axpby,${F}128x128x128_c1x2_coop_fp8overlap*_axpby,${F}128x128x128_c2x1_coop_fp8overlap*_axpby,${F}128x256x128_c2x1_coop_fp8overlap*_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt
el tests; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_gpu_swap.py tests/test_planner.py > $OUT/pytest.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest.log | cut -c1-300; grep -E "^FAILED" $OUT/pytest.log | head -20 | cut -c1-300
el time; PYTHONUNBUFFERED=1 timeout 300 python3 $S/probe28.py time 80x4096x14336,96x4096x14336,128x4096x14336,80x14336x4096,96x14336x4096,128x14336x4096,128x4096x4096,80x3584x8192,1x4096x14336,32x4096x14336,64x4096x14336,32x14336x4096 > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt | grep -v "flush=read"; grep -c FAILED $OUT/time.txt
el done
