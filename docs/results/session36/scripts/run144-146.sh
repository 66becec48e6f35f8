#!/usr/bin/env bash
# Session 36, calls 5-7 (run144-146), on run143's H200 while warm (its default build kept; each
# was one inline command of the device call, copied here verbatim; ran in this order).
export PYTHONPATH=/tmp/site
# run144
timeout 170 python3 benchmarks/bench_gemm.py --suite fp8 --reps 80 --warmup 25 --out $OUT/fp8 > $OUT/fp8_bench.log 2>&1; echo "bench rc $?"; grep -A14 "^case" $OUT/fp8_bench.log | cut -c1-200
# run145
timeout 60 python3 benchmarks/bench_gemm.py --suite int8 --peers int_mm --reps 60 --warmup 25 --out /tmp/int8 > $OUT/int8_bench.log 2>&1; echo "int8 rc $?"; cp /tmp/int8/command.txt /tmp/int8/table.txt /tmp/int8/results.csv $OUT/ 2>/dev/null; grep -E "int8|geometric|targets" $OUT/int8_bench.log | cut -c1-200; timeout 75 python3 docs/results/session36/scripts/probe36.py > $OUT/probe36_rows.txt 2>&1; echo "probe36 rc $?"; cut -c1-260 $OUT/probe36_rows.txt
# run146
timeout 75 python3 tools/sanitize.py --out /tmp/san --kernels '64x128x128_c1x1_pingpong_fp8overlap' --shape 136x520x1024 --tools memcheck,racecheck,synccheck --jobs 3 --timeout 70 > $OUT/sanitize_run.log 2>&1; echo "sanitize rc $?"; cp /tmp/san/sanitize.txt $OUT/sanitize.txt; cut -c1-250 $OUT/sanitize.txt; timeout 38 python3 benchmarks/bench_gemm.py --suite fp8 --reps 80 --warmup 25 --out $OUT/fp8b > $OUT/fp8b_bench.log 2>&1; echo "bench rc $?"; grep -E "x.*(met|MISS)|geometric" $OUT/fp8b_bench.log | cut -c1-200
