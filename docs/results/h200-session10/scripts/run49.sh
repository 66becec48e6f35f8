#!/usr/bin/env bash
# Session 10, call 1: stream-K on the 128x256 FP8 overlap kernel (probe_sk2.py), SASS of the new
# kernels, then the INT8 cases of the quant suite with an eager peer for the scaled ones.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap
export BW_KERNELS="${P}_axpby,${P}_sk_axpby,${P}_fused_gelu_tanh,${P}_sk_fused_gelu_tanh,sm90_s8_s32_ak_bk_128x256x128_c2x1_coop_axpby,sm90_s8_bf16_ak_bk_128x256x128_c2x1_coop_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el sass; timeout 120 python3 -m blackwell_ops.info --sass > $OUT/sass.txt 2>&1; tail -8 $OUT/sass.txt
el probe; timeout 330 python3 .whl/probe_sk2.py > $OUT/probe_sk2.txt 2>&1; grep -v "rel err" $OUT/probe_sk2.txt | tail -12
el int8; timeout 90 python3 benchmarks/bench_gemm.py --suite quant --filter int8 --peers int_mm,eager --reps 60 --out $OUT/int8 > $OUT/int8.log 2>&1; tail -9 $OUT/int8.log
tar czf $OUT/results.tgz -C $OUT int8 && rm -rf $OUT/int8
el done
