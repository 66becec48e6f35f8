#!/usr/bin/env bash
# Session 10, call 5: compute-sanitizer (memcheck, racecheck, synccheck) on the 16-bit sm90 kernels
# under the planner's tile swizzle (session 9's sm90_swizzle, never sanitized on 16-bit kernels), on
# 7900x2048x2704 bf16, whose operands (56 MB) pass the L2 rule: swizzle 8 on every one of these
# kernels, with the tile grid padded (128x256 2x1: 62x8 tiles -> 64x8; 128x128 1x2: 62x16 -> 64x16;
# 64x128 1x2: 124x16 -> 128x16) and M's last tile partial.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a MAX_JOBS=16
S=sm90_bf16_bf16_ak_bk
export BW_KERNELS="${S}_128x256x64_c2x1_coop_axpby,${S}_128x128x64_c1x2_pingpong_axpby,${S}_64x128x64_c1x2_pingpong_axpby,${S}_128x128x64_c1x2_pingpong_fused_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 - <<'PY' | tee $OUT/plan.txt
from blackwell_ops import _C
p = dict(m=7900, n=2048, k=2704, ab="bfloat16", a_major="K", b_major="K", c="bfloat16")
print("axpby", _C.plan(p, 90, "compiled", True))
print("fused", _C.plan(dict(p, activation="gelu_tanh", x=True, return_y=True), 90, "compiled", True))
PY
el sanitize; timeout 360 python3 tools/sanitize.py --out $OUT/sanitize --shape 7900x2048x2704 --tools memcheck,racecheck,synccheck --jobs 12 --timeout 300 > $OUT/sanitize.log 2>&1; echo "rc $?"; cat $OUT/sanitize/sanitize.txt
tar czf $OUT/sanitize_logs.tgz -C $OUT sanitize/logs && rm -rf $OUT/sanitize/logs
el done
