#!/bin/bash
# Short 4-GPU call (nvidia-h200-x4), one rank per GPU: the MPI tests on the
# Cuda backend with 4 ranks, SpMV weak scaling 1 -> 4 GPUs (2D Poisson,
# ~4M rows per GPU), SpMV and SpGEMM strong scaling 1 -> 4 GPUs.
#   run(kind=nvidia-h200-x4, carry=[".carry/mpi"], command="bash .carry/mpi/mpi_device_run_x4.sh")
set -uo pipefail
BIN=${BIN:-.carry/mpi}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi -L | tee "$OUT/env.txt"
log "tests np=4"
timeout 40 $MPI -np 4 "$BIN/spk_mpi_tests" --gtest_filter='DistLayout.*:Dist/2.*' $MAP 2>&1 |
  grep -aE "PASSED|FAILED" | tee -a "$OUT/summary.txt"
run() {  # name np args...
  local name=$1 np=$2; shift 2
  log "$name np=$np"
  timeout 40 $MPI -np $np "$BIN/perf_dist" "$@" --space cuda --json "$OUT/${name}_np$np.json" $MAP 2>&1 |
    grep -a "dist_\|#" | tee -a "$OUT/summary.txt"
}
run spmv_weak 1 poisson2d:2000 --op spmv --repeat 20 --warmup 3
run spmv_weak 4 poisson2d:4000 --op spmv --repeat 20 --warmup 3
run strong 1 poisson3d:100 --repeat 3 --warmup 1
run strong 4 poisson3d:100 --repeat 3 --warmup 1
