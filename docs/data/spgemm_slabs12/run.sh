#!/bin/bash
# Issue 4, twelfth session, one H100: the long-row teams of the bitmap
# kernels (one dense value slab of B's width each, in global memory) capped
# with SPK_SPGEMM_MAX_SLABS = S (default: 1056 on the H100, as many as the
# budget allows), to see whether fewer slabs that stay in L2 (50 MB) beat
# more teams whose slabs spill to DRAM.  Binaries of main e6171da in
# .carry/r12b (call 2 of docs/data/spgemm_rows12).
# CARRY (default .carry/r12b), SLABS and MATS (real matrices as m/NAME) choose
# the binary, the caps and the matrices.
#   run(kind=nvidia-h100-x1, carry=[".carry/r12b"], command="bash docs/data/spgemm_slabs12/run.sh")
#   run(kind=nvidia-h100-x1, carry=[".carry/r12d"], command="CARRY=.carry/r12d SLABS='0 768 512 384 256' MATS='rmat:18:8 rmat:16:16 m/Oregon-2.mtx.gz m/PGPgiantcompo.mtx.gz' bash docs/data/spgemm_slabs12/run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup ${CARRY:-.carry/r12b} perf_spgemm
MATS=${MATS:-m/Maragal_6.mtx.gz m/Oregon-2.mtx.gz m/wiki-Vote.mtx.gz m/PGPgiantcompo.mtx.gz rmat:18:8 rmat:16:16}
for s in ${SLABS:-0 512 256 128 64}; do
  for f in $(echo $MATS | sed "s|m/|$D/m/|g"); do
    n=$(basename "$f" .mtx.gz)
    if [ "$s" = 0 ]; then e=""; else e="SPK_SPGEMM_MAX_SLABS=$s"; fi
    env $e timeout 60 "$D/perf_spgemm" --space cuda --no-baselines --kernels --repeat 10 "$f" \
      >"$OUT/slabs${s}_$n.log" 2>&1
    echo "slabs $s $n rc=$? $(grep -m1 '  spk  ' "$OUT/slabs${s}_$n.log" | awk '{print $7}')" \
      "$(grep -m1 '  spk  ' "$OUT/slabs${s}_$n.log" | grep -oE '(numeric|symbolic)_bitmap[a-z_]*=[0-9.]*' | tr '\n' ' ')"
  done
done
spk_dev_finish slabs.tgz
