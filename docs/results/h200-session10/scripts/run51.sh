#!/usr/bin/env bash
# Session 10, call 3: the final build inputs (sm_count_of and epilogue_mismatch, no kernel change)
# with the default set's sm90 FP8 kernels that the fp8 suite takes: SASS, the quant, planner and
# compile GPU tests, then the fp8 suite once under the final planner (sm90_swizzle).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
X=sm90_e5m2xe4m3_bf16_ak_bk
K=""
for t in 128x128x128 128x256x128; do K="$K,${P}_${t}_c2x1_coop_fp8overlap_axpby,${P}_${t}_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_${t}_c2x1_coop_fp8overlap_lean_gelu_tanh,${X}_${t}_c2x1_coop_fp8overlap_axpby"; done
export BW_KERNELS="${K#,}"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_planner.py tests/test_compile.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el bench1; timeout 200 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -13 $OUT/fp8_bench.log
el tar; tar czf $OUT/fp8_results.tgz -C $OUT fp8 && rm -rf $OUT/fp8
el done
