#!/usr/bin/env bash
# Session 13, call 2: the band tile order (csrc/gemm/sm90/tile_scheduler.hpp). A few sm90 kernels
# of each family: SASS, the new tile-order GPU test and the kernel/quant/planner GPU tests, then
# probe_band.py.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session13/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_lean_gelu_tanh,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop_axpby,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_axpby,sm90_bf16_bf16_ak_bmn_64x128x64_c1x2_pingpong_axpby,sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby,sm90_tf32_f32_ak_bk_128x256x32_c2x1_coop_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; grep -c "^  ok" $OUT/sass.txt; grep -v "^  ok" $OUT/sass.txt | tail -3 | cut -c1-200
el tests; timeout 200 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_tile_order.py tests/test_gpu.py tests/test_gpu_quant.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -4 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el probe; PYTHONUNBUFFERED=1 timeout 280 python3 $S/probe_band.py ${ROUNDS:-8} > $OUT/probe_band.txt 2>&1; grep -v "rel err" $OUT/probe_band.txt; grep -c FAILED $OUT/probe_band.txt
el done
