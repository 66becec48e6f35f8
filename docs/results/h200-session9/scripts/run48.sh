#!/usr/bin/env bash
# Session 9, call 8: the final planner (swizzle by sm90_swizzle) on the INT8 and TF32 kernels:
# their GPU tests, then the quant suite's INT8 and TF32 cases against cuBLAS peers (no compile
# peers: device time).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby,sm90_s8_bf16_ak_bk_128x256x128_c2x1_coop_axpby,sm90_tf32_f32_ak_bk_128x256x32_c2x1_coop_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu_quant.py > $OUT/pytest_gpu.log 2>&1; tail -1 $OUT/pytest_gpu.log
el int8; timeout 60 python3 benchmarks/bench_gemm.py --suite quant --filter int8 --peers int_mm --reps 60 --out $OUT/int8 > $OUT/int8.log 2>&1; tail -9 $OUT/int8.log
el tf32; timeout 60 python3 benchmarks/bench_gemm.py --suite quant --filter tf32 --peers addmm,mm+epi --reps 60 --out $OUT/tf32 > $OUT/tf32.log 2>&1; tail -7 $OUT/tf32.log
tar czf $OUT/results.tgz -C $OUT int8 tf32 && rm -rf $OUT/int8 $OUT/tf32
el done
