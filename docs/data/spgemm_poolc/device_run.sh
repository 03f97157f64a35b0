#!/bin/bash
# The SpGEMM suite on one H100 (defaults, checked against the serial reference),
# then few-row bins back on a team per row (SPK_SPGEMM_WARP_SORT_FEW=0) on the
# matrices that have them, then per-kernel times (--kernels) on four matrices.
D=$PWD/.carry/ws
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 330 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100.json $M > $OUT/spgemm_cuda_h100.log 2>&1
echo perf rc=$?
grep -i "check" $OUT/spgemm_cuda_h100.log | grep -v matches | head
F=""
for f in ca-CondMat cage10 cage11 coater2 ct2010 delaunay_n16 lhr07 wiki-Vote PGPgiantcompo Oregon-2; do F="$F $D/m/$f.mtx.gz"; done
for v in 0 1; do
SPK_SPGEMM_WARP_SORT_FEW=$v timeout 60 $D/perf_spgemm --space cuda --no-baselines --json $OUT/few$v.json $F > $OUT/few$v.log 2>&1
echo few$v rc=$?
done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --kernels --repeat 11 random:1000000:1000000:8 poisson2d:1000 $D/m/Maragal_6.mtx.gz $D/m/wiki-Vote.mtx.gz >> $OUT/few1.log 2>&1
echo kernels rc=$?
