#!/usr/bin/env bash
# Session 10, call 2: the 16-bit suites again (default, fused, the MLP training step) on today's
# planner (sm90 swizzle) and timing (25 untimed runs before each burst), with the kernels those
# cases plan to (the planner asked locally with the `all` table; all are in `default`).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
S=sm90_bf16_bf16_a
export BW_KERNELS="${S}k_bk_128x128x64_c1x2_pingpong_axpby,${S}k_bk_128x128x64_c1x2_pingpong_fused_gelu_tanh,${S}k_bk_128x128x64_c1x2_pingpong_fused_silu,${S}k_bk_128x128x64_c1x2_pingpong_fused_none,${S}k_bk_128x256x64_c2x1_coop_axpby,${S}k_bk_64x128x64_c1x2_pingpong_axpby,${S}k_bmn_128x256x64_c2x1_coop_axpby,${S}k_bmn_128x128x64_c1x2_pingpong_axpby,${S}mn_bk_128x256x64_c2x1_coop_axpby,${S}mn_bmn_128x256x64_c2x1_coop_axpby,${S}mn_bmn_128x128x64_c1x2_pingpong_axpby,sm90_f16_f16_ak_bk_128x128x64_c1x2_pingpong_fused_relu,sm90_f16_f16_ak_bk_128x256x64_c2x1_coop_axpby,sm90_f16_f32_ak_bk_128x128x64_c1x2_pingpong_axpby,sm90_f16_f32_ak_bk_128x256x64_c2x1_coop_axpby,sm90_f16_f32_ak_bk_64x128x64_c1x2_pingpong_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 -c "from blackwell_ops import _C; print(len(_C.compiled_kernels()), 'kernels')"
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 1000 > $OUT/smi.csv 2>/dev/null &
mkdir -p $OUT/r
el default; timeout 270 python3 benchmarks/bench_gemm.py --suite default --peers addmm,mm+epi,eager,compile --reps 20 --time-limit 200 --out $OUT/r/default > $OUT/default.log 2>&1; tail -30 $OUT/default.log
el fused; timeout 90 python3 benchmarks/bench_gemm.py --suite fused --peers eager,compile --reps 20 --out $OUT/r/fused > $OUT/fused.log 2>&1; tail -8 $OUT/fused.log
el mlp; timeout 100 python3 benchmarks/bench_mlp.py --tokens 8192 --dim 4096 --reps 20 --out $OUT/r/mlp > $OUT/mlp.log 2>&1; tail -7 $OUT/mlp.log
kill %1 2>/dev/null
tar czf $OUT/results.tgz -C $OUT r && rm -rf $OUT/r
el done
