#!/usr/bin/env bash
# Session 17, call 5 (run89): the ci kernel set (which now holds the tail-split FP8 scale kernel)
# plus the default FP8 e4m3 -> bf16 wide kernels: the GPU tests of the planner, quant, scale, tile
# order and kernel files, SASS, then the op itself (torch.ops.bw.gemm_axpby as a user calls it)
# against torch._scaled_mm where the planner takes the tail-split kernel and where it does not.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session17/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="ci"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py tests/test_gpu_scale.py tests/test_gpu_quant.py tests/test_planner.py tests/test_gpu.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10 | cut -c1-300
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; cut -c1-200 $OUT/sass.txt
el op; PYTHONUNBUFFERED=1 timeout 150 python3 $S/probe17d.py ${ROUNDS:-8} > $OUT/probe17d.txt 2>&1; grep -v "rel err" $OUT/probe17d.txt; grep -c FAILED $OUT/probe17d.txt
el done
