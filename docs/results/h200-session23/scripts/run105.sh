#!/usr/bin/env bash
# Session 23, call 4 (run105): compute-sanitizer (memcheck, racecheck, synccheck) on the three
# swapped FP8 kernels of the default set at 16x4000x14000, where each one's tail-split plan
# splits (32 tiles of 128 weights below a wave, 4 k-ranges; the last tile partial), through the
# driver of tools/sanitize.py (with C, without C, L = 2; results checked against the fp64 bound).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_*_swapab_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; exit 1; }
el plan; python3 -c "
from blackwell_ops import _C
for t in (16, 32, 64):
    for l in (1, 2):
        tiles = -(-16 // t) * -(-4000 // 128) * l
        print(f'{t} tokens, L = {l}: {tiles} tiles, (whole, split tiles, splits):', _C.sm90_tail_split(tiles, 132, -(-14000 // 128))[:3])
" | tee $OUT/split_plan.txt
el sanitize; timeout 200 python3 tools/sanitize.py --out /tmp/san --kernels '_swapab_' --shape 16x4000x14000 \
  --tools memcheck,racecheck,synccheck --jobs 9 --timeout 180; echo "sanitize rc $?"
cp /tmp/san/sanitize.txt $OUT/sanitize.txt; cat $OUT/sanitize.txt
el done
