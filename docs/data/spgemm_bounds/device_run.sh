#!/bin/bash
# Analysis pass with vector lanes per row, and launch bounds for the bitmap long-row numeric
# (SPK_SPGEMM_LONG_BLOCKS=3|4), on one H100: CUDA unit tests; the suite with the binary of
# ../spgemm_extract (ex), the new one (new), new with 4 and with 3 blocks per SM, alternated
# twice; --check without rmat:18:8; ncu of the long-row numeric of rmat:18:8 with 4 blocks.
D=$PWD/.carry/lb
FINAL=$OUT; OUT=$(mktemp -d)
for b in perf_spgemm perf_spgemm_ex spk_unit_tests; do gunzip -f $D/$b.gz; chmod +x $D/$b; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
timeout 120 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo ut rc=$?
tail -4 $OUT/unit_tests_cuda.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_ex --space cuda --no-baselines --json $OUT/ex$r.json $M > $OUT/ex$r.log 2>&1; echo ex rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
  SPK_SPGEMM_LONG_BLOCKS=4 timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/b4_$r.json $M > $OUT/b4_$r.log 2>&1; echo b4 rc=$?
  SPK_SPGEMM_LONG_BLOCKS=3 timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/b3_$r.json $M > $OUT/b3_$r.log 2>&1; echo b3 rc=$?
done
M2=$(echo $M | sed 's/rmat:18:8//')
SPK_SPGEMM_LONG_BLOCKS=4 timeout 150 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $M2 > $OUT/check.log 2>&1; echo check rc=$?
grep "^# check" $OUT/check.log | grep -vc matches
grep -c "^# check" $OUT/check.log
W=$(mktemp -d)
S="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats"
SPK_SPGEMM_LONG_BLOCKS=4 timeout 100 ncu --clock-control none --kernel-name-base demangled -k "regex:spgemm_binned_numeric.*instance 4" --launch-count 1 $S -o $W/rep $D/perf_spgemm --space cuda --no-baselines --warmup 0 --repeat 1 rmat:18:8 > $OUT/ncu_run.log 2>&1; echo ncu rc=$?
ncu --import $W/rep.ncu-rep --page details > $OUT/ncu_b4_rmat18_details.txt 2>&1
cd $OUT && tar czf $FINAL/run.tgz . && ls -la $OUT
