#!/bin/bash
# Windowed (partitioned) numeric of the bitmap long rows, on one H100:
# CUDA unit tests, then an A/B of the same perf_spgemm binary with
# SPK_SPGEMM_PARTITION=0 (dense global slab, as before) and =1 (default),
# alternated twice over the suite, then the suite with --check (without rmat:18:8).
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/win perf_spgemm spk_unit_tests
spk_dev_unit_tests
for r in 1 2; do
  for p in 0 1; do spk_dev_suite p${p}_$r perf_spgemm SPK_SPGEMM_PARTITION=$p; done
done
spk_dev_check
spk_dev_finish
