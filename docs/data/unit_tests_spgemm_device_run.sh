#!/bin/bash
D=$PWD/.carry/sg
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m SPK_TEST_DATA_DIR=$PWD/unit_tests/data
timeout 200 $D/spk_unit_tests > $OUT/unit_tests_cuda_spgemm.txt 2>&1; echo "unit rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $OUT/unit_tests_cuda_spgemm.txt | head -20
