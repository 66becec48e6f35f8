#!/usr/bin/env bash
# Session 33, call 2 (run132), on run131's warm build (not run: too little device time was left):
# the planner and kernel-set tests under the device's torch, the one part of session 32's plan
# that run131 did not cover (its SASS check finished all 84 kernels).
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el "cpu tests"; timeout 580 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el done
