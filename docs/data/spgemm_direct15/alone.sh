#!/bin/bash
# Each implementation alone, in a process of its own per matrix: Kokkos Kernels'
# SPGEMM_KK (perf_spgemm --only=kk-spgemm-kk) and spk's one call, sorted and
# unsorted (--only=spk-onecall,spk-onecall-unsorted), the quick suite, ROUNDS
# rounds (3 warm-ups and 10 timed runs each unless FLAGS says otherwise),
# 2 OpenMP threads, glibc's thresholds fixed as in run.sh.  In one
# process, what ran before Kokkos Kernels moved its time (rmat:14:8 43 or 65 ms).
#   ROUNDS=3 BIN=build/perf_tests/perf_spgemm OUT=alone bash docs/data/spgemm_direct15/alone.sh
#   python3 docs/data/spgemm_direct15/alone.py alone
BIN=${BIN:?perf_spgemm built with Kokkos Kernels}
OUT=${OUT:-$PWD/alone}
mkdir -p $OUT
M=${SPK_MATRIX_DIR:-../shared/matrices}
export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824}
echo "GLIBC_TUNABLES=$GLIBC_TUNABLES" >$OUT/tunables.txt
MATS="poisson2d:300 poisson3d:40 random:100000:100000:8 rmat:14:8"
for f in cage11 TSOPF_RS_b39_c30 poisson3Da wiki-Vote ca-CondMat delaunay_n16 Maragal_6; do
  MATS="$MATS $M/$f.mtx.gz"
done
for run in $(seq 1 ${ROUNDS:-3}); do
  i=0
  for m in $MATS; do
    i=$((i + 1))
    for only in kk-spgemm-kk spk-onecall,spk-onecall-unsorted; do
      tag=${only%%,*}
      $BIN --space openmp --no-baselines ${FLAGS---warmup 3 --repeat 10} --only=$only --json $OUT/${tag}_${i}_$run.json $m \
        >$OUT/${tag}_${i}_$run.log 2>&1 || echo "failed: $only $m run $run"
    done
  done
  echo "round $run done"
done
