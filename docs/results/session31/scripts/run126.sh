#!/usr/bin/env bash
# Session 31, call 2 (run126): the whole default set for sm_90a with session 31's tail-split
# rule (TailSplit::kMaxRounds: no split of three or more rounds) and FP8 planner (shapes costed
# by their twin's split at K >= 8192); the tile-order GPU tests first, then probe30.py in op mode
# (the op's kernel against _scaled_mm at 129-1536 rows), then every GPU test in what time is left,
# and the planner and kernel-set tests under the device's torch.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS=default
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el cpu-tests; timeout 40 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el tile-order-tests; timeout 60 python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py > $OUT/pytest_tile_order.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_tile_order.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_tile_order.log | head -20 | cut -c1-300
el probe-op; PYTHONUNBUFFERED=1 timeout 60 python3 docs/results/h200-session30/scripts/probe30.py op > $OUT/probe30_op.txt 2>&1; echo "probe rc $?"; sed 's/ (us; x = scaled_mm \/ it)//; s/_coop_fp8overlap//' $OUT/probe30_op.txt | cut -c1-150
LEFT=$(( 590 - ($(date +%s) - T0) ))
el "all GPU tests ($LEFT s left)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
