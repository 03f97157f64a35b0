#!/bin/bash
# Where rmat:18:8's and Maragal_6's time goes on the kept code (one H100): per-kernel times
# (--kernels, fenced per kernel) and ncu of the bitmap long-row symbolic on rmat:18:8.
D=$PWD/.carry/pr
FINAL=$OUT; OUT=$(mktemp -d)
gunzip -f $D/perf_spgemm.gz; chmod +x $D/perf_spgemm
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
timeout 120 $D/perf_spgemm --space cuda --no-baselines --kernels rmat:18:8 rmat:16:16 $D/m/Maragal_6.mtx.gz $D/m/wiki-Vote.mtx.gz > $OUT/kernels.log 2>&1; echo kernels rc=$?
W=$(mktemp -d)
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats"
timeout 150 ncu --clock-control none --kernel-name-base demangled -k "regex:spgemm_binned_symbolic.*instance 4" --launch-count 1 $S -o $W/rep $D/perf_spgemm --space cuda --no-baselines --warmup 0 --repeat 1 rmat:18:8 > $OUT/ncu_run.log 2>&1; echo ncu rc=$?
ncu --import $W/rep.ncu-rep --page details > $OUT/ncu_sym_rmat18_details.txt 2>&1
ncu --import $W/rep.ncu-rep --page source --csv --print-source sass > $OUT/ncu_sym_rmat18_source.csv 2>&1
gzip $OUT/ncu_sym_rmat18_source.csv
cd $OUT && tar czf $FINAL/run.tgz . && ls -la $OUT
