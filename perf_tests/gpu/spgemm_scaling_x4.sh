#!/bin/bash
# Issue 6 with the kinds lent (4 x H200): distributed C = A*A strong scaling on
# 1, 2, 4 GPUs (one rank per GPU) for ~1e6-row matrices and the largest real
# matrix, and single-GPU spk / cuSPARSE in the same job.
set -uo pipefail
D=${D:-.carry/i6}  # perf_dist, perf_spgemm (CUDA builds) and G3_circuit.mtx.gz
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMP_NUM_THREADS=4 OMP_PROC_BIND=false LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x OMP_NUM_THREADS -x OMP_PROC_BIND -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH"
MAP=--kokkos-map-device-id-by=mpi_rank
nvidia-smi -L | tee "$OUT/env.txt"
M="poisson3d:100 random:1000000:1000000:8 $D/G3_circuit.mtx.gz"
CUDA_VISIBLE_DEVICES=0 timeout 120 $D/perf_spgemm --space cuda --no-baselines --json "$OUT/single_gpu.json" $M 2>&1 |
  grep -a "^spgemm.*\(spk \|cusparse\)" | tee -a "$OUT/summary.txt"
i=0
for m in $M; do
  i=$((i + 1))
  for np in 1 2 4; do
    echo "== m$i np=$np $m" | tee -a "$OUT/summary.txt"
    timeout 150 $MPI -np $np $D/perf_dist "$m" --op spgemm --repeat 3 --warmup 1 --space cuda \
      --json "$OUT/dist_m${i}_np$np.json" $MAP 2>&1 | grep -a "dist_\|rror" | tee -a "$OUT/summary.txt"
  done
done
