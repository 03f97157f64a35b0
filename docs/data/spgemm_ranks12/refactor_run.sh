#!/bin/bash
# The CUDA unit tests and --check of a refactor of the bitmap kernels (shared
# scratch layout and bitmap pass; no intended change of the generated code),
# with fenced kernel times on two matrices, one per variant.
#   run(kind=nvidia-h100-x1, carry=[".carry/r12e"], command="bash docs/data/spgemm_ranks12/refactor_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/r12e perf_spgemm spk_unit_tests
spk_dev_unit_tests 300 unit_tests_cuda.txt
spk_dev_check
spk_dev_logs kernels "--kernels --repeat 10" perf_spgemm rmat:16:16 .carry/r12e/m/Maragal_6.mtx.gz
grep -h -m1 "  spk  " $OUT/kernels_*.log | grep -oE "numeric_bitmap[a-z_]*=[0-9.]*"
spk_dev_finish refactor.tgz
