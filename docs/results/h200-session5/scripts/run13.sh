#!/usr/bin/env bash
# Session 5, call 2: the sm90 quant kernels of the default set at 311af67 (FP8 swizzle rule, the
# k-loop as member functions): SASS, GPU tests, compute-sanitizer on the FP8 mainloop, the quant
# benchmark (interleaved) with clocks.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_*_c2x1_coop_fp8overlap_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C751\|spill" $OUT/build.log | cut -c1-160 | sort | uniq -c | head -5
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -3 $OUT/sass.txt
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_planner.py tests/test_gpu_reliability.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log
el sanitize; timeout 100 python3 tools/sanitize.py --out $OUT/sanitize --kernels 'sm90_e4m3_bf16_.*fp8overlap_(axpby|fused_gelu_tanh)' --tools memcheck,racecheck,synccheck --shape 200x136x1488 > $OUT/sanitize.log 2>&1; tail -8 $OUT/sanitize.log
el quantbench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 280 python3 benchmarks/bench_gemm.py --suite quant --out $OUT/quant > $OUT/quant_bench.log 2>&1; tail -24 $OUT/quant_bench.log
kill $SMI
el done
cd $OUT && tar czf results.tgz quant sanitize 2>/dev/null; rm -rf quant sanitize; ls
