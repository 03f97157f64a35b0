#!/bin/bash
# Where rmat:18:8's and Maragal_6's time goes on the kept code (one H100): per-kernel times
# (--kernels, fenced per kernel) and ncu of the bitmap long-row symbolic on rmat:18:8.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_unpack $PWD/.carry/pr perf_spgemm
FINAL=$OUT; OUT=$(mktemp -d)
timeout 120 $D/perf_spgemm --space cuda --no-baselines --kernels rmat:18:8 rmat:16:16 $D/m/Maragal_6.mtx.gz $D/m/wiki-Vote.mtx.gz > $OUT/kernels.log 2>&1; echo kernels rc=$?
spk_dev_ncu ncu_sym_rmat18 "spgemm_binned_symbolic.*instance 4" 1 rmat:18:8
spk_dev_finish
