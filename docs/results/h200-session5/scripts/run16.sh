#!/usr/bin/env bash
# Session 5, call 5: the FP8 overlap mainloop in N chunks: 128x192 and 128x256 tiles (chunks of
# 64) against 128x128; tests, compute-sanitizer, tune.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x192x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x192x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a "C751\|spill" $OUT/build.log | cut -c1-160 | sort | uniq -c | head -5
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; cat $OUT/sass.txt | cut -c1-200
el tests; timeout 100 python3 -m pytest -m gpu -q -x -p no:cacheprovider tests/test_gpu_quant.py -k "e4m3 or fp8 or fused" > $OUT/pytest.log 2>&1; tail -3 $OUT/pytest.log
el sanitize; timeout 60 python3 tools/sanitize.py --out $OUT/sanitize --kernels 'sm90_e4m3_bf16_.*128x(192|256)x128.*fp8overlap_axpby' --tools memcheck,racecheck --shape 200x136x1488 > $OUT/sanitize.log 2>&1; tail -5 $OUT/sanitize.log
el tune; timeout 200 python3 benchmarks/tune.py --suite fp8 --reps 10 --schedules dp --out $OUT/tune_fp8 2>&1 | grep -v "Warn\|redispatch" | tail -40
el done
cd $OUT && tar czf results.tgz sanitize 2>/dev/null; rm -rf sanitize
