#!/usr/bin/env bash
# Build for the GPU of this machine and run everything that needs it: the GPU tests, the CPU tests
# under this machine's torch, the SASS check, `info` and the demo. Writes logs under $OUT (or
# ./out). Used on the lent H200 (see docs/gpu_testing.md); works on any CUDA machine.
#   BW_ARCHS=90a BW_KERNELS=default bash tools/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
# The lent H200's image sets CXX=/opt/gcc/bin/g++, whose C++ runtime does not match torch's: an
# extension built with it segfaults in std::ostream (so on the first error message). Prefer the
# system compiler there. See docs/gpu_testing.md.
if [ -x /usr/bin/g++ ] && [ "${CXX:-}" != /usr/bin/g++ ] && [ -z "${BW_KEEP_CXX:-}" ]; then
  export CXX=/usr/bin/g++ CC=/usr/bin/gcc
fi
export BW_ARCHS=${BW_ARCHS:-90a} BW_KERNELS=${BW_KERNELS:-default} MAX_JOBS=${MAX_JOBS:-16}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv | tee "$OUT/gpu.txt"
start=$(date +%s)
$PY -m pip install --no-build-isolation --no-deps -v -e . > "$OUT/build.log" 2>&1 \
  || { grep -a -n "error" "$OUT/build.log" | head -30; exit 1; }
echo "build ($BW_KERNELS, $BW_ARCHS): $(( $(date +%s) - start )) s" | tee "$OUT/build_time.txt"
$PY -m blackwell_ops.info | tee "$OUT/info.txt"
$PY tools/check_sass.py | tee "$OUT/sass.txt"
PYTHONUNBUFFERED=1 $PY -m pytest -q -rs ${PYTEST_ARGS:-tests} 2>&1 | tee "$OUT/pytest.log" | tail -25
rc=${PIPESTATUS[0]}
$PY -m blackwell_ops.demo | tee "$OUT/demo.txt"
exit "$rc"
