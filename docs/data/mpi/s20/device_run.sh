#!/bin/bash
# Twentieth session: the nineteenth session's steps (../s19/device_run.sh:
# STEP=tests|steps|perf|var, NPS, VARS, M, ROUNDS, TRACE, PACK, ...) over
# the binaries of .carry/x20.
#   run(kind=nvidia-h100-x2, carry=[".carry/x20"], command="STEP=var NPS='2' VARS='r g' bash docs/data/mpi/s20/device_run.sh")
export CARRY=${CARRY:-.carry/x20}
exec bash "$(dirname "$0")/../s19/device_run.sh"
