#!/usr/bin/env bash
# Session 26, call 2 (run112): the FP8 e4m3 -> bf16 plain kernels (with the 64x128 c1x2 pingpong
# one) and INT8 -> int32 non-sk ones for sm_90a; probe26b.py (the eager vs graph-replay launch gap
# per pinned kernel); the quant_small_m suite as CUDA graph replays and eager, side by side.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
K="sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64,sm90_e4m3_bf16_ak_bk_*_swapab_axpby,sm90_e4m3_bf16_ak_bk_64x64x128_c1x1_pingpong_axpby,sm90_e4m3_bf16_ak_bk_64x128x128_c1x2_pingpong_axpby,sm90_s8_s32_ak_bk_*,-sm90_s8_s32_ak_bk_*_sk_*"
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS="$K"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el probe; timeout 150 python3 docs/results/h200-session26/scripts/probe26b.py > $OUT/probe26b.txt 2>&1; echo "probe rc $?"; grep -v Warn $OUT/probe26b.txt | cut -c1-400
el bench-graphs; mkdir -p /tmp/qg; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --graphs --out /tmp/qg > /tmp/bench_graphs.log 2>&1; echo "bench rc $?"; for f in results.csv results.json table.txt; do cp /tmp/qg/$f $OUT/graphs_$f; done; tail -32 /tmp/bench_graphs.log
el bench-eager; mkdir -p /tmp/qsm; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out /tmp/qsm > /tmp/bench_small.log 2>&1; echo "bench rc $?"; for f in results.json table.txt; do cp /tmp/qsm/$f $OUT/eager_$f; done; tail -32 /tmp/bench_small.log
el done
