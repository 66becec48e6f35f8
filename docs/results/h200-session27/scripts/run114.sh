#!/usr/bin/env bash
# Session 27, call 2 (run114), on run113's build when the machine is still warm (else it rebuilds
# the default set): the quant_small_m suite as CUDA graph replays and eager, side by side with
# torch._scaled_mm / torch._int_mm; probe26c.py (torch-only: the replay cost of a graph that
# retains CUDA user objects, and of a memset node).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
el probe26c; timeout 60 python3 docs/results/h200-session26/scripts/probe26c.py > $OUT/probe26c.txt 2>&1; echo "probe26c rc $?"; cat $OUT/probe26c.txt | cut -c1-300
el bench-graphs; mkdir -p /tmp/qg; PYTHONUNBUFFERED=1 timeout 200 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --graphs --out /tmp/qg > /tmp/bench_graphs.log 2>&1; echo "bench rc $?"; for f in results.csv results.json table.txt; do cp /tmp/qg/$f $OUT/graphs_$f; done; tail -32 /tmp/bench_graphs.log
el bench-eager; mkdir -p /tmp/qsm; PYTHONUNBUFFERED=1 timeout 200 python3 benchmarks/bench_gemm.py --suite quant_small_m --peers scaled_mm,int_mm --reps 100 --warmup 25 --out /tmp/qsm > /tmp/bench_small.log 2>&1; echo "bench rc $?"; for f in results.csv results.json table.txt; do cp /tmp/qsm/$f $OUT/eager_$f; done; tail -32 /tmp/bench_small.log
el done
