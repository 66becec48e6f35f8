#!/usr/bin/env bash
# Session 7, call 2: 128x128 vs 128x256 FP8 overlap kernels (chained groups), plain and fused, with _scaled_mm.
set -uo pipefail
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
if ! python3 -c "import blackwell_ops._C" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
  eval "$(grep '^P=\|^export BW_KERNELS' .whl/run27.sh)"
  python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || exit 1
fi
python3 .whl/probe_tiles3.py 40 | tee $OUT/probe_tiles3.txt
