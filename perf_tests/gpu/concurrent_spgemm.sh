#!/bin/bash
# Is the slowdown of the distributed SpGEMM with more ranks in the ranks'
# communication or in the processes themselves?  One perf_spgemm per GPU, all
# at once and with no MPI, on the same matrix; compare with one alone.
#   D: folder with perf_spgemm (CUDA build).  Output: $OUT/concurrent.txt
set -uo pipefail
D=${D:-.carry/x8}
OUT=${OUT:-/tmp/out}
M=${M:-poisson3d:100}
mkdir -p "$OUT"
G=$(nvidia-smi -L | grep -c ^GPU)
run() {  # gpu tag
  CUDA_VISIBLE_DEVICES=$1 $D/perf_spgemm --space cuda --no-baselines --repeat 10 "$M" 2>&1 |
    grep -a "^spgemm.*spk" | sed "s/^/$2 gpu$1 /"
}
run 0 alone >>"$OUT/concurrent.txt"
for g in $(seq 0 $((G - 1))); do run "$g" "concurrent$G" >"$OUT/c$g.tmp" & done
wait
cat "$OUT"/c*.tmp >>"$OUT/concurrent.txt"
rm -f "$OUT"/c*.tmp
cat "$OUT/concurrent.txt"
