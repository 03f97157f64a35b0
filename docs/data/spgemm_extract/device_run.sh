#!/bin/bash
# Long-row extraction reading 8 values per lane before writing, on one H100:
# CUDA unit tests; A/B against the previous binary (old = the suite's final code,
# docs/data/spgemm_final), alternated twice; --check without rmat:18:8; ncu of the
# bitmap long-row numeric on rmat:18:8.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/ex perf_spgemm perf_spgemm_old spk_unit_tests
spk_dev_unit_tests
spk_dev_ab old perf_spgemm_old
spk_dev_check
spk_dev_ncu ncu_rmat18 "spgemm_binned_numeric.*instance 4" 1 rmat:18:8
spk_dev_finish
