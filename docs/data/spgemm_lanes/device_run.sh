#!/bin/bash
# One H100: the CUDA unit tests, the SpGEMM suite with --check (all 24 matrices
# against the serial reference), the suite again (run-to-run spread), and the
# host timeline (--trace, no fences) of seven small products.
D=$PWD/.carry/fin2
for b in perf_spgemm spk_unit_tests; do [ -f $D/$b.gz ] && gunzip -f $D/$b.gz; chmod +x $D/$b 2>/dev/null; done
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
timeout 200 $D/spk_unit_tests --gtest_filter='cuda.*' > $OUT/unit_tests_cuda.txt 2>&1; echo unit rc=$?
tail -3 $OUT/unit_tests_cuda.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
timeout 330 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/spgemm_cuda_h100.json $M > $OUT/spgemm_cuda_h100.log 2>&1; echo perf rc=$?
grep "^# check" $OUT/spgemm_cuda_h100.log | grep -vc matches
timeout 150 $D/perf_spgemm --space cuda --no-baselines --json $OUT/suite2.json $M > $OUT/suite2.log 2>&1; echo suite2 rc=$?
F=""; for f in cage10 lhr07 wiki-Vote ca-CondMat luxembourg_osm Maragal_6 Oregon-2; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
cd $OUT && tar czf $FINAL/run.tgz . && ls -la $OUT
