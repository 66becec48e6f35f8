#!/usr/bin/env bash
# Session 30, call 1 (run123): every FP8 overlap kernel skips the loads of tiles wholly past M or
# N and loads a tile partly past M in 16-row slabs (csrc/gemm/sm90/tma_loads.hpp, changes 1-2).
# The default set's sm_90a FP8 kernels only (41); their SASS;
# the GPU tests of the FP8 kernels' files; probe30.py's side-by-side timings at 129-1536 rows.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session30/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="default,-sm90_f16_*,-sm90_bf16_*,-sm90_s8_*,-sm90_tf32_*,-sm90_u8_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head | cut -c1-250
el tests; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_quant.py tests/test_gpu_swap.py tests/test_gpu_tile_order.py tests/test_gpu_scale.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el time; PYTHONUNBUFFERED=1 timeout 200 python3 $S/probe30.py > $OUT/time.txt 2>&1; echo "time rc $?"; cat $OUT/time.txt | cut -c1-400
el done
