#!/usr/bin/env bash
# Session 29, call 2 (run122), an experiment (two kernels only in `all`: streamskip, streambfirst;
# csrc/gemm/sm90/streamed_loads.hpp's SkipEmptyA / BFirst): why 129 rows ran slower than 256 on
# the 2x1-cluster kernel in run121. Nine kernels; the experiment kernels' GPU test; probe29b.py
# time (M = 129-512, up and down) and ncu (plain and stream at 129 and 256 x 14336 x 4096).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session29/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
F=sm90_e4m3_bf16_ak_bk_128x128x128_
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="${F}c2x1_coop_fp8overlap*_axpby,${F}c1x2_coop_fp8overlap_axpby,${F}c1x2_coop_fp8overlap_ts_axpby,sm90_e4m3_bf16_ak_bk_64x64x128_c1x1_pingpong_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3
el test; timeout 60 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_gpu_quant.py -k "streamskip or streambfirst" > $OUT/pytest_x.log 2>&1; echo "pytest rc $?"; tail -1 $OUT/pytest_x.log | cut -c1-300; grep -E "^FAILED|^ERROR" $OUT/pytest_x.log | head -10 | cut -c1-300
el time; PYTHONUNBUFFERED=1 timeout 150 python3 $S/probe29b.py > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt; grep -c FAILED $OUT/time.txt
el ncu; timeout 150 ncu --profile-from-start off --cache-control none --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats python3 $S/probe29b.py ncu > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "ncu-label|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Hit|Mem Busy|Max Bandwidth|Warp Cycles Per Issued|No Eligible|Issued Warp|SM Frequency|DRAM Frequency" $OUT/ncu.txt | head -80
el done
