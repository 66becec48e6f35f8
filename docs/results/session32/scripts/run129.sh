#!/usr/bin/env bash
# Session 32, call 1 (run129): the whole default set for sm_90a at b962d7e (session 31's planner:
# TailSplit::kMaxRounds, FP8 shapes costed by their twin's split, places computed once a plan);
# every GPU test in the time left after the build.
set -uo pipefail
. "$(dirname "$0")/common.sh"
el build; build_default || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
LEFT=$(( 592 - ($(date +%s) - T0) ))
el "all GPU tests ($LEFT s left)"; timeout $LEFT python3 -m pytest -q -rfE -p no:cacheprovider -m gpu tests > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_gpu.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_gpu.log | head -20 | cut -c1-300
el done
