#!/bin/bash
# CUDA unit tests (Spgemm, HashAccumulator, MemoryPool bodies) with HashMix, one H100.
D=$PWD/.carry/ut4
gunzip -f $D/spk_unit_tests.gz; chmod +x $D/spk_unit_tests
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
timeout 150 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo ut rc=$?
tail -5 $OUT/unit_tests_cuda.txt
