#!/usr/bin/env bash
# Session 7, call 12 (EXPERIMENT, not on main): a lean 16-bit fused kernel (sm90 bf16 ping-pong
# 128x128x64, gelu_tanh) against the full one, the plain one and torch.compile.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
P=sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong
export BW_KERNELS="${P}_axpby,${P}_fused_gelu_tanh,${P}_lean_gelu_tanh"
python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-160 $OUT/sass.txt
timeout 200 python3 .whl/probe_lean16.py 30 2>&1 | tee $OUT/probe_lean16.txt
