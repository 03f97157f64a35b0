#!/bin/bash
# Twentieth session: distributed SpGEMM at 1, 2 (and 4) GPUs.
#   STEP=tests|steps|perf: the eighteenth session's steps
#     (docs/data/mpi/s18/device_run.sh: same NPS, BINS, SIZES, M, ROUNDS, TGZ).
#   STEP=var: one-call C = A*A (perf_dist, median of REPEAT after 2 warm-ups,
#     with its fenced and host step traces) for each variant of VARS in turn,
#     ROUNDS rounds over the matrices M and rank counts NPS.  A variant is
#     BIN[:X][@NAME=VALUE]: perf_dist_BIN run with SPK_DIST_X=X (a switch of
#     an experimental build; see the data README) and the environment
#     variable NAME set to VALUE.  Prints one line per run (TRACE=1: and the
#     host step trace).
# CARRY (default .carry/x20): perf_dist_<bin>.gz, perf_spgemm.gz,
# spk_mpi_tests.gz, m/.  Every file a step leaves in $OUT other than *.tgz
# is packed into $OUT/$PACK (default step_<STEP>.tgz), so that a call of
# several steps brings back few files.
#   run(kind=nvidia-h200-x2, carry=[".carry/x20"], command="STEP=var NPS='1 2' VARS='h x x:after' bash docs/data/mpi/s20/device_run.sh")
set -uo pipefail
export CARRY=${CARRY:-.carry/x20}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ "${STEP:-steps}" = var ]; then
  C=$CARRY
  D=.s20
  source perf_tests/gpu/unpack_carry.sh
  for run in $(seq 1 "${ROUNDS:-2}"); do
    for m in ${M:-local:poisson3d:300 local:poisson3d:200}; do
      for np in ${NPS:-1 2}; do
        for v in ${VARS:-h}; do
          e=; [ "${v#*@}" != "$v" ] && e=${v#*@}
          bx=${v%%@*}
          b=${bx%%:*}
          x=; [ "$bx" != "$b" ] && x=${bx#*:}
          tag=${b}${x:+_$x}${e:+_${e%%=*}}_$(echo "${m#local:}" | tr ':' '_')_np${np}_$run
          env $e SPK_DIST_X=$x timeout "${TIMEOUT:-150}" $MPI -np "$np" -x SPK_DIST_X ${e:+-x ${e%%=*}} "$D/perf_dist_$b" "$m" \
            --op spgemm --repeat "${REPEAT:-7}" --warmup 2 --space cuda --json "$OUT/$tag.json" \
            $MAP >"$OUT/$tag.log" 2>&1
          echo "$tag rc=$? ms=$(grep -a '^dist_spgemm' "$OUT/$tag.log" | awk '{print $8}')"
          [ "${TRACE:-0}" = 1 ] && grep -a "^# host_steps" "$OUT/$tag.log" | cut -c1-2000
        done
      done
    done
  done
  rc=0
else
  bash "$(dirname "$0")/../s18/device_run.sh"
  rc=$?
fi
(cd "$OUT" && ls | grep -v '\.tgz$' >/tmp/pack.lst; [ -s /tmp/pack.lst ] &&
  tar czf "${PACK:-step_${STEP:-steps}.tgz}" -T /tmp/pack.lst && xargs rm -f </tmp/pack.lst)
exit $rc
