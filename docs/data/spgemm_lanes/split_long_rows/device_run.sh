#!/bin/bash
# A/B: prev = 05dcb57; new = long rows whose distinct columns fit a team table
# go to a team bin in numeric. Suite without G3_circuit, alternating; new with --check;
# CUDA unit tests.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs,
# which now also record the GPU in gpu.txt.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/sp perf_spgemm perf_spgemm_prev spk_unit_tests
spk_dev_unit_tests 200
spk_dev_ab prev perf_spgemm_prev
# The whole suite, rmat:18:8 included.
CHECK_TIMEOUT=300 M2=$M spk_dev_check
spk_dev_finish
