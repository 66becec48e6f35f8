#!/usr/bin/env bash
# Session 6, call 1: ping-pong on the overlapped FP8 mainloop beside the cooperative kernels:
# side-by-side probe, GPU tests (quant, planner, compile), compute-sanitizer on the new kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_64x128x128_c2x1_pingpong_fp8overlap_axpby,${P}_64x128x128_c1x2_pingpong_fp8overlap_axpby,${P}_64x256x128_c2x1_pingpong_fp8overlap_axpby,${P}_64x128x128_c2x1_pingpong_fp8overlap_fused_gelu_tanh,${P}_64x256x128_c2x1_pingpong_fp8overlap_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C751\|spill" $OUT/build.log | cut -c1-160 | sort | uniq -c | head -5
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -12 $OUT/sass.txt
el probe
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 150 python3 .whl/probe_pp.py 30 > $OUT/probe_pp.txt 2>&1; cat $OUT/probe_pp.txt
kill $SMI
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_planner.py tests/test_compile.py tests/test_fused_compile.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log
el sanitize; timeout 120 python3 tools/sanitize.py --out $OUT/sanitize --kernels 'sm90_e4m3_bf16_.*pingpong_fp8overlap_(axpby|fused_gelu_tanh)' --tools memcheck,racecheck,synccheck --shape 200x136x1488 > $OUT/sanitize.log 2>&1; tail -8 $OUT/sanitize.log
el done
cd $OUT && tar czf results.tgz sanitize 2>/dev/null; rm -rf sanitize; ls
