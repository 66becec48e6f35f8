#!/usr/bin/env bash
# Exploration 2: sm90 FP8 overlapped promotion vs CUTLASS's mainloops; correctness then tuning.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x128x128_*_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_*_fused_gelu_tanh,sm90_e4m3_bf16_ak_bk_128x256x128_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el built; grep -a "C7514\|spill stores" $OUT/build.log | grep -v " 0 bytes spill" | head -5
python3 -c "from blackwell_ops import _C; print(len(_C.compiled_kernels()), 'kernels')"
timeout 150 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu_quant.py > $OUT/pytest_quant.log 2>&1; tail -4 $OUT/pytest_quant.log
el tune; timeout 300 python3 benchmarks/tune.py --suite fp8 --out $OUT/tune_fp8 2>&1 | grep -v Warn | tail -90
el done
