#!/usr/bin/env bash
# Session 37, call 1 (run147): the default sm_90a FP8 kernels (the fp8 suite's) plus the "_cpf"
# twins (the epilogue C prefetch of 96cebe2, since removed: ../experiments.patch) of three default
# kernels that read C: FP8 128x256 axpby, bf16 128x256 cooperative axpby and bf16 128x128
# ping-pong axpby (built beside their twins). probe37.py's side-by-side rows first, then the fp8
# suite, the SASS check of every built kernel and the GPU tests with the time left.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
F=sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_
B=sm90_bf16_bf16_ak_bmn_128x256x64_c2x1_coop_
P=sm90_bf16_bf16_ak_bmn_128x128x64_c1x2_pingpong_
el build; build_kernels "default,-sm90_bf16_*,-sm90_f16_*,-sm90_s8_*,-sm90_tf32_*,${F}axpby_cpf,${B}axpby*,${P}axpby*" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
CO=$(python3 -c "from blackwell_ops.sass import find_cuobjdump as f; print(f())")
for k in ${F}axpby ${F}axpby_cpf ${B}axpby ${B}axpby_cpf ${P}axpby ${P}axpby_cpf; do
  echo "$k: $($CO -res-usage build/kernels/$k.o 2>&1 | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | head -1)" \
       "$($CO -sass build/kernels/$k.o | grep -oE 'UTMAPF[.A-Z0-9]*|UTMALDG[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"
done | tee $OUT/sass_twins.txt
el probe37; timeout 120 python3 docs/results/session37/scripts/probe37.py > $OUT/probe37_rows.txt 2>&1; echo "probe37 rc $?"; cut -c1-400 $OUT/probe37_rows.txt
el fp8 suite; timeout 60 python3 benchmarks/bench_gemm.py --suite fp8 --reps 80 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -E "x.*(met|MISS)|geometric" $OUT/fp8_bench.log | cut -c1-200
el sass; timeout 60 python3 tools/check_sass.py > $OUT/sass_all.txt 2>&1; echo "check_sass rc $?"; tail -2 $OUT/sass_all.txt | cut -c1-300
LEFT=$(( 585 - ($(date +%s) - T0) ))
el "GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_quant.py tests/test_gpu.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
