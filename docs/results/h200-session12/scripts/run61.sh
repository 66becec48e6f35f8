#!/usr/bin/env bash
# Session 12, call 3: main's build inputs (unchanged since session 10's build inputs; the RS
# experiment reverted) with the default set's sm90 FP8 kernels the fp8 suite takes (as session
# 10's run53.sh): SASS, the quant/planner/compile GPU tests, then the fp8 suite with the GPU's
# power, clocks and throttle reasons logged each second.
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
el sass; timeout 120 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt | tail -10
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_planner.py tests/test_compile.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
nvidia-smi --query-gpu=timestamp,power.draw,power.limit,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>/dev/null &
el bench; timeout 200 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -13 $OUT/fp8_bench.log
kill %1 2>/dev/null
el done
