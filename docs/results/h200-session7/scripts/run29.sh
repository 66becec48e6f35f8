#!/usr/bin/env bash
# Session 7, call 3: the planner with plain FP8 on 128x256 from a wave (default-set FP8 kernels for bf16
# output) plus an experimental 128x192 plain kernel: GPU tests, SASS, tile probe, the fp8 suite.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
X=sm90_e5m2xe4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x192x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${X}_128x128x128_c2x1_coop_fp8overlap_axpby,${X}_128x256x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C75\|spill" $OUT/build.log | cut -c1-150 | sort | uniq -c | head
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el tests; timeout 170 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_gpu_fused.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el probe; timeout 150 python3 .whl/probe_tiles4.py 40 | tee $OUT/probe_tiles4.txt
el bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 200 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -14 $OUT/fp8_bench.log
kill $SMI
el done
cd $OUT && tar czf fp8.tgz fp8 && rm -rf fp8
