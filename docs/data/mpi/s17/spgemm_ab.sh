#!/bin/bash
# Single-GPU SpGEMM after this session's stream changes (bin streams made per parent
# instance with cudaStreamCreateWithPriority instead of partition_space; spk's CUDA pool
# without inserted cross-stream waits): the suite, perf_base (the sixteenth session's
# final perf_spgemm, .carry/r16f) against perf_spgemm (build-cuda-perfkk, this change) in
# turn, ROUNDS rounds, then --check; geometric means against cuSPARSE.
#   run(kind=nvidia-h100-x1, carry=[".carry/x17b"], command="ROUNDS=2 bash docs/data/mpi/s17/spgemm_ab.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup "${CARRY:-.carry/x17b}" perf_base perf_spgemm || exit 1
spk_dev_ab base perf_base "${ROUNDS:-2}"
spk_dev_check
spk_dev_geomeans "$OUT"/base*.json "$OUT"/new*.json
spk_dev_finish spgemm_ab.tgz
