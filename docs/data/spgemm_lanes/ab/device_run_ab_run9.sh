#!/bin/bash
# A/B old (HEAD c49e9a8) vs new perf_spgemm, suite without G3_circuit, alternating;
# new with the old warp-sort bounds; host traces; ncu source profile of lhr07's team numeric.
D=$PWD/.carry/ab
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_old --space cuda --no-baselines --json $OUT/old$r.json $M > $OUT/old$r.log 2>&1; echo old rc=$?
  C=""; [ $r = 1 ] && C=--check
  timeout 130 $D/perf_spgemm --space cuda --no-baselines $C --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
grep -i "check" $OUT/new1.log | grep -v matches | head
SPK_SPGEMM_WARP_SORT=5:8:8:8:4:8 timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new_ws8.json $M > $OUT/new_ws8.log 2>&1; echo ws8 rc=$?
F=""; for f in cage10 lhr07 wiki-Vote ca-CondMat luxembourg_osm; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --kernels --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
W=$(mktemp -d)
timeout 120 ncu --clock-control none -k regex:spgemm_binned_numeric --launch-count 2 --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats --section SpeedOfLight -o $W/rep $D/perf_spgemm --space cuda --no-baselines --warmup 0 --repeat 1 $D/m/lhr07.mtx.gz > $OUT/ncu_run.log 2>&1; echo ncu rc=$?
ncu --import $W/rep.ncu-rep --page details > $OUT/ncu_details.txt 2>&1
ncu --import $W/rep.ncu-rep --page source --csv --print-source sass > $OUT/ncu_source.csv 2>&1; echo src rc=$?
gzip $OUT/ncu_source.csv
cd $OUT && tar czf $FINAL/run9.tgz . && ls -la $OUT
