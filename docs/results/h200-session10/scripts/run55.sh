#!/usr/bin/env bash
# Session 10, call 7: benchmarks/tune.py on a GPU since its --warmup became required in
# tune_case/tune_fused_case (session 9, dafa7a9; run then on the CPU only): the fp8 suite over the
# sm90 ci kernels (e4m3 -> bf16 128x128 overlap, 128x256 lean gelu_tanh), few reps (a smoke run,
# not a measurement).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=ci
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tune; timeout 150 python3 benchmarks/tune.py --suite fp8 --reps 10 --schedules dp,dp_sw8 --out $OUT/tune_smoke > $OUT/tune_smoke.log 2>&1; echo "rc $?"; tail -25 $OUT/tune_smoke.log
el done
