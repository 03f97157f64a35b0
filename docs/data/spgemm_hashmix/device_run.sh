#!/bin/bash
# HashMix (fmix32) instead of the identity hash in the binned hash tables, on one H100:
# CUDA unit tests; the suite with the binary of ../spgemm_extract (ex) and the HashMix one,
# alternated twice, then the new one twice more; --check without rmat:18:8.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/hm perf_spgemm perf_spgemm_ex spk_unit_tests
spk_dev_unit_tests
spk_dev_ab ex perf_spgemm_ex
for r in 3 4; do spk_dev_suite new$r perf_spgemm; done
spk_dev_check
timeout 60 $D/perf_spgemm --space cuda --no-baselines --kernels rmat:18:8 $D/m/wiki-Vote.mtx.gz $D/m/Oregon-2.mtx.gz > $OUT/kernels.log 2>&1; echo kernels rc=$?
timeout 200 $D/perf_spgemm --space cuda --no-baselines --check --repeat 1 --warmup 0 --json $OUT/check_rmat18.json rmat:18:8 > $OUT/check_rmat18.log 2>&1; echo check18 rc=$?
grep "^# check" $OUT/check_rmat18.log
spk_dev_finish
