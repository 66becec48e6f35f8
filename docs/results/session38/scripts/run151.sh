#!/usr/bin/env bash
# Session 38, call 3 (run151; run150.sh, its bf16 half alone, got no machine). With 497 s of
# device time left, a reduced set:
# 1. session 38's sm90_preference rule (16-bit inputs take the 128x256 cooperative kernel over
#    the 128x128 ping-pong at K > 2048 where its waves are 90% full) through the op: probe38.py
#    rows on the three roles' bf16 kernels of x @ W.T and x @ W;
# 2. the 128x160 FP8 overlap tiles (`all`) by name beside the 128x128 / 128x192 / 128x256 tiles
#    of the default set, the op (the planner over the kernels built) and _scaled_mm: probe38.py
#    fp8 (outputs checked against fp64 first, partial last tiles included);
# 3. the SASS of the new kernels, then test_gpu_quant.py's per-kernel reference test with the
#    time left.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
B=sm90_bf16_bf16_ak_*_
F=sm90_e4m3_bf16_ak_bk_128x
el build; build_kernels "${B}128x256x64_c2x1_coop_axpby,${B}128x128x64_c1x2_pingpong_axpby,${B}64x128x64_c1x2_pingpong_axpby,${F}160x128_*,${F}128x128_c?x?_coop_fp8overlap_axpby,${F}192x128_c?x?_coop_fp8overlap_scale_e128x64,${F}256x128_c2x1_coop_fp8overlap_scale_e128x64" || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
CO=$(python3 -c "from blackwell_ops.sass import find_cuobjdump as f; print(f())")
for k in build/kernels/sm90_e4m3_bf16_ak_bk_128x160x128_*.o; do
  echo "$k: $($CO -res-usage $k 2>&1 | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | head -1)" \
       "$($CO -sass $k | grep -oE 'QGMMA[.0-9A-Z]*|UTMALDG[.A-Z0-9]*|LDL|STL' | sort | uniq -c | tr '\n' ' ')"
done | tee $OUT/sass_w160.txt
S=4096x4096x4096,8192x4096x14336,16384x4096x14336,1024x6144x4096,4096x4096x1024
el probe38 bf16; timeout 100 python3 docs/results/session38/scripts/probe38.py rows $S kk,kmn > $OUT/probe38_rows.txt 2>&1; echo "probe38 rc $?"; cut -c1-330 $OUT/probe38_rows.txt
el probe38 fp8; timeout 90 python3 docs/results/session38/scripts/probe38.py fp8 > $OUT/probe38_fp8.txt 2>&1; echo "probe38 fp8 rc $?"; cut -c1-420 $OUT/probe38_fp8.txt
LEFT=$(( 430 - ($(date +%s) - T0) ))
el "GPU tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_quant.py -k "kernel_vs_reference and 160" > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
