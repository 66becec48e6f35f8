#!/usr/bin/env bash
# Final 2/2 (one H200, fresh): same build as run7.sh; the sm100 dry runs (axpby kernels) and
# compute-sanitizer again (run7.sh's sanitize shape was not 16-byte aligned, its sm100 test
# also took fused kernels), host overhead and the two timings, the quant benchmark.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_*_c2x1_coop_fp8overlap_*,sm90_e5m2xe4m3_*,sm90_s8_s32_*,sm90_s8_bf16_*,sm90_tf32_*,sm100_e4m3_*,sm100_e5m2xe4m3_*,sm100_s8_s32_*,sm100_s8_bf16_*,sm100_tf32_*"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
el tests; timeout 60 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_sm100_host.py > $OUT/pytest_sm100_host.log 2>&1; tail -2 $OUT/pytest_sm100_host.log
el sanitize; timeout 100 python3 tools/sanitize.py --out $OUT/sanitize --kernels 'sm90_e4m3_bf16_.*fp8overlap_(axpby|fused_gelu_tanh)' --tools memcheck,racecheck,synccheck --shape 200x136x1488 > $OUT/sanitize.log 2>&1; tail -8 $OUT/sanitize.log
el host; timeout 90 python3 docs/results/h200-session4/scripts/host_overhead.py > $OUT/host_overhead.txt 2>&1; cat $OUT/host_overhead.txt
el quantbench; timeout 280 python3 benchmarks/bench_gemm.py --suite quant --out $OUT/quant > $OUT/quant_bench.log 2>&1; tail -24 $OUT/quant_bench.log
el done
cd $OUT && tar czf results.tgz quant sanitize host_overhead.txt quant_bench.log pytest_sm100_host.log sanitize.log 2>/dev/null; rm -rf quant sanitize; ls
