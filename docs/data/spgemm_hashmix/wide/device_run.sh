#!/bin/bash
# Power-law graphs wider than the scratch bitmap (global hash / dense-marker slabs), before
# (ex) and after HashMix, one H100.
D=$PWD/.carry/hw
FINAL=$OUT
for b in perf_spgemm perf_spgemm_ex; do gunzip -f $D/$b.gz; chmod +x $D/$b; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
M="rmat:19:2 rmat:20:2 rmat:20:3"
timeout 200 $D/perf_spgemm_ex --space cuda --no-baselines --json $OUT/ex.json $M > $OUT/ex.log 2>&1; echo ex rc=$?
timeout 200 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new.json $M > $OUT/new.log 2>&1; echo new rc=$?
grep -E "^spgemm .*(spk |cusparse-spgemm |kk-spgemm)" $OUT/ex.log $OUT/new.log | awk '{print $1, $3, $4, $9}'
