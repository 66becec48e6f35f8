# Sourced by this session's device scripts: the elapsed-time stamp, the CUTLASS wheel from .whl/
# (carried), and build_default / build_kernels SPEC, the editable install of the default sm_90a
# set or of BW_KERNELS=SPEC.
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site
# build_kernels SPEC: the editable install of BW_KERNELS=SPEC on sm_90a.
build_default() { build_kernels default; }
build_kernels() {
  CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16 BW_KERNELS="$1" \
    python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 \
    || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; return 1; }
  grep -a "blackwell_ops:" /tmp/build.log | head -3
}
