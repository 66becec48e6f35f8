#!/usr/bin/env bash
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=32
export BW_KERNELS="sm90_bf16_bf16_*_128x128x64_c1x2_pingpong_*,sm90_e4m3_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el built
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu_reliability.py -k "fresh_thread or two_threads" > $OUT/pytest_thread.log 2>&1; tail -2 $OUT/pytest_thread.log
el example; timeout 60 torchrun --nproc-per-node 2 examples/tp_mlp.py --device cuda --dtype bfloat16 --tokens 128 --activation gelu_tanh > $OUT/tp_mlp_cuda_bf16.log 2>&1; grep -v "^W1130\|^\*\*" $OUT/tp_mlp_cuda_bf16.log | tail -12
el autograd; timeout 70 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_autograd.py tests/test_fused_autograd.py tests/test_gpu_quant.py > $OUT/pytest_autograd.log 2>&1; tail -2 $OUT/pytest_autograd.log
el done
