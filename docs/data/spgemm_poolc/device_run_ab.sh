#!/bin/bash
# A/B: previous binary (perf_spgemm) vs new (perf_spgemm_new), alternating, small+medium suite.
D=$PWD/.carry/ws
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:10 poisson2d:300 poisson2d:1000 poisson3d:100 random:1000000:1000000:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/old$r.json $M > $OUT/old$r.log 2>&1; echo old rc=$?
timeout 100 $D/perf_spgemm_new --space cuda --no-baselines --check --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
grep -i "check" $OUT/new1.log | grep -v matches | head
