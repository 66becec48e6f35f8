#!/usr/bin/env bash
# The quant benchmark with the providers interleaved (benchmarks/bench_gemm.py interleaved_times),
# the GPU's clocks and power sampled meanwhile. Same build as run7.sh/run8.sh.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_*_c2x1_coop_fp8overlap_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*,sm100_e4m3_*,sm100_e5m2xe4m3_*,sm100_s8_s32_*,sm100_s8_bf16_*,sm100_tf32_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el quantbench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 300 python3 benchmarks/bench_gemm.py --suite quant --out $OUT/quant > $OUT/quant_bench.log 2>&1; tail -24 $OUT/quant_bench.log
kill $SMI
el done
cd $OUT && tar czf results.tgz quant quant_bench.log clocks.csv 2>/dev/null; rm -rf quant; ls
