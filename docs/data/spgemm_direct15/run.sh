#!/bin/bash
# Host SpGEMM, 2 OpenMP threads on the 2-core workstation (nothing else
# running): host builds of perf_spgemm (Kokkos 3.4.01 + Kokkos Kernels
# 3.4.01) run in turn, ROUNDS rounds, the quick suite; OUT gets one JSON and
# one log per binary and round.  A name ending in "pf" runs that binary with
# SPK_PREFETCH=1.
#   ROUNDS=3 BINS="base slot noip" D=/path/to/binaries bash docs/data/spgemm_direct15/run.sh
D=${D:?directory with perf_<name> binaries}
OUT=${OUT:-$PWD/out}
mkdir -p $OUT
export SPK_MATRIX_DIR=${SPK_MATRIX_DIR:-../shared/matrices}
export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
# glibc with fixed thresholds (no heap trimming, mmap only above 32 MiB):
# without them, Kokkos Kernels' time on TSOPF moved between 15 and 23 ms
# with what ran before it in the process (its work arrays re-faulted on every
# call).  Fixed, every binary and library keeps its freed memory.
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824}
{ echo "GLIBC_TUNABLES=$GLIBC_TUNABLES"; cat /sys/kernel/mm/transparent_hugepage/enabled; lscpu; } >$OUT/host.txt
for run in $(seq 1 ${ROUNDS:-3}); do
  for b in ${BINS:-base slot}; do
    bin=$b; pf=0
    case $b in *pf) bin=${b%pf}; pf=1 ;; esac
    SPK_PREFETCH=$pf $D/perf_$bin --space openmp --quick --no-baselines ${FLAGS} --json $OUT/${b}_$run.json \
      >$OUT/${b}_$run.log 2>&1
    echo "$b run $run rc=$?"; grep -a "spk-onecall over" $OUT/${b}_$run.log
  done
done
