#!/bin/bash
# A/B: prev = 05dcb57; new = long rows whose distinct columns fit a team table
# go to a team bin in numeric. Suite without G3_circuit, alternating; new with --check;
# CUDA unit tests.
D=$PWD/.carry/sp
for b in perf_spgemm perf_spgemm_prev spk_unit_tests; do [ -f $D/$b.gz ] && gunzip -f $D/$b.gz; chmod +x $D/$b 2>/dev/null; done
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
[ -x $D/spk_unit_tests ] && { timeout 200 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo unit rc=$?; tail -3 $OUT/unit_tests_cuda.txt; }
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_prev --space cuda --no-baselines --json $OUT/prev$r.json $M > $OUT/prev$r.log 2>&1; echo prev rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
timeout 300 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $M > $OUT/check.log 2>&1; echo check rc=$?
grep "^# check" $OUT/check.log | grep -vc matches
grep -c "^# check" $OUT/check.log
cd $OUT && tar czf $FINAL/run.tgz . && ls $OUT
