#!/usr/bin/env bash
# Session 14, call 2 (after call 1: copies by cudaMemcpy2DAsync, BW_PAD): padded calls for shapes off TMA's 16-byte grid (csrc/bw_ops_cuda.cpp,
# pad_call). The sm90 kernels the padding tests and the unaligned suite route to (all bf16 x @ W.T
# and a @ b kernels, the bf16 fused ones of the tests, fp16, FP8, INT8, TF32); the padding, kernel,
# reliability, quant and fused GPU tests; the size sweep of probe_pad_sweep.py; the unaligned suite.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session14/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
B=sm90_bf16_bf16; E=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${B}_ak_bk_128x256x64_c2x1_coop_axpby,${B}_ak_bk_128x128x64_c1x2_pingpong_axpby,${B}_ak_bk_64x128x64_c1x2_pingpong_axpby,${B}_ak_bmn_128x256x64_c2x1_coop_axpby,${B}_ak_bmn_128x128x64_c1x2_pingpong_axpby,${B}_ak_bmn_64x128x64_c1x2_pingpong_axpby,${B}_ak_bk_128x128x64_c1x2_pingpong_fused_gelu_tanh,${B}_ak_bk_128x128x64_c1x2_pingpong_fused_relu,${B}_ak_bk_128x128x64_c1x2_pingpong_fused_silu,sm90_f16_f16_ak_bmn_128x256x64_c2x1_coop_axpby,sm90_f16_f32_ak_bmn_128x256x64_c2x1_coop_axpby,${E}_128x256x128_c2x1_coop_fp8overlap_axpby,${E}_128x128x128_c2x1_coop_fp8overlap_axpby,${E}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,sm90_e5m2xe4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby,sm90_s8_bf16_ak_bk_128x256x128_c2x1_coop_axpby,sm90_tf32_f32_ak_bk_128x256x32_c2x1_coop_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider --durations=5 tests/test_gpu_padding.py tests/test_gpu.py tests/test_gpu_reliability.py tests/test_gpu_fused.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-200; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -20
el sweep; timeout 200 python3 $S/probe_pad_sweep.py > $OUT/probe_pad_sweep.txt 2>&1; cut -c1-230 $OUT/probe_pad_sweep.txt | head -60
el bench; timeout $(( 590 - ($(date +%s) - T0) )) python3 benchmarks/bench_gemm.py --suite unaligned --reps 30 --warmup 25 --out $OUT/unaligned > $OUT/unaligned.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/unaligned.log | cut -c1-180
el done
