#!/usr/bin/env bash
# Session 7, call 1: chained groups in the sm90 FP8 overlap mainloop (each group hands its last
# batch's promotion to the next). GPU tests (quant, fused, planner), SASS, ncu cycles at 8192^3
# against cuBLAS (session 6: 1.194 M vs 1.107 M), the fp8 suite.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,sm90_e5m2xe4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C75\|spill" $OUT/build.log | cut -c1-150 | sort | uniq -c | head
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cat $OUT/sass.txt | cut -c1-220
el tests; timeout 170 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_gpu_fused.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; tail -4 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el ncu
MET="gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second"
for p in 8 1 scaled_mm; do
  echo "== $p K=8192"; timeout 60 ncu --clock-control none --metrics $MET -k regex:"device_kernel|nvjet" --launch-skip 1 --launch-count 1 python3 .whl/ncu_k.py $p 8192 2>&1 | grep -E "gpu__time|sm__"
done | tee $OUT/ncu_k.txt
el bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 200 python3 benchmarks/bench_gemm.py --suite fp8 --reps 120 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -16 $OUT/fp8_bench.log
kill $SMI
el done
