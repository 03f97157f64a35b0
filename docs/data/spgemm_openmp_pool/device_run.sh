#!/bin/bash
# Host SpGEMM on the device machine's host CPU (16-core Xeon), 2 OpenMP
# threads: host builds of perf_spgemm (Kokkos 3.4.01 + Kokkos Kernels 3.4.01,
# built on the workstation) run in turn, RUNS rounds, the quick suite.
#   run(kind=nvidia-h100-x1, carry=[".carry/cpu3"],
#       command="RUNS=3 BINS='base nopf final final0' bash docs/data/spgemm_openmp_pool/device_run.sh")
# A name ending in 0 runs that binary with SPK_MEMORY_POOL=0 (spk's pools off).
# With UT=1 it first runs the CUDA unit tests in .carry/cpu3/spk_unit_tests.gz.
D=$PWD/.carry/cpu3  # perf_<name> binaries, m/ (the quick suite's real matrices)
OUT=${OUT:-/tmp/out}
export SPK_MATRIX_DIR=$D/m OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
if [ "${UT:-0}" = 1 ]; then
  gunzip -f $D/spk_unit_tests.gz && chmod +x $D/spk_unit_tests
  LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH timeout 200 $D/spk_unit_tests \
    --gtest_filter='cuda.*' >$OUT/unit_tests_cuda.txt 2>&1
  echo "cuda unit tests rc=$?"; tail -3 $OUT/unit_tests_cuda.txt
fi
{ cat /sys/kernel/mm/transparent_hugepage/enabled; lscpu; } >$OUT/host.txt
for run in $(seq 1 ${RUNS:-3}); do
  for b in ${BINS:-base final}; do
    bin=$b; pool=1
    case $b in *0) bin=${b%0}; pool=0 ;; esac
    SPK_MEMORY_POOL=$pool timeout 200 $D/perf_$bin --space openmp --quick --no-baselines \
      ${FLAGS} --json $OUT/${b}_$run.json >$OUT/${b}_$run.log 2>&1
    echo "$b run $run rc=$?"; grep -a "spk-onecall over" $OUT/${b}_$run.log
  done
done
cd $OUT && tar czf runs.tgz ./*_[0-9].json ./*_[0-9].log && rm -f ./*_[0-9].json ./*_[0-9].log
