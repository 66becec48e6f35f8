#!/usr/bin/env bash
# Final 1/2 (one H200): the default quant kernels of both archs (sm90 FP8 on the overlapped-
# promotion mainloop), SASS, GPU tests of issue #9, sm100 host dry runs, compute-sanitizer over
# the new mainloop.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_*_c2x1_coop_fp8overlap_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*,sm100_e4m3_*,sm100_e5m2xe4m3_*,sm100_s8_s32_*,sm100_s8_bf16_*,sm100_tf32_*"
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > $OUT/gpu.txt
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el built; echo "build ($BW_KERNELS): $(( $(date +%s) - T0 )) s" > $OUT/build_time.txt
grep -a "C7514\|spill stores" $OUT/build.log | grep -v " 0 bytes spill" | head -5
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -2 $OUT/sass.txt
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_sm100_host.py tests/test_quant_semantics.py tests/test_gpu_reliability.py > $OUT/pytest_gpu.log 2>&1; tail -3 $OUT/pytest_gpu.log
el sanitize; timeout 170 python3 tools/sanitize.py --out $OUT/sanitize --kernels 'sm90_e4m3_bf16_.*fp8overlap_(axpby|fused_gelu_tanh)' --tools memcheck,racecheck,synccheck --shape 200x136x1488 > $OUT/sanitize.log 2>&1; tail -8 $OUT/sanitize.log
el done
cd $OUT && tar czf results.tgz sanitize pytest_gpu.log sass.txt build_time.txt gpu.txt sanitize.log 2>/dev/null; ls
