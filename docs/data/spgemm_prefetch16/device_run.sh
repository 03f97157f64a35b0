#!/bin/bash
# Issue 4, sixteenth session, one H100, the code of this session (GPU kernels as in the
# twelfth session's docs/data/spgemm_ranks12; the host kernels changed).
#   STEP=tests: the CUDA unit tests, and the openmp SpGEMM tests of the nvcc build
#     (build-cuda-omp: the AVX-512 sort and the prefetch through nvcc's host pass);
#   STEP=suite: ROUNDS rounds of the suite (spk against cuSPARSE), then --check.
# CARRY (default .carry/r16): perf_spgemm (build-cuda-perfkk), spk_unit_tests
# (build-cuda-ut), spk_omp_tests (build-cuda-omp), m/ = every real matrix but G3_circuit.
#   run(kind=nvidia-h100-x1, carry=[".carry/r16"], command="STEP=tests bash docs/data/spgemm_prefetch16/device_run.sh")
#   run(kind=nvidia-h100-x1, carry=[".carry/r16"], command="STEP=suite ROUNDS=3 bash docs/data/spgemm_prefetch16/device_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
C=${CARRY:-.carry/r16}
spk_dev_setup $C perf_spgemm spk_unit_tests spk_omp_tests || exit 1
if [ "$STEP" = g3 ]; then
  for r in $(seq 1 ${ROUNDS:-3}); do
    timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/g3_$r.json $D/m/G3_circuit.mtx.gz \
      >$OUT/g3_$r.log 2>&1
    echo "g3 $r rc=$?"
  done
  timeout 150 $D/perf_spgemm --space cuda --no-baselines --check $D/m/G3_circuit.mtx.gz >$OUT/g3_check.log 2>&1
  echo "g3 check rc=$?"; grep "^# check" $OUT/g3_check.log
  spk_dev_geomeans $OUT/g3_*.json
  spk_dev_finish g3.tgz
elif [ "${STEP:-tests}" = tests ]; then
  spk_dev_unit_tests 300 unit_tests_cuda.txt
  (export OMP_NUM_THREADS=8 OMP_PROC_BIND=spread OMP_PLACES=threads
   timeout 200 $D/spk_omp_tests --gtest_filter='openmp.spgemm*:openmp.memory_pool*' \
     >$OUT/omp_spgemm_nvcc.txt 2>&1
   echo "omp tests rc=$?")
  tail -3 $OUT/omp_spgemm_nvcc.txt
  spk_dev_suite tests_round perf_spgemm
  spk_dev_geomeans $OUT/tests_round.json
  spk_dev_finish tests.tgz
else
  for r in $(seq 1 ${ROUNDS:-3}); do spk_dev_suite new$r perf_spgemm; done
  spk_dev_check
  spk_dev_geomeans $OUT/new*.json
  spk_dev_finish suite.tgz
fi
# G3_circuit, which the carry above leaves out (size), on its own (carry .carry/r16g:
# perf_spgemm and m/G3_circuit.mtx.gz), ROUNDS runs:
#   run(kind=nvidia-h100-x1, carry=[".carry/r16g"], command="STEP=g3 ROUNDS=5 CARRY=.carry/r16g bash docs/data/spgemm_prefetch16/device_run.sh")
