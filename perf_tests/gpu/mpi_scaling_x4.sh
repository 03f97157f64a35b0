#!/bin/bash
# 4 x H200 (nvidia-h200-x4), one rank per GPU, the binaries in $BIN:
#   weak:   distributed SpMV, 64M rows of a 2-D Poisson matrix per GPU, each
#           rank generating its own rows (local:poisson2d:N), 1 -> 2 -> 4 GPUs;
#   strong: distributed SpGEMM C = A*A on poisson3d:120, 1 -> 2 -> 4 GPUs.
#   run(kind=nvidia-h200-x4, carry=[".carry/mpi2"], command="bash perf_tests/gpu/mpi_scaling_x4.sh weak")
set -uo pipefail
BIN=${BIN:-.carry/mpi2}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
nvidia-smi -L | tee "$OUT/env.txt"
run() {  # name np matrix args...
  local name=$1 np=$2 matrix=$3
  shift 3
  echo "== $name np=$np $matrix" | tee -a "$OUT/summary.txt"
  timeout 170 $MPI -np "$np" "$BIN/perf_dist" "$matrix" "$@" --space cuda \
    --json "$OUT/${name}_np$np.json" $MAP 2>&1 | grep -a "dist_\|#\|rror" | tee -a "$OUT/summary.txt"
}
if [ "${1:-weak}" = weak ]; then
  run spmv_weak_local 1 local:poisson2d:8000 --op spmv --repeat 20 --warmup 3
  run spmv_weak_local 2 local:poisson2d:11314 --op spmv --repeat 20 --warmup 3
  run spmv_weak_local 4 local:poisson2d:16000 --op spmv --repeat 20 --warmup 3
else
  for np in 1 2 4; do run spgemm_strong "$np" poisson3d:120 --op spgemm --repeat 3 --warmup 1; done
fi
