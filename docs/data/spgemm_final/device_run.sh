#!/bin/bash
# The SpGEMM suite on one H100 on the session's final code, with --check.
D=$PWD/.carry/fin2
gunzip -f $D/perf_spgemm.gz; chmod +x $D/perf_spgemm
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 330 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100.json $M > $OUT/spgemm_cuda_h100.log 2>&1; echo perf rc=$?
grep "^# check" $OUT/spgemm_cuda_h100.log | grep -vc matches
grep -c "^# check" $OUT/spgemm_cuda_h100.log
