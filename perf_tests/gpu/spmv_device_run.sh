#!/bin/bash
# Everything spmv needs from the GPU machine in one go: CUDA unit tests, the
# CG example, perf_spmv over the suite (JSON), and the plot.  Binaries built
# on the workstation (CUDA Kokkos 4.6 + Kokkos Kernels 4.6, sm_90) are carried
# in $D; results go to $OUT.
#   run: bash .carry/spmv/spmv_device_run.sh [perf_spmv extra args]
D=${D:-.carry/spmv}
OUT=${OUT:-/tmp/spmv_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH}
export SPK_MATRIX_DIR=$D/matrices
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
echo "== unit tests (cuda)"
timeout 240 "$D/t" --gtest_filter='cuda.*' > "$OUT/unit_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "PASSED|FAILED|tests ran" "$OUT/unit_cuda.log" | head -20
echo "== CG example"
for args in "poisson3d:100 --tol 1e-10" "poisson2d:1000 --tol 1e-8 --jacobi" \
            "$D/matrices/small/1138_bus.mtx --tol 1e-8 --jacobi"; do
  timeout 60 "$D/spk_cg" $args 2>&1 | grep -v "^  \|WARNING" | tee -a "$OUT/cg.log"
done
echo "== perf_spmv"
timeout 420 "$D/perf_spmv" --space cuda --repeat 30 --warmup 5 --json "$OUT/spmv_cuda.json" "$@" \
  2>&1 | tee "$OUT/perf.log" | grep -v "^  sweep-"
