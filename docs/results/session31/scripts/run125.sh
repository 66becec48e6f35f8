#!/usr/bin/env bash
# Session 31, call 1 (run125): session 30's planner rule (sm90_fp8_order) and its changed GPU
# tests on the device for the first time. The default set's sm_90a FP8 kernels only (41; their
# code is run123's); every GPU test of the FP8 kernels' files, the changed ones first; probe30.py
# in op mode (the planner's kernel against _scaled_mm at 129-1536 rows); then the fp8 suite of
# benchmarks/bench_gemm.py (issue #9's 8192^3 rows) on the new loads, in what time is left.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="default,-sm90_f16_*,-sm90_bf16_*,-sm90_s8_*,-sm90_tf32_*,-sm90_u8_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
el changed-tests; timeout 60 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py -k "takes_the_tail_split_kernel or splits_deep_tiles or streams_the_weights" > $OUT/pytest_changed.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_changed.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_changed.log | head -10 | cut -c1-300
el tests; timeout 150 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_quant.py tests/test_gpu_swap.py tests/test_gpu_tile_order.py tests/test_gpu_scale.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el probe-op; PYTHONUNBUFFERED=1 timeout 90 python3 docs/results/h200-session30/scripts/probe30.py op > $OUT/probe30_op.txt 2>&1; echo "probe rc $?"; cut -c1-200 $OUT/probe30_op.txt
el cublas; timeout 40 python3 docs/results/session31/scripts/cublas_kernels.py > $OUT/cublas_kernels.txt 2>&1; echo "cublas rc $?"; cut -c1-250 $OUT/cublas_kernels.txt
LEFT=$(( 585 - ($(date +%s) - T0) ))
el "fp8 suite ($LEFT s left)"; timeout $LEFT python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; tail -14 $OUT/fp8_bench.log | cut -c1-170
el done
