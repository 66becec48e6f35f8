#!/usr/bin/env bash
# Session 7, call 7: lean fused FP8 kernels (Epilogue::FusedLean: no X/Y nodes) beside the full ones:
# SASS, GPU tests (quant incl. lean vs full bit for bit, fused, planner), compute-sanitizer on the
# lean kernels, the lean probe, the fp8 suite with the planner taking lean kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
X=sm90_e5m2xe4m3_bf16_ak_bk
K=""
for t in 128x128x128 128x256x128; do K="$K,${P}_${t}_c2x1_coop_fp8overlap_axpby,${P}_${t}_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_${t}_c2x1_coop_fp8overlap_lean_gelu_tanh,${X}_${t}_c2x1_coop_fp8overlap_axpby"; done
export BW_KERNELS="${K#,},${P}_128x256x128_c2x1_coop_fp8overlap_fused_silu,${P}_128x256x128_c2x1_coop_fp8overlap_lean_silu"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C75\|spill" $OUT/build.log | cut -c1-150 | sort | uniq -c | head
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cut -c1-200 $OUT/sass.txt
el tests; timeout 200 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_gpu_fused.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el sanitize; timeout 150 python3 tools/sanitize.py --out $OUT/sanitize --kernels lean --shape 200x136x1488 --jobs 6 > $OUT/sanitize.log 2>&1; tail -8 $OUT/sanitize.log
el probe; timeout 120 python3 .whl/probe_lean2.py 30 2>&1 | tee $OUT/probe_lean2.txt
el bench
timeout 150 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -14 $OUT/fp8_bench.log
el done
cd $OUT && tar czf fp8.tgz fp8 && rm -rf fp8
