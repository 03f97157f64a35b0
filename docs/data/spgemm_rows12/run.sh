#!/bin/bash
# Issue 4, twelfth session, one H100: the CUDA unit tests of the code on main
# (f2b8a0b's analysis kernel had not been run through them on a GPU), then the
# analysis kernel's rows per thread (SPK_SPGEMM_ANALYZE_ROWS = 1, 2, 4; 1 is
# main) and a single team reduction of the team's three sums (perf_one, built
# with -DSPK_EXP_ONE_REDUCE), ROUNDS rounds in turn, plus --check of the
# variants.  Branch exp/analysis-rows12; binaries and matrices in .carry/r12.
#   run(kind=nvidia-h100-x1, carry=[".carry/r12"], command="bash docs/data/spgemm_rows12/run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/r12 perf_spgemm perf_one spk_unit_tests
spk_dev_unit_tests 300 unit_tests_cuda.txt
for r in $(seq 1 "${ROUNDS:-2}"); do
  for rows in 1 2 4; do spk_dev_suite "rows${rows}_$r" perf_spgemm SPK_SPGEMM_ANALYZE_ROWS=$rows; done
  spk_dev_suite "one_$r" perf_one
done
spk_dev_check SPK_SPGEMM_ANALYZE_ROWS=4
timeout 150 "$D/perf_one" --space cuda --no-baselines --check --json "$OUT/check_one.json" $M2 \
  >"$OUT/check_one.log" 2>&1
echo "check one rc=$?"; grep "^# check" "$OUT/check_one.log" | grep -vc matches
spk_dev_logs kernels "--kernels --repeat 10" "perf_spgemm perf_one" poisson2d:1000 \
  $D/m/G3_circuit.mtx.gz $D/m/Maragal_6.mtx.gz
SPK_SPGEMM_ANALYZE_ROWS=4 spk_dev_logs kernels4 "--kernels --repeat 10" perf_spgemm \
  poisson2d:1000 $D/m/G3_circuit.mtx.gz $D/m/Maragal_6.mtx.gz
spk_dev_geomeans $OUT/rows*.json $OUT/one*.json
spk_dev_finish rows12.tgz
