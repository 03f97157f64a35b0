#!/bin/bash
# Windowed (partitioned) numeric of the bitmap long rows, on one H100:
# CUDA unit tests, then an A/B of the same perf_spgemm binary with
# SPK_SPGEMM_PARTITION=0 (dense global slab, as before) and =1 (default),
# alternated twice over the suite, then the suite with --check (without rmat:18:8).
D=$PWD/.carry/win
FINAL=$OUT; OUT=$(mktemp -d)
for b in perf_spgemm spk_unit_tests; do gunzip -f $D/$b.gz; chmod +x $D/$b; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
timeout 120 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo ut rc=$?
tail -4 $OUT/unit_tests_cuda.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  for p in 0 1; do
    SPK_SPGEMM_PARTITION=$p timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/p${p}_$r.json $M > $OUT/p${p}_$r.log 2>&1; echo p$p rc=$?
  done
done
M2=$(echo $M | sed 's/rmat:18:8//')
timeout 150 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $M2 > $OUT/check.log 2>&1; echo check rc=$?
grep "^# check" $OUT/check.log | grep -vc matches
grep -c "^# check" $OUT/check.log
cd $OUT && tar czf $FINAL/run.tgz . && ls -la $OUT
