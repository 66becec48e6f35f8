#!/usr/bin/env bash
# Session 35, calls 3 and 4 (run138), on run136's machine while warm (main at e3d3f47, session
# 34's planner): probe34.py verify, then its default rows (300-2048 rows of Llama-3 8B's four
# projections), every kernel by name beside the op and torch._scaled_mm.
export PYTHONPATH=/tmp/site
timeout 300 python3 docs/results/session34/scripts/probe34.py verify > $OUT/probe34_verify.txt 2>&1
timeout 200 python3 docs/results/session34/scripts/probe34.py > $OUT/probe34_rows.txt 2>&1
