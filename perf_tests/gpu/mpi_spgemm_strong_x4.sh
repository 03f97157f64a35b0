#!/bin/bash
# Distributed SpGEMM strong scaling 1 -> 2 -> 4 GPUs (C = A*A, poisson3d:120), current local SpGEMM.
set -uo pipefail
BIN=.carry/mpi2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMP_NUM_THREADS=4 OMP_PROC_BIND=false LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x OMP_NUM_THREADS -x OMP_PROC_BIND -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH"
MAP=--kokkos-map-device-id-by=mpi_rank
for np in 1 2 4; do
  echo "== spgemm strong np=$np" | tee -a "$OUT/summary.txt"
  timeout 150 $MPI -np $np "$BIN/perf_dist" poisson3d:120 --op spgemm --repeat 3 --warmup 1 --space cuda \
    --json "$OUT/spgemm_strong_np$np.json" $MAP 2>&1 | grep -a "dist_\|#\|rror" | tee -a "$OUT/summary.txt"
done
