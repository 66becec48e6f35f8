#!/usr/bin/env bash
# Session 7, call 13: after the review mends (lean can_implement guard, messages naming x/return_y):
# FP8 GPU tests, and compute-sanitizer at 200x136x3200 (25 k-tiles: chained groups on 128x128 too).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
P=sm90_e4m3_bf16_ak_bk
export BW_KERNELS="${P}_128x128x128_c2x1_coop_fp8overlap_axpby,${P}_128x256x128_c2x1_coop_fp8overlap_axpby,${P}_128x128x128_c2x1_coop_fp8overlap_fused_gelu_tanh,${P}_128x128x128_c2x1_coop_fp8overlap_lean_gelu_tanh,${P}_128x256x128_c2x1_coop_fp8overlap_lean_gelu_tanh"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
python3 tools/check_sass.py > $OUT/sass.txt 2>&1; tail -1 $OUT/sass.txt
el tests; timeout 150 python3 -m pytest -m gpu -q -rs -p no:cacheprovider tests/test_gpu_quant.py tests/test_planner.py > $OUT/pytest_gpu.log 2>&1; tail -2 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
python3 - <<'PY' 2>&1 | tee $OUT/messages.txt
import torch, blackwell_ops
from blackwell_ops import _C
a = torch.randn(256, 1024, device="cuda").to(torch.float8_e4m3fn); b = torch.randn(512, 1024, device="cuda").to(torch.float8_e4m3fn).t()
x = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
n = "sm90_e4m3_bf16_ak_bk_128x256x128_c2x1_coop_fp8overlap_lean_gelu_tanh"
print(_C.run_kernel_fused(a, b, None, None, x, 1.0, 0.0, 1.0, "gelu_tanh", False, torch.bfloat16, n, False)[0])
print(_C.run_kernel_fused(a, b, None, None, None, 1.0, 0.0, 1.0, "gelu_tanh", True, torch.bfloat16, n, False)[0])
PY
el sanitize; timeout 200 python3 tools/sanitize.py --out $OUT/sanitize --kernels '128x128x128_c2x1_coop_fp8overlap_(axpby|lean)|128x256x128_c2x1_coop_fp8overlap_(axpby|lean)' --shape 200x136x3200 --jobs 6 > $OUT/sanitize.log 2>&1; tail -14 $OUT/sanitize.log
el done
