#!/bin/bash
# Strong scaling of the distributed SpGEMM C = A*A on 1, 2, 4 (, 8) GPUs of
# one host, one rank per GPU, with single-GPU spk and cuSPARSE on the same
# matrices in the same job (issues 5 and 6).
#   NPS    rank counts             (default: 1 2 4 8 up to the GPUs present)
#   M      matrices / specs        (default: the issue 6 set below)
#   D      folder with perf_dist, perf_spgemm (CUDA builds) and G3_circuit.mtx.gz
#   PART   --partition of perf_dist (rows or nnz; default rows)
#   TAG    prefix of the files written (default: scaling)
# The lines perf_dist prints go to $OUT/$TAG_summary.txt; its JSON files
# (one per matrix and rank count) are packed into $OUT/$TAG_json.tgz.
# Single-GPU runs of local:SPEC use SPEC itself (the same matrix).
#   run(kind=nvidia-h200-x8, carry=[".carry/x8"],
#       command="D=.carry/x8 bash perf_tests/gpu/spgemm_scaling.sh")
set -uo pipefail
D=${D:-.carry/x8}
OUT=${OUT:-/tmp/out}
TAG=${TAG:-scaling}
W=$(mktemp -d)
mkdir -p "$OUT"
source "$(dirname "$0")/mpi_env.sh"
nvidia-smi -L | tee "$OUT/env.txt"
G=$(nvidia-smi -L | grep -c ^GPU)
NPS=${NPS:-$(for n in 1 2 4 8; do [ "$n" -le "$G" ] && echo -n "$n "; done)}
M=${M:-"poisson3d:100 random:1000000:1000000:8 rmat:20:4 $D/G3_circuit.mtx.gz local:poisson3d:200"}
PART=${PART:-rows}
SINGLE=${SINGLE:-1}
i=0
for m in $M; do
  i=$((i + 1))
  if [ "$SINGLE" = 1 ]; then
    echo "== m$i single GPU ${m#local:}" | tee -a "$OUT/${TAG}_summary.txt"
    CUDA_VISIBLE_DEVICES=0 timeout 150 $D/perf_spgemm --space cuda --no-baselines --repeat 3 \
      --json "$W/single_m$i.json" "${m#local:}" 2>&1 |
      grep -a "^spgemm.*\(spk \|cusparse\)\|rror" | tee -a "$OUT/${TAG}_summary.txt"
  fi
  for np in $NPS; do
    echo "== m$i np=$np $m" | tee -a "$OUT/${TAG}_summary.txt"
    timeout 170 $MPI -np "$np" $D/perf_dist "$m" --op spgemm --repeat 3 --warmup 1 --space cuda \
      --partition "$PART" --json "$W/dist_m${i}_np$np.json" $MAP 2>&1 |
      grep -a "dist_\|rror" | tee -a "$OUT/${TAG}_summary.txt"
    tar czf "$OUT/${TAG}_json.tgz" -C "$W" .  # after every run: a cut-off call keeps what ran
  done
done
