#!/bin/bash
D=$PWD/.carry/sg  # binaries and matrices (m/, m/small/) carried to the device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m SPK_TEST_DATA_DIR=$PWD/unit_tests/data
timeout 200 $D/spk_unit_tests > $OUT/unit_tests_cuda_spgemm.txt 2>&1; echo "unit rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $OUT/unit_tests_cuda_spgemm.txt | head -20
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 250 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100.json $M > $OUT/spgemm_cuda_h100.log 2>&1
echo perf rc=$?
grep "check" $OUT/spgemm_cuda_h100.log | grep -v matches | head
S="poisson2d:70 $D/m/cage10.mtx.gz $D/m/lhr07.mtx.gz $D/m/cavity21.mtx.gz $D/m/wiki-Vote.mtx.gz $D/m/Oregon-2.mtx.gz $D/m/p2p-Gnutella04.mtx.gz $D/m/PGPgiantcompo.mtx.gz"
timeout 120 $D/perf_spgemm --space cuda --json $OUT/spgemm_cuda_h100_small.json $S > $OUT/spgemm_cuda_h100_small.log 2>&1
echo small rc=$?
