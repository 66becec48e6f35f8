#!/usr/bin/env bash
# Session 5, call 1: FP8 mainloop variants (stagger), cuBLAS's kernel names and accuracy, tune, ncu.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x128x128
export BW_KERNELS="${P}_c2x1_coop_fp8overlap_axpby,${P}_c2x1_coop_fp8overlap_st_axpby,${P}_c1x2_coop_fastaccum_axpby,${P}_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_c2x1_coop_fp8overlap_st_fused_gelu_tanh,sm90_e4m3_f32_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C751\|spill" $OUT/build.log | cut -c1-200 | sort | uniq -c | head
el probe; timeout 90 python3 .whl/probe_fp8.py > $OUT/probe.txt 2>&1; cat $OUT/probe.txt | grep -v Warn | cut -c1-300
el tests; timeout 100 python3 -m pytest -m gpu -q -x -p no:cacheprovider tests/test_gpu_quant.py -k "fp8 or e4m3" > $OUT/pytest.log 2>&1; tail -3 $OUT/pytest.log
el tune; timeout 200 python3 benchmarks/tune.py --suite fp8 --reps 10 --out $OUT/tune_fp8 2>&1 | grep -v "Warn\|redispatch" | tail -45
el ncu
for w in scaled_mm ${P}_c2x1_coop_fp8overlap_axpby ${P}_c2x1_coop_fp8overlap_st_axpby; do
  timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section LaunchStats --launch-skip 1 --launch-count 1 python3 .whl/ncu_target.py $w > $OUT/ncu_$w.txt 2>&1
  grep -a "gemm\|device_kernel\|Duration\|SM Frequency\|Issue Slots Busy\|Stall\|Tensor\|Registers Per\|Block Size\|Grid Size\|Compute (SM) Throughput" $OUT/ncu_$w.txt | cut -c1-160 | head -30
done
el done
