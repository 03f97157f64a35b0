#!/bin/bash
# Everything spmv needs from the GPU machine, in one go: the CUDA unit tests,
# the spk spmv CLI checks, the CG example and perf_spmv over the suite.
# Binaries are built on the workstation (CUDA Kokkos 4.6 + Kokkos Kernels 4.6
# with cuSPARSE, sm_90) and carried in $D with the shared matrices:
#   build-cuda/unit_tests/spk_unit_tests (or t: Test_Spmv.hpp alone, which
#   builds faster), build-cuda/perf_tests/perf_spmv,
#   build-cuda/examples/cg/spk_example_cg, build-cuda/tools/spk,
#   tools/test_cli_spmv.sh, and ../shared/matrices as $D/matrices
# Usage (repository root on the device machine):
#   bash .carry/spmv/spmv_device_run.sh [perf_spmv extra args]
D=${D:-.carry/spmv}
OUT=${OUT:-/tmp/spmv_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH}
export SPK_MATRIX_DIR=$D/matrices
export OMP_PROC_BIND=false
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
echo "== unit tests (cuda)"
# spk_unit_tests of a CUDA build, or a test binary of Test_Spmv.hpp alone (t).
tests=$D/spk_unit_tests
[ -x "$tests" ] || tests=$D/t
timeout 200 "$tests" --gtest_filter='cuda.spmv_*' > "$OUT/unit_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|tests ran|Failure" "$OUT/unit_cuda.log" | head -20
echo "== spk spmv CLI (cuda)"
timeout 60 bash "$D/test_cli_spmv.sh" "$D/spk" unit_tests/data > "$OUT/cli.log" 2>&1
echo "cli rc=$?"; tail -1 "$OUT/cli.log"
echo "== CG example"
for args in "poisson3d:100 --tol 1e-10" "poisson2d:1000 --tol 1e-8 --jacobi" \
            "$D/matrices/small/1138_bus.mtx.gz --tol 1e-8 --jacobi"; do
  timeout 60 "$D/spk_example_cg" $args 2>&1 | grep -v "^  \|WARNING" | tee -a "$OUT/cg.log"
done
echo "== perf_spmv"
timeout 400 "$D/perf_spmv" --space cuda --repeat 30 --warmup 5 --json "$OUT/spmv_cuda.json" "$@" \
  > "$OUT/perf.log" 2>&1
echo "perf rc=$?"; grep -E "^#" "$OUT/perf.log"
grep -E "spk-auto |cusparse-alg1|kokkoskernels-native" "$OUT/perf.log" | cut -c1-110
