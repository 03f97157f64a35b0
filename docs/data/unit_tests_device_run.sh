#!/bin/bash
# Every cuda.* unit test (and the host tests) of the merged tree on the device.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$PWD/.carry/sg/m SPK_TEST_DATA_DIR=$PWD/unit_tests/data
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 400 .carry/fin/spk_unit_tests_full > $OUT/unit_tests_cuda_full.txt 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests from .* test suites ran" $OUT/unit_tests_cuda_full.txt | head -20
