#!/bin/bash
# Call 2: the same suite with spk's pool off (SPK_MEMORY_POOL=0): A/B.
D=$PWD/.carry/p1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
SPK_MEMORY_POOL=0 timeout 300 $D/perf_spgemm --space cuda --no-baselines --json $OUT/spgemm_cuda_h100_nopool.json $M > $OUT/spgemm_cuda_h100_nopool.log 2>&1
echo perf rc=$?
