#!/bin/bash
# Analysis pass with vector lanes per row, and launch bounds for the bitmap long-row numeric
# (SPK_SPGEMM_LONG_BLOCKS=3|4), on one H100: CUDA unit tests; the suite with the binary of
# ../spgemm_extract (ex), the new one (new), new with 4 and with 3 blocks per SM, alternated
# twice; --check without rmat:18:8; ncu of the long-row numeric of rmat:18:8 with 4 blocks.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/lb perf_spgemm perf_spgemm_ex spk_unit_tests
spk_dev_unit_tests
for r in 1 2; do
  spk_dev_suite ex$r perf_spgemm_ex
  spk_dev_suite new$r perf_spgemm
  spk_dev_suite b4_$r perf_spgemm SPK_SPGEMM_LONG_BLOCKS=4
  spk_dev_suite b3_$r perf_spgemm SPK_SPGEMM_LONG_BLOCKS=3
done
spk_dev_check SPK_SPGEMM_LONG_BLOCKS=4
NCU_SECTIONS="SpeedOfLight WarpStateStats SourceCounters Occupancy LaunchStats" NCU_SOURCE=0 \
  spk_dev_ncu ncu_b4_rmat18 "spgemm_binned_numeric.*instance 4" 1 rmat:18:8 SPK_SPGEMM_LONG_BLOCKS=4
spk_dev_finish
