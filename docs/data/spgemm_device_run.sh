#!/bin/bash
# spgemm device run: CUDA unit tests, then perf_spgemm on the suite and on
# the small matrices where the historical baselines fit.
D=$PWD/.carry/spgemm
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
timeout 120 $D/t --gtest_filter='cuda.*' > $OUT/unit_cuda.log 2>&1; echo "unit rc=$?" >> $OUT/unit_cuda.log
grep -E "OK|FAILED|PASSED|rc=" $OUT/unit_cuda.log | tail -20
timeout 240 $D/perf_spgemm --space cuda --json $OUT/spgemm_cuda_h100.json poisson2d:1000 poisson3d:100 random:1000000:1000000:8 $D/m/cage11.mtx.gz $D/m/TSOPF_RS_b39_c30.mtx.gz $D/m/poisson3Da.mtx.gz $D/m/G3_circuit.mtx.gz $D/m/wiki-Vote.mtx.gz $D/m/ca-CondMat.mtx.gz $D/m/delaunay_n16.mtx.gz $D/m/Maragal_6.mtx.gz rmat:18:16 rmat:20:8 2>&1 | grep -v "^Kokkos::OpenMP\|OMP_PROC\|For unit\|In general" | tee $OUT/perf_cuda.log
timeout 80 $D/perf_spgemm --space cuda --json $OUT/spgemm_cuda_h100_small.json poisson2d:70 $D/m/cage10.mtx.gz $D/m/lhr07.mtx.gz $D/m/cavity21.mtx.gz $D/m/wiki-Vote.mtx.gz $D/m/Oregon-2.mtx.gz $D/m/p2p-Gnutella04.mtx.gz $D/m/PGPgiantcompo.mtx.gz 2>&1 | grep -v "^Kokkos::OpenMP\|OMP_PROC\|For unit\|In general" > $OUT/perf_cuda_small.log
echo done
