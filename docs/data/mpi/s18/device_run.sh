#!/bin/bash
# Eighteenth session (nvidia-h200-x2 lent, not x4): where the distributed
# product's time goes at 1 and 2 GPUs.
#   STEP=steps: single-GPU spk (perf_spgemm, no baselines) on poisson3d:300
#     and on the sizes one rank multiplies at 2 and 4 GPUs (poisson3d:238,
#     :189); then perf_dist_<BIN> one-call C = A*A at NPS ranks with each
#     step fenced (median of 3 step-timed products, local.* the local
#     product's phases).
#   STEP=perf: perf_tests/gpu/dist_ab.sh over BINS (A/B in turn).
#   STEP=tests: the MPI tests (spk_mpi_tests) at NPS ranks.
# CARRY (default .carry/x18): perf_dist_<bin>.gz, perf_spgemm.gz (build-cuda-perfkk).
#   run(kind=nvidia-h200-x2, carry=[".carry/x18"], command="STEP=steps bash docs/data/mpi/s18/device_run.sh")
set -uo pipefail
C=${CARRY:-.carry/x18}
export D=.s18
OUT=${OUT:-/tmp/out}
source perf_tests/gpu/unpack_carry.sh
if [ "${STEP:-steps}" = steps ]; then
  timeout 200 "$D/perf_spgemm" --space cuda --no-baselines --json "$OUT/single.json" \
    ${SIZES:-poisson3d:300 poisson3d:238 poisson3d:189} >"$OUT/single.log" 2>&1
  grep -a "^spgemm .* spk " "$OUT/single.log" | awk '{print "single", $2, $7, $10, $11, $NF}'
  for np in ${NPS:-1 2}; do
    for b in ${BINS:-steps}; do
      tag=${b}_np$np
      timeout 200 $MPI -np "$np" "$D/perf_dist_$b" ${M:-local:poisson3d:300} --op spgemm \
        --repeat 5 --warmup 2 --space cuda --json "$OUT/$tag.json" $MAP >"$OUT/$tag.log" 2>&1
      echo "$tag rc=$? ms=$(grep -a '^dist_spgemm' "$OUT/$tag.log" | awk '{print $8}')"
      grep -a "^# steps\|^# host_steps" "$OUT/$tag.log"
    done
  done
elif [ "$STEP" = tests ]; then
  NPS="${NPS:-1 2}" bash perf_tests/gpu/mpi_unit_tests.sh >/dev/null 2>&1
  grep -a "==\|PASSED\|FAILED\|rc=" "$OUT/mpi_tests.txt"
else
  bash perf_tests/gpu/dist_ab.sh
fi
