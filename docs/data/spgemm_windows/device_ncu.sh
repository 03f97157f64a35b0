#!/bin/bash
# ncu of the bitmap long rows' numeric on one H100: the dense global slab
# (SPK_SPGEMM_PARTITION=0) on rmat:18:8, the windowed kernel on rmat:16:16 and Maragal_6.
D=$PWD/.carry/win
FINAL=$OUT; OUT=$(mktemp -d)
gunzip -f $D/perf_spgemm.gz 2>/dev/null; chmod +x $D/perf_spgemm
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=$(mktemp -d)
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats"
prof() {  # name partition kernel-regex matrix
  SPK_SPGEMM_PARTITION=$2 timeout 150 ncu --clock-control none --kernel-name-base demangled -k "regex:$3" --launch-count 1 $S -o $W/$1 $D/perf_spgemm --space cuda --no-baselines --warmup 0 --repeat 1 $4 > $OUT/$1_run.log 2>&1; echo $1 rc=$?
  ncu --import $W/$1.ncu-rep --page details > $OUT/$1_details.txt 2>&1
  ncu --import $W/$1.ncu-rep --page source --csv --print-source sass > $OUT/$1_source.csv 2>&1
  gzip $OUT/$1_source.csv
}
prof dense_rmat18 0 "spgemm_binned_numeric.*instance 4" rmat:18:8
prof win_rmat16 1 spgemm_partitioned_numeric rmat:16:16
prof win_maragal 1 spgemm_partitioned_numeric $D/m/Maragal_6.mtx.gz
prof dense_maragal 0 "spgemm_binned_numeric.*instance 4" $D/m/Maragal_6.mtx.gz
which cuobjdump && cuobjdump -sass $D/perf_spgemm 2>/dev/null | awk "/Function : .*spgemm_partitioned_numeric/{p=1;next} /Function :/{p=0} p" | grep -oE "(ATOMS|ATOMG|ATOM|RED)[.A-Z0-9]*" | sort | uniq -c > $OUT/atoms.txt
cd $OUT && tar czf $FINAL/ncu.tgz . && ls -la $OUT
