#!/bin/bash
# One call on the 2-GPU device kind (nvidia-h200-x2), one MPI rank per GPU:
# the MPI tests on the CUDA backend (device buffers staged through host and,
# if the MPI there is CUDA-aware, passed directly), then strong scaling of
# distributed SpMV and SpGEMM (1 vs 2 GPUs) and weak scaling of SpMV and CG.
# Binaries are built here (build-cuda, SPK_ENABLE_MPI=ON) and carried in
# $BIN (default .carry/mpi); results land in $OUT.
#   run(kind=nvidia-h200-x2, carry=[".carry/mpi"],
#       command="bash .carry/mpi/mpi_device_run.sh")
set -uo pipefail
BIN=${BIN:-.carry/mpi}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
MPI="$MPI -x SPK_GPU_AWARE_MPI"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
{
  nvidia-smi -L
  mpirun --version | head -1
  ompi_info --parsable --all 2>/dev/null | grep -i "mpi_built_with_cuda_support:value" || true
  ldd "$BIN/perf_dist" | grep "not found" || echo "all libraries found"
} 2>&1 | tee "$OUT/env.txt"

export SPK_GPU_AWARE_MPI=
for np in 1 2; do
  log "tests np=$np (MPI detection)"
  timeout 90 $MPI -np $np "$BIN/spk_mpi_tests" --gtest_filter='DistLayout.*:Dist/2.*' $MAP 2>&1 |
    tee "$OUT/tests_np$np.log" | grep -aE "PASSED|FAILED|tests ran" | tee -a "$OUT/summary.txt"
done
log "tests np=2 staged through host (SPK_GPU_AWARE_MPI=0)"
SPK_GPU_AWARE_MPI=0 timeout 90 $MPI -np 2 "$BIN/spk_mpi_tests" --gtest_filter='Dist/2.*' $MAP 2>&1 |
  tee "$OUT/tests_np2_staged.log" | grep -aE "PASSED|FAILED" | tee -a "$OUT/summary.txt"

# Strong scaling: the same matrix on 1 and 2 GPUs.
for np in 1 2; do
  log "spmv strong np=$np"
  timeout 120 $MPI -np $np "$BIN/perf_dist" poisson3d:160 poisson3d:220 rmat:20:16 --op spmv --space cuda \
    --repeat 30 --warmup 3 --json "$OUT/spmv_strong_np$np.json" $MAP 2>&1 | grep -a "dist_\|#" |
    tee -a "$OUT/summary.txt"
  log "spgemm strong np=$np"
  timeout 150 $MPI -np $np "$BIN/perf_dist" poisson3d:120 --op spgemm --space cuda --repeat 3 \
    --warmup 1 --json "$OUT/spgemm_strong_np$np.json" $MAP 2>&1 | grep -a "dist_\|#" |
    tee -a "$OUT/summary.txt"
done
# Weak scaling: about 8M rows per GPU (2D Poisson, 5 entries per row).
log "spmv weak np=1"
timeout 120 $MPI -np 1 "$BIN/perf_dist" poisson2d:2800 --op spmv --space cuda --repeat 30 \
  --warmup 3 --json "$OUT/spmv_weak_np1.json" $MAP 2>&1 | grep -a "dist_\|#" | tee -a "$OUT/summary.txt"
log "spmv weak np=2"
timeout 120 $MPI -np 2 "$BIN/perf_dist" poisson2d:3960 --op spmv --space cuda --repeat 30 \
  --warmup 3 --json "$OUT/spmv_weak_np2.json" $MAP 2>&1 | grep -a "dist_\|#" | tee -a "$OUT/summary.txt"
for np in 1 2; do
  log "cg np=$np"
  timeout 60 $MPI -np $np "$BIN/spk_example_dist_cg" 128 --space cuda $MAP 2>&1 | grep -a "dist_cg\|iter\|resid" |
    tee -a "$OUT/summary.txt"
done
cat "$OUT/summary.txt"
