#!/usr/bin/env bash
# Session 20, call 1 (run94): compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on the
# FP8 tail-split scale kernels (session 17), at problems whose last wave the plan splits, and
# their GPU tests. Builds those kernels only (the glob matches four: the two of the default set and
# the e5m2 and e4m3 x e5m2 ones of `all`). The plan arithmetic in split_plan.py is
# tests/test_gpu_tile_order.py's _split_plan, written out so the script runs on its own.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS='sm90_*_ts_scale_*'
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_90a" $OUT/build.log
SHAPES="2544x2544x4032 1536x4096x8192"
el plan; python3 docs/results/h200-session20/scripts/split_plan.py 2544x2544x4032 2544x2544x4032x2 1536x4096x8192 1536x4096x8192x2 2>&1 | tee $OUT/split_plan.txt
for s in $SHAPES; do
  el "sanitize $s"
  timeout 420 python3 tools/sanitize.py --out $OUT/sanitize_$s --kernels '_ts_scale_' --shape $s \
    --tools memcheck,racecheck,synccheck,initcheck --jobs 8 --timeout 300; echo "sanitize rc $?"
  cat $OUT/sanitize_$s/sanitize.txt
done
el pytest; timeout 120 python3 -m pytest -q -rs tests/test_gpu_tile_order.py -k "tail_split" > $OUT/pytest_ts.log 2>&1; echo "pytest rc $?"; tail -3 $OUT/pytest_ts.log
el done
