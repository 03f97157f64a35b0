#!/bin/bash
D=$PWD/.carry/sg  # binaries (perf_spgemm, cpu/*) and matrices (m/) carried to the device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 250 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/new.json $M > $OUT/new.log 2>&1
echo perf rc=$?
grep "check" $OUT/new.log | grep -v matches | head
