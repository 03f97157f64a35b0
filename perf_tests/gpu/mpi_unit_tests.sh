#!/bin/bash
# The MPI unit tests (every enabled backend, Cuda included) on the GPUs of
# one host, one rank per GPU, for each rank count in NPS (default: 1 2 4 8
# up to the GPUs present).  $D holds spk_mpi_tests (CUDA build) and m/ (the
# real matrices the tests read: cage10 and small/{bcsstk03,west0479,ash219,
# empty_3x4}).  Output: $OUT/mpi_tests.txt.
set -uo pipefail
D=${D:-.carry/x8}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
G=$(nvidia-smi -L | grep -c ^GPU)
NPS=${NPS:-$(for n in 1 2 4 8; do [ "$n" -le "$G" ] && echo -n "$n "; done)}
export SPK_MATRIX_DIR=$PWD/$D/m
rc=0
for np in $NPS; do
  echo "== spk_mpi_tests np=$np" | tee -a "$OUT/mpi_tests.txt"
  timeout 240 $MPI -np "$np" -x SPK_MATRIX_DIR $D/spk_mpi_tests $MAP 2>&1 |
    grep -a "PASSED\|FAILED\|OK \]\|rror\|Skipped" | tee -a "$OUT/mpi_tests.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
echo "mpi tests rc=$rc" | tee -a "$OUT/mpi_tests.txt"
exit $rc
