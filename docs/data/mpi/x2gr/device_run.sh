#!/bin/bash
# 2 x H200, one rank per GPU: distributed SpGEMM C = A*A, the ghost product
# over all rows of A_comb (base, 2e0b5af) against the ghost product over the
# rows that reach B's ghost columns (new), binaries run in turn, RUNS rounds.
#   run(kind=nvidia-h200-x2, carry=[".carry/x2g"],
#       command="bash docs/data/mpi/x2gr/device_run.sh")
# .carry/x2g: perf_dist_base, perf_dist_new, spk_mpi_tests (the new code),
# all from build-cuda-mpi (nvcc 13, sm_90, Kokkos 4.6.01), and m/.
set -uo pipefail
export D=.carry/x2g
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
NPS="2" bash perf_tests/gpu/mpi_unit_tests.sh >/dev/null 2>&1
tail -2 "$OUT/mpi_tests.txt"
source perf_tests/gpu/mpi_env.sh
nvidia-smi -L >"$OUT/env.txt"
for run in $(seq 1 ${RUNS:-3}); do
  for m in ${M:-local:poisson3d:300 local:poisson3d:200}; do
    for np in ${NPS:-1 2}; do
      for b in ${BINS:-base new}; do
        tag=${b}_$(echo "${m#local:}" | tr ':' '_')_np${np}_$run
        timeout 120 $MPI -np "$np" $D/perf_dist_$b "$m" --op spgemm --repeat ${REPEAT:-7} \
          --warmup 2 --space cuda --json "$OUT/$tag.json" $MAP >"$OUT/$tag.log" 2>&1
        echo "$tag rc=$? ms=$(grep -a '^dist_spgemm' "$OUT/$tag.log" | awk '{print $8}')"
      done
    done
  done
done
cd "$OUT" && tar czf runs.tgz ./*_[0-9].json ./*_[0-9].log && rm -f ./*_[0-9].json ./*_[0-9].log
