#!/usr/bin/env bash
# Session 22, call 4 (run101): compute-sanitizer (memcheck, racecheck, synccheck) on the FP8
# tail-split kernels at a problem below a wave whose plan splits (the grid of all SMs, session
# 22): 100x4000x14000 is 16 cluster tiles of 128x128 in 1x2 clusters (4 k-ranges), 32 in 2x1
# (2 ranges) and 16 of 128x256 in 2x1 (4 ranges); the driver also runs it batched (L=2) and,
# for the axpby kernels, with and without C (tools/sanitize.py). Logs stay on the device; only
# the summary comes back.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
F=sm90_e4m3_bf16_ak_bk_
export BW_KERNELS="${F}128x128x128_c1x2_coop_fp8overlap_ts_axpby,${F}128x128x128_c2x1_coop_fp8overlap_ts_axpby,${F}128x256x128_c2x1_coop_fp8overlap_ts_scale_e128x64"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; exit 1; }
el plan; python3 -c "
from blackwell_ops import _C
for t, what in ((16, '128x128 1x2 or 128x256 2x1'), (32, '128x128 2x1')):
    for l in (1, 2):
        print(what, 'L =', l, '(whole, split tiles, splits):', _C.sm90_tail_split(t * l, 66, 110)[:3])
" | tee $OUT/split_plan.txt
el sanitize; timeout 260 python3 tools/sanitize.py --out /tmp/san --kernels '_ts_' --shape 100x4000x14000 \
  --tools memcheck,racecheck,synccheck --jobs 9 --timeout 220; echo "sanitize rc $?"
cp /tmp/san/sanitize.txt $OUT/sanitize.txt; cat $OUT/sanitize.txt
el done
