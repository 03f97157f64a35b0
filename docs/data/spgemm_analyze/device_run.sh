#!/bin/bash
# Analysis pass: long rows (> 128 entries) listed and analysed by a team each, on one H100:
# CUDA unit tests; the suite with the binary of ../spgemm_extract (ex) and the new one,
# alternated twice, then the new one twice more; --check without rmat:18:8.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/an perf_spgemm perf_spgemm_ex spk_unit_tests
spk_dev_unit_tests
spk_dev_ab ex perf_spgemm_ex
for r in 3 4; do spk_dev_suite new$r perf_spgemm; done
spk_dev_check
spk_dev_finish
