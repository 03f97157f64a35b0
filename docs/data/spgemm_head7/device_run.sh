#!/bin/bash
# The committed code of the seventh session (HEAD, single-GPU CUDA code unchanged since the
# fifth session's HashMix) on one H100: the CUDA unit tests (Spgemm, HashAccumulator,
# MemoryPool bodies) and the suite three times, to add runs to the GPU targets' record.
#   run(kind=nvidia-h100-x1, carry=[".carry/g7"], command="bash docs/data/spgemm_head7/device_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/g7 perf_spgemm spk_unit_tests
spk_dev_unit_tests 150 unit_tests_cuda.txt
for r in 1 2 3; do spk_dev_suite head$r perf_spgemm; done
spk_dev_finish
