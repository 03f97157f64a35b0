#!/bin/bash
# One H100: the CUDA unit tests, the SpGEMM suite with --check (all 24 matrices
# against the serial reference), the suite again (run-to-run spread), and the
# host timeline (--trace, no fences) of seven small products.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/fin2 perf_spgemm spk_unit_tests
spk_dev_unit_tests 200
timeout 330 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100.json $M > $OUT/spgemm_cuda_h100.log 2>&1; echo perf rc=$?
grep "^# check" $OUT/spgemm_cuda_h100.log | grep -vc matches
spk_dev_suite suite2 perf_spgemm
F=""; for f in cage10 lhr07 wiki-Vote ca-CondMat luxembourg_osm Maragal_6 Oregon-2; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
spk_dev_finish
