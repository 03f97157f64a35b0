#!/bin/bash
# Quiet CPU measurements: 2 OpenMP threads on the device machine's host CPU.
D=$PWD/.carry/sg  # binaries (perf_spgemm, cpu/*) and matrices (m/) carried to the device
export SPK_MATRIX_DIR=$D/m OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz" > $OUT/cpu.txt
cat $OUT/cpu.txt
timeout 250 $D/cpu/perf_spmv --space openmp --repeat 20 --warmup 3 --json $OUT/spmv_openmp_2threads_quiet.json > $OUT/spmv_openmp.log 2>&1; echo "spmv rc=$?"
timeout 250 $D/cpu/perf_spgemm --space openmp --quick --no-baselines --json $OUT/spgemm_openmp_2threads_quiet.json > $OUT/spgemm_openmp.log 2>&1; echo "spgemm rc=$?"
