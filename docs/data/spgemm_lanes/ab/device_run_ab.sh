#!/bin/bash
# A/B old (HEAD c49e9a8) vs new perf_spgemm (long B rows by team lanes, LPT bins,
# 2^9 warp sort), alternating; new with --check; unfenced host trace; ncu source of lhr07 numeric.
D=$PWD/.carry/ab
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_old --space cuda --no-baselines --json $OUT/old$r.json $M > $OUT/old$r.log 2>&1; echo old rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
SPK_SPGEMM_LONG_B_ROW=32 timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new_lb32.json $M > $OUT/new_lb32.log 2>&1; echo lb32 rc=$?
F=""; for f in cage10 lhr07 wiki-Vote ca-CondMat luxembourg_osm Maragal_6 Oregon-2; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
W=$(mktemp -d)
timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:spgemm_binned_numeric --launch-count 2 --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats --section SpeedOfLight -o $W/rep $D/perf_spgemm --space cuda --no-baselines --warmup 0 --repeat 1 $D/m/lhr07.mtx.gz > $OUT/ncu_run.log 2>&1; echo ncu rc=$?
ncu --import $W/rep.ncu-rep --page details > $OUT/ncu_details.txt 2>&1
ncu --import $W/rep.ncu-rep --page source --csv --print-source sass > $OUT/ncu_source.csv 2>&1; echo src rc=$?
gzip $OUT/ncu_source.csv
M2=$(echo $M | sed 's/rmat:18:8//')
timeout 200 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $M2 > $OUT/check.log 2>&1; echo check rc=$?
grep -i "check" $OUT/check.log | grep -v matches | head
cd $OUT && tar czf $FINAL/run10.tgz . && ls -la $OUT
