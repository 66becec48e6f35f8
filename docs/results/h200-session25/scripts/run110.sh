#!/usr/bin/env bash
# Session 25, call 1 (run110): the FP8 e4m3 -> bf16 plain kernels and the INT8 -> int32 ones of the
# default set for sm_90a (14 kernels: every kernel the quant_small_m suite's planner can take),
# with captured launches' tail-split flags in buffers the graphs own. SASS; every GPU test; the
# new graph tests verbose; the quant_small_m suite eager (session 23's command) and as CUDA graph
# replays (--graphs); the host time per call (probe25.py).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
K="sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c1x2_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x128x128_c2x1_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_axpby,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_scale_e128x64,sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64,sm90_e4m3_bf16_ak_bk_*_swapab_axpby,sm90_e4m3_bf16_ak_bk_64x64x128_c1x1_pingpong_axpby,sm90_s8_s32_ak_bk_*,-sm90_s8_s32_ak_bk_*_sk_*"
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS="$K"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el sass; timeout 120 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head
el gpu-tests-new; timeout 120 python3 -m pytest -v -p no:cacheprovider tests/test_gpu_tile_order.py -k "split_flags or cuda_graph" > $OUT/pytest_new.log 2>&1; echo "new rc $?"; tail -8 $OUT/pytest_new.log | cut -c1-300
el gpu-tests; timeout 200 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -30 | cut -c1-400
el host; timeout 60 python3 docs/results/h200-session25/scripts/probe25.py > $OUT/host_run110.txt 2>&1; echo "host rc $?"; cat $OUT/host_run110.txt
el bench-graphs; mkdir -p /tmp/qg; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --graphs --out /tmp/qg > $OUT/bench_graphs.log 2>&1; echo "bench rc $?"; mkdir -p $OUT/graphs; cp /tmp/qg/*.csv /tmp/qg/*.json /tmp/qg/table.txt $OUT/graphs/ 2>/dev/null; tail -30 $OUT/bench_graphs.log
el bench-eager; mkdir -p /tmp/qsm; PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out /tmp/qsm > $OUT/bench_small.log 2>&1; echo "bench rc $?"; mkdir -p $OUT/eager; cp /tmp/qsm/*.csv /tmp/qsm/*.json /tmp/qsm/table.txt $OUT/eager/ 2>/dev/null; tail -30 $OUT/bench_small.log
el done
