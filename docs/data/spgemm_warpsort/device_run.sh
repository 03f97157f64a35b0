#!/bin/bash
# The SpGEMM suite on one H100 with warp-sorted rows (defaults), checked
# against the serial reference, then the same binary with warp sort off.
D=$PWD/.carry/ws
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 200 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100_warpsort.json $M > $OUT/spgemm_cuda_h100_warpsort.log 2>&1
echo perf rc=$?
grep "check" $OUT/spgemm_cuda_h100_warpsort.log | grep -v matches | head
SPK_SPGEMM_WARP_SORT=0:0:0:0 timeout 150 $D/perf_spgemm --space cuda --no-baselines --json $OUT/spgemm_cuda_h100_nowarpsort.json $M > $OUT/spgemm_cuda_h100_nowarpsort.log 2>&1
echo perf off rc=$?
