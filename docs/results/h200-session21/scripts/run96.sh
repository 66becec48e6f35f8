#!/usr/bin/env bash
# Session 21, call 1 (run96): the sm100 8-bit and tf32 axpby kernels in every layout (UMMA reads
# these types MN-major; tools/generate_kernels.py, _SM100_QUANT_LAYOUTS) built beside the ci set:
# their SASS (tools/check_sass.py: the MMA form, 2-SM/TMA/TMEM features and the a/b major bits of
# each MMA's instruction descriptor), their host path dry-run on the H200 without launching
# (tests/test_sm100_host.py: can_implement, workspace, Params and TMA descriptors, for every
# layout), and the quant / planner / kernel-set / kernel GPU tests on the sm90 ci kernels.
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc
export BW_ARCHS=90a,100a MAX_JOBS=16
export BW_KERNELS='ci,sm100_e4m3*_2sm_axpby,sm100_e5m2*_2sm_axpby,sm100_s8_*,sm100_tf32_*'
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > $OUT/build.log 2>&1 || { grep -a -n "error" $OUT/build.log | head -30; exit 1; }
grep -a -c "nvcc sm_100a" $OUT/build.log; grep -a -c "nvcc sm_90a" $OUT/build.log
el sass; timeout 200 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt; grep -c "^ok" $OUT/sass.txt; grep "^FAIL" $OUT/sass.txt | cut -c1-200
el tests; timeout 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_sm100_host.py tests/test_gpu_quant.py tests/test_planner.py tests/test_kernel_set.py tests/test_gpu.py > $OUT/pytest_gpu.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_gpu.log; grep -E "FAILED|Error" $OUT/pytest_gpu.log | head -10
el done
