#!/bin/bash
# Issue 6 with the kinds lent (4 x H200): distributed C = A*A strong scaling on
# 1, 2, 4 GPUs (one rank per GPU) for ~1e6-row matrices and the largest real
# matrix, and single-GPU spk / cuSPARSE in the same job.
set -uo pipefail
D=${D:-.carry/i6}  # perf_dist, perf_spgemm (CUDA builds) and G3_circuit.mtx.gz
source "$(dirname "$0")/mpi_env.sh"
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
