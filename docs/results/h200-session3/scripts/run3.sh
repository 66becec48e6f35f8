#!/usr/bin/env bash
# One time-boxed device call (2 x H200): build a reduced sm90 set (quant + bf16 128x128 family),
# SASS, GPU tests of issue #9 and the changed epilogue, the quant benchmark, the 2-GPU run (#8).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=32
export BW_KERNELS="sm90_bf16_bf16_*_128x128x64_c1x2_pingpong_*,sm90_e4m3_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*"
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > $OUT/gpu.txt
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el "built"; echo "build ($BW_KERNELS): $(( $(date +%s) - T0 )) s" > $OUT/build_time.txt
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -1 $OUT/sass.txt
el tests; timeout ${T_TESTS:-150} python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_gpu.py tests/test_gpu_fused.py tests/test_quant_semantics.py tests/test_errors.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log
el nccl; timeout 100 python3 -m pytest -q -rs -p no:cacheprovider tests/test_distributed.py -k nccl > $OUT/pytest_nccl.log 2>&1; tail -2 $OUT/pytest_nccl.log
timeout 60 torchrun --nproc-per-node 2 examples/tp_mlp.py --device cuda --dtype bfloat16 --tokens 128 --activation gelu_tanh > $OUT/tp_mlp_cuda.log 2>&1; tail -12 $OUT/tp_mlp_cuda.log; timeout 60 torchrun --nproc-per-node 2 examples/tp_mlp.py --device cuda >> $OUT/tp_mlp_cuda.log 2>&1; tail -3 $OUT/tp_mlp_cuda.log
el tpbench; timeout 120 torchrun --nproc-per-node 2 benchmarks/bench_tp_mlp.py --tokens 8192 --dim 4096 --out $OUT/tp_mlp > $OUT/tp_mlp_bench.log 2>&1; tail -6 $OUT/tp_mlp_bench.log
el quantbench; timeout ${T_BENCH:-150} python3 benchmarks/bench_gemm.py --suite quant --out $OUT/quant > $OUT/quant_bench.log 2>&1; tail -24 $OUT/quant_bench.log
el done
cd $OUT && tar czf results.tgz quant tp_mlp tp_mlp_cuda.log pytest_gpu.log pytest_nccl.log sass.txt build_time.txt gpu.txt tp_mlp_bench.log quant_bench.log 2>/dev/null; rm -rf quant tp_mlp; ls
