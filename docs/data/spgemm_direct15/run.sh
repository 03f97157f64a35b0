#!/bin/bash
# docs/data/spgemm_ordered13/run.sh (host SpGEMM, 2 OpenMP threads, binaries in
# turn, ROUNDS rounds of the quick suite) with glibc's thresholds fixed: no heap
# trimming, mmap only above 32 MiB.  Without them, Kokkos Kernels' time on TSOPF
# moved between 15 and 23 ms with what ran before it in the process (its work
# arrays re-faulted on every call).  Fixed, every binary and library keeps its
# freed memory.  OUT/tunables.txt records the setting.
#   ROUNDS=3 BINS="base pool nt2" D=/path/to/binaries bash docs/data/spgemm_direct15/run.sh
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824}
mkdir -p "${OUT:=$PWD/out}" && export OUT
echo "GLIBC_TUNABLES=$GLIBC_TUNABLES" >"$OUT/tunables.txt"
exec bash "$(dirname "$0")/../spgemm_ordered13/run.sh" "$@"
