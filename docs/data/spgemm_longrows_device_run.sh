#!/bin/bash
# H100: the SpGEMM tests (cuda, Spgemm + HashAccumulator bodies) and the
# power-law products whose long rows go to dense slabs (B wider than the
# 48 KiB scratch bitmap holds: > 393,216 columns), before/after numbers in
# docs/spgemm.md.  .carry/lr: perf_spgemm (build-cuda-perf), spk_unit_tests
# (build-cuda-sg), m/ (the real matrices the tests read).
#   run(kind=nvidia-h100-x1, carry=[".carry/lr"], command="bash docs/data/spgemm_longrows_device_run.sh")
D=$PWD/.carry/lr
OUT=${OUT:-/tmp/out}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export SPK_MATRIX_DIR=$D/m SPK_TEST_DATA_DIR=$PWD/unit_tests/data
timeout 240 $D/spk_unit_tests >$OUT/unit_tests_cuda_spgemm_longrows.txt 2>&1
echo "unit rc=$?"
grep -aE "^\[  (PASSED|FAILED) |FAILED  \]" $OUT/unit_tests_cuda_spgemm_longrows.txt | head -20
timeout 150 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_longrows_check.json \
  rmat:19:2 >$OUT/spgemm_longrows_check.log 2>&1
echo "check rc=$?"
grep -a "check\|^spgemm.*\(spk \|cusparse\|kk-\)" $OUT/spgemm_longrows_check.log | cut -c1-220
timeout 200 $D/perf_spgemm --space cuda --no-baselines --repeat 5 --json $OUT/spgemm_longrows.json \
  rmat:20:2 rmat:20:3 rmat:18:8 >$OUT/spgemm_longrows.log 2>&1
echo "perf rc=$?"
grep -a "^spgemm\|^#" $OUT/spgemm_longrows.log | cut -c1-260
