#!/usr/bin/env bash
# Session 28, call 1 (run116): the swapped FP8 decode kernels with the weights loaded evict-first
# (coop_stream) beside the plain ones (coop). Builds the six; their TMA load instructions in SASS;
# the swapped kernels' GPU tests; probe28.py time (write and read flush) and ncu (DRAM bytes read
# and written during each call after the benchmarks' write flush).
set -uo pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
S=docs/results/h200-session28/scripts
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site CXX=/usr/bin/g++ CC=/usr/bin/gcc BW_ARCHS=90a MAX_JOBS=16
export BW_KERNELS="sm90_e4m3_bf16_ak_bk_*_swapab_axpby"
el build; python3 -m pip install --no-build-isolation --no-deps -v -e . > /tmp/build.log 2>&1 || { grep -a -n "error" /tmp/build.log | head -30; tail -5 /tmp/build.log; exit 1; }
grep -a "blackwell_ops:" /tmp/build.log | head -3; grep -a -i "spill" /tmp/build.log | grep -v " 0 bytes spill" | cut -c1-200 | head
el sass; for k in build/kernels/*swapab*.o; do echo "== $(basename $k)"; cuobjdump --dump-sass $k | grep -E "UTMALDG|UTMAPF" | sed 's@/\*[0-9a-f]*\*/@@; s/ \+/ /g' | sort | uniq -c; done > $OUT/sass_tma.txt 2>&1; cat $OUT/sass_tma.txt | head -40
timeout 60 python3 tools/check_sass.py > $OUT/sass.txt 2>&1; echo "sass rc $?"; tail -1 $OUT/sass.txt
el tests; timeout 200 python3 -m pytest -q -rfE -p no:cacheprovider tests/test_gpu_swap.py > $OUT/pytest_swap.log 2>&1; echo "pytest rc $?"; tail -2 $OUT/pytest_swap.log | cut -c1-300; grep -E "^FAILED" $OUT/pytest_swap.log | head -20 | cut -c1-300
el time; PYTHONUNBUFFERED=1 timeout 240 python3 $S/probe28.py time > $OUT/time.txt 2>&1; echo "time rc $?"; grep -v "rel err" $OUT/time.txt | grep -v "op path"; grep -c FAILED $OUT/time.txt
el ncu; timeout 200 ncu --profile-from-start off --cache-control none --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv python3 $S/probe28.py ncu 16x4096x14336,32x4096x14336,64x4096x14336,32x14336x4096 > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "ncu-label" $OUT/ncu.txt | head -20; grep -E "gpu__time_duration|dram__bytes" $OUT/ncu.txt | awk -F'","' '{print $1" "substr($5,1,50)" | "$(NF-2)" "$NF}' | head -80
el done
