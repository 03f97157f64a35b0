#!/bin/bash
# Distributed SpMV weak scaling 1 -> 2 -> 4 GPUs (one rank per GPU) with
# 64M rows of a 2-D Poisson matrix per GPU, each rank generating its own rows
# (local:poisson2d:N).  Run on nvidia-h200-x4.
set -uo pipefail
BIN=.carry/mpi2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMP_NUM_THREADS=4 OMP_PROC_BIND=false LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x OMP_NUM_THREADS -x OMP_PROC_BIND -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH"
MAP=--kokkos-map-device-id-by=mpi_rank
nvidia-smi -L | tee "$OUT/env.txt"
run() {  # np n
  echo "== weak np=$1 local:poisson2d:$2" | tee -a "$OUT/summary.txt"
  timeout 170 $MPI -np $1 "$BIN/perf_dist" local:poisson2d:$2 --op spmv --repeat 20 --warmup 3 --space cuda \
    --json "$OUT/spmv_weak_local_np$1.json" $MAP 2>&1 | grep -a "dist_\|#\|rror" | tee -a "$OUT/summary.txt"
}
run 1 8000
run 2 11314
run 4 16000
