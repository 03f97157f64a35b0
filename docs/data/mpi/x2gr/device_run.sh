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
# (the loop this call ran is perf_tests/gpu/dist_ab.sh, with 120 s per run)
ROUNDS=${RUNS:-3} TIMEOUT=120 bash perf_tests/gpu/dist_ab.sh
