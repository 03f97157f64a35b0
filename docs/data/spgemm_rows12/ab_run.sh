#!/bin/bash
# Issue 4, twelfth session, one H100: the analysis' rows per thread chosen
# by the number of rows (spgemm_analyze_rows_per_thread), against the code
# before it (perf_base: exp/analysis-rows12's binary of call 1 with its knob
# unset, i.e. main a45c489's one row per thread).  The CUDA unit tests of the
# new code, ROUNDS suite rounds of base and new in turn, --check, and fenced
# per-kernel times of both on four matrices.  Binaries and all real matrices
# but G3_circuit (carry limit) in .carry/r12b.
#   run(kind=nvidia-h100-x1, carry=[".carry/r12b"], command="bash docs/data/spgemm_rows12/ab_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_ab_call .carry/r12b poisson2d:1000 poisson3d:100 random:1000000:1000000:8 \
  .carry/r12b/m/Maragal_6.mtx.gz
