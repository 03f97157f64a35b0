#!/bin/bash
# CUDA unit tests (Spgemm, HashAccumulator, MemoryPool bodies) of the session's final code, one H100.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_unpack $PWD/.carry/ut3 spk_unit_tests
spk_dev_unit_tests 150 unit_tests_cuda_final.txt
