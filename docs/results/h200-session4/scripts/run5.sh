#!/usr/bin/env bash
# Exploration: the sm90 FP8 candidates (tools/generate_kernels.py _SM90_FP8_CANDIDATES), tuned.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_*_axpby,sm90_e4m3_bf16_*_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el built; grep -a -c "spill" $OUT/build.log
python3 -c "from blackwell_ops import _C; print(len(_C.compiled_kernels()), 'kernels')"
timeout 420 python3 benchmarks/tune.py --suite fp8 --out $OUT/tune_fp8 2>&1 | tail -80
el done
