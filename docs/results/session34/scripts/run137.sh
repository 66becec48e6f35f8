#!/usr/bin/env bash
# Session 34, call 4 (run137), in the last 229 s of device time: only the two 128x192 FP8 scale
# kernels (so the op can take nothing else for FP8 e4m3 -> bf16 without C), and the GPU tests
# that run them: the op's 128x192 test (new in run135's commit, not yet run) and the scale tests.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el build; CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS="sm90_e4m3_bf16_ak_bk_128x192x128_*" python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; exit 1; }
el tests; python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests/test_gpu_tile_order.py tests/test_gpu_scale.py -k "128x192" > $OUT/pytest_192.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_192.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_192.log | head | cut -c1-300
el done
