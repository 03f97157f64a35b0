#!/bin/bash
# Distributed SpGEMM A/B: perf_dist binaries run in turn, one-call C = A*A
# (median of REPEAT after 2 warm-ups), ROUNDS rounds over the matrices M and
# rank counts NPS; prints "<bin>_<matrix>_np<P>_<round> rc=.. ms=.." per run
# and packs the JSON and logs into $OUT/$TGZ.
#   D       folder holding perf_dist_<bin> for each bin of BINS (and perf_spgemm)
#   BINS    (default: base new)      M (default: local:poisson3d:300 local:poisson3d:200)
#   NPS     (default: 1 2)           ROUNDS (default: 3)   REPEAT (default: 7)
#   TIMEOUT seconds per run (default: 150)   TGZ (default: runs.tgz)
#   SINGLE=1: each round first times single-GPU spk (perf_spgemm) on the same matrices.
# Sourced settings: perf_tests/gpu/mpi_env.sh (mpirun as root, one rank per GPU).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
M=${M:-local:poisson3d:300 local:poisson3d:200}
for run in $(seq 1 "${ROUNDS:-3}"); do
  [ "${SINGLE:-0}" = 1 ] && [ -x "$D/perf_spgemm" ] &&
    timeout "${TIMEOUT:-150}" "$D/perf_spgemm" --space cuda --no-baselines \
      --json "$OUT/single_$run.json" $(echo $M | sed 's/local://g') >"$OUT/single_$run.log" 2>&1 &&
    grep -a "^spgemm .* spk-onecall " "$OUT/single_$run.log" | awk '{print "single", $2, $7}'
  for m in $M; do
    for np in ${NPS:-1 2}; do
      for b in ${BINS:-base new}; do
        tag=${b}_$(echo "${m#local:}" | tr ':' '_')_np${np}_$run
        timeout "${TIMEOUT:-150}" $MPI -np "$np" "$D/perf_dist_$b" "$m" --op spgemm \
          --repeat "${REPEAT:-7}" --warmup 2 --space cuda --json "$OUT/$tag.json" $MAP \
          >"$OUT/$tag.log" 2>&1
        echo "$tag rc=$? ms=$(grep -a '^dist_spgemm' "$OUT/$tag.log" | awk '{print $8}')"
      done
    done
  done
done
(cd "$OUT" && tar czf "${TGZ:-runs.tgz}" ./*_[0-9].json ./*_[0-9].log && rm -f ./*_[0-9].json ./*_[0-9].log)
