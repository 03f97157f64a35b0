#!/bin/bash
# Call 1: CUDA unit tests (Spgemm, HashAccumulator, MemoryPool) and the
# SpGEMM suite with spk's memory pool (default), checked against the reference.
D=$PWD/.carry/p1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m SPK_TEST_DATA_DIR=$PWD/unit_tests/data
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
timeout 170 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo "unit rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $OUT/unit_tests_cuda.txt | head -20
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 300 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100_pool.json $M > $OUT/spgemm_cuda_h100_pool.log 2>&1
echo perf rc=$?
grep "check" $OUT/spgemm_cuda_h100_pool.log | grep -v matches | head
