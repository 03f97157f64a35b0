#!/bin/bash
# Issue 4, twelfth session, one H100: the long-row bitmap numeric at the
# columns' ranks in C's row (see README) against main e6171da (perf_base):
# the CUDA unit tests of the change, ROUNDS rounds of both in turn, --check,
# fenced kernels on the bitmap-path matrices.  CARRY (default .carry/r12c)
# holds the binaries and all real matrices but G3_circuit.
#   run(kind=nvidia-h100-x1, carry=[".carry/r12c"], command="bash docs/data/spgemm_ranks12/ab_run.sh")
#   run(kind=nvidia-h100-x1, carry=[".carry/r12d"], command="CARRY=.carry/r12d ROUNDS=2 bash docs/data/spgemm_ranks12/ab_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
C=${CARRY:-.carry/r12c}
spk_dev_ab_call $C rmat:18:8 rmat:16:16 $C/m/Maragal_6.mtx.gz $C/m/Oregon-2.mtx.gz \
  $C/m/wiki-Vote.mtx.gz $C/m/PGPgiantcompo.mtx.gz
