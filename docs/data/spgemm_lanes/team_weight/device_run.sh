#!/bin/bash
# A/B in one binary: team-per-row bins weighted 4x (default) vs 1x for the launch order.
D=$PWD/.carry/ab
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  SPK_SPGEMM_TEAM_WEIGHT=1 timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/w1_$r.json $M > $OUT/w1_$r.log 2>&1; echo w1 rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/w4_$r.json $M > $OUT/w4_$r.log 2>&1; echo w4 rc=$?
done
F=""; for f in cage10 lhr07 ca-CondMat; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
cd $OUT && tar czf $FINAL/run11.tgz . && ls $OUT
