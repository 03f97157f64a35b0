#!/bin/bash
# Quiet CPU measurement of SpGEMM: 2 OpenMP threads on the device machine's
# host CPU, the host build of perf_spgemm (Kokkos 3.4.01 + Kokkos Kernels
# 3.4.01, built on the workstation), the quick suite.
#   run(kind=nvidia-h100-x1, carry=[".carry/cpuq"], command="bash docs/data/cpu_quiet_spgemm_run.sh")
D=$PWD/.carry/cpuq  # perf_spgemm (build/), m/ (the quick suite's real matrices)
OUT=${OUT:-/tmp/out}
export SPK_MATRIX_DIR=$D/m OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz" >$OUT/cpu.txt
for run in 1 2; do
  timeout 200 $D/perf_spgemm --space openmp --quick --no-baselines \
    --json $OUT/spgemm_openmp_2threads_quiet_onecall_$run.json >$OUT/spgemm_openmp_$run.log 2>&1
  echo "spgemm run $run rc=$?"
  grep -a "summary" $OUT/spgemm_openmp_$run.log
done
