#!/usr/bin/env bash
# Session 33, call 2 (run132), on run131's warm build: the SASS check of every sm_90a kernel in
# full, then the planner and kernel-set tests under the device's torch.
set -uo pipefail
. "$(dirname "$0")/../../session32/scripts/common.sh"
el sass; timeout 200 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; grep -c "^ok" $OUT/sass.txt; grep -v "^ok" $OUT/sass.txt | head | cut -c1-250
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "cpu tests ($LEFT s)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider tests/test_planner.py tests/test_kernel_set.py > $OUT/pytest_cpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_cpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_cpu.log | head -20 | cut -c1-300
el done
