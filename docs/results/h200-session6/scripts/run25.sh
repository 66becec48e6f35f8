#!/usr/bin/env bash
# Session 6, call 6: the host changes (one Activation enum, run_kernel_fused) on the H200: sm100
# fused dry runs, run_kernel_fused vs the op, the FP8/planner GPU tests; then the fp8 benchmark
# suite with the final planner (plain FP8 on 128x128, fused on 128x256 from a wave).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
Q=sm100_bf16_bf16_ak_bk_256x128x64_cdyn4x1_2sm
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,sm90_e5m2xe4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_bf16_bf16_ak_bk_128x128x64_c1x2_pingpong_fused_gelu_tanh,${Q}_axpby,${Q}_fused_gelu_tanh,sm100_e4m3_bf16_ak_bk_256x128x128_cdyn4x1_2sm_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 -c "from blackwell_ops import _C; print(len(_C.compiled_kernels()), 'kernels')"
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_sm100_host.py tests/test_gpu_fused.py tests/test_gpu_quant.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; tail -4 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 150 python3 benchmarks/bench_gemm.py --suite fp8 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; tail -16 $OUT/fp8_bench.log
kill $SMI
el done
cd $OUT && tar czf fp8.tgz fp8 && rm -rf fp8; ls
