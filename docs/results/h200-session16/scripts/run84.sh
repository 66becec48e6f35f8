#!/usr/bin/env bash
# Session 16, call 6 (run84): the FP8 scale kernel with its cluster along N beside the shipped one (along M).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session16/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
B=sm90_bf16_bf16_ak_bk_128x256x64_c2x1_coop
H=sm90_f16_f16_ak_bk_128x256x64_c2x1_coop
export BW_KERNELS="${P/c2x1/c1x2}_scale_e128x64,${P}_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 100 python3 -m pytest -q -rs -p no:cacheprovider tests/test_gpu_scale.py tests/test_gpu_tile_order.py -k "scale" > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt
el probe; PYTHONUNBUFFERED=1 timeout 150 python3 $S/probe16d.py ${ROUNDS:-10} > $OUT/probe16d.txt 2>&1; grep -v "rel err" $OUT/probe16d.txt; grep -c FAILED $OUT/probe16d.txt
el done
