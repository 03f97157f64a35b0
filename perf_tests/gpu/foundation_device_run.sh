#!/usr/bin/env bash
# Foundation checks on the GPU machine (run by the device tool from the repo
# root).  Expects CUDA builds of spk_unit_tests, perf_convert, spk and
# spk_example_basic in $BIN (default .carry/foundation) and the test matrices
# in $BIN/matrices.  Writes logs and JSON under $OUT.
set -u
BIN=${BIN:-.carry/foundation}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export SPK_MATRIX_DIR=$PWD/$BIN/matrices
# The tests look for their data in the build tree's source path.
mkdir -p /work/main/unit_tests
[ -e /work/main/unit_tests/data ] || ln -s "$PWD/unit_tests/data" /work/main/unit_tests/data
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee "$OUT/gpu.txt"
export OMP_PROC_BIND=spread OMP_PLACES=threads OMP_NUM_THREADS=8
echo "== unit tests (all backends)"
"$BIN/spk_unit_tests" 2>&1 | tee "$OUT/unit_tests_cuda.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]"
echo "== example"
"$BIN/spk_example_basic" poisson3d:100 2>&1 | tail -2
echo "== perf_convert (cuda)"
"$BIN/perf_convert" --space cuda --repeat 10 --warmup 3 poisson2d:2000 poisson3d:150 \
  random:4000000:4000000:8 rmat:22:16 random:8000:8000:800 "$SPK_MATRIX_DIR"/*.mtx.gz \
  --json "$OUT/perf_convert_cuda.json" 2>&1 | grep -v "^  " | tee "$OUT/perf_convert_cuda.log" | tail -60
