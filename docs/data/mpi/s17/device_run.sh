#!/bin/bash
# Seventeenth session, one GPU (no multi-GPU kind was lent): the distributed
# product with its ghost block and C's plan on a second, high-priority stream
# while the local numeric runs (new) against the code before (base).
#   STEP=tests: the CUDA unit tests, then the MPI tests on 1 and 2 ranks (two
#     ranks share the one GPU);
#   STEP=perf: perf_dist one-call C = A*A, base and new in turn, ROUNDS rounds,
#     at NPS ranks (ranks beyond the GPUs share them: only np=1 times mean much).
# CARRY (default .carry/x17): perf_dist_base.gz (build-cuda-mpi at 1e74094), perf_dist_ov.gz
# (the overlap, 6a15783), perf_dist_new.gz (and the shared blocks at one rank, 282ef19),
# perf_dist_num.gz (numeric overlap, 24de728), perf_dist_pre.gz (copies beside the
# exchanges, 911f7ac), perf_dist_stg.gz (staged exchanges on their instance, 53ce4d4), perf_dist_rev.gz (review),
# spk_mpi_tests.gz (build-cuda-mpi, last build), spk_unit_tests.gz (build-cuda-ut), perf_spgemm.gz
# (build-cuda-perfkk; SINGLE=1 times single-GPU spk on the same matrices first),
# m/ (cage10, small/{ash219,bcsstk03,empty_3x4,west0479}).  BINS picks the binaries.
#   run(kind=nvidia-h100-x1, carry=[".carry/x17"], command="STEP=tests bash docs/data/mpi/s17/device_run.sh")
#   run(kind=nvidia-h100-x1, carry=[".carry/x17"], command="STEP=perf ROUNDS=3 bash docs/data/mpi/s17/device_run.sh")
set -uo pipefail
C=${CARRY:-.carry/x17}
export D=.s17  # relative: mpi_unit_tests.sh reads $PWD/$D/m
OUT=${OUT:-/tmp/out}
source perf_tests/gpu/unpack_carry.sh
if [ "${STEP:-tests}" = tests ]; then
  timeout 300 "$D/spk_unit_tests" >"$OUT/unit_tests_cuda.txt" 2>&1
  echo "unit tests rc=$?"; grep -a "PASSED\|FAILED\|SKIPPED \[" "$OUT/unit_tests_cuda.txt" | head
  NPS="${NPS:-1 2}" bash perf_tests/gpu/mpi_unit_tests.sh >/dev/null 2>&1
  grep -a "==\|PASSED\|FAILED\|rc=" "$OUT/mpi_tests.txt"
else
  bash perf_tests/gpu/dist_ab.sh
fi
