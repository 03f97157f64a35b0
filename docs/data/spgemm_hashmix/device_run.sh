#!/bin/bash
# HashMix (fmix32) instead of the identity hash in the binned hash tables, on one H100:
# CUDA unit tests; the suite with the binary of ../spgemm_extract (ex) and the HashMix one,
# alternated twice, then the new one twice more; --check without rmat:18:8.
D=$PWD/.carry/hm
FINAL=$OUT; OUT=$(mktemp -d)
for b in perf_spgemm perf_spgemm_ex spk_unit_tests; do [ -f $D/$b.gz ] && gunzip -f $D/$b.gz; chmod +x $D/$b 2>/dev/null; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export SPK_MATRIX_DIR=$D/m
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
[ -x $D/spk_unit_tests ] && timeout 120 $D/spk_unit_tests --gtest_filter="cuda.*" > $OUT/unit_tests_cuda.txt 2>&1; echo ut rc=$?
tail -4 $OUT/unit_tests_cuda.txt
M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
for f in $D/m/*.mtx.gz; do M="$M $f"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_ex --space cuda --no-baselines --json $OUT/ex$r.json $M > $OUT/ex$r.log 2>&1; echo ex rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
for r in 3 4; do
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $M > $OUT/new$r.log 2>&1; echo new rc=$?
done
M2=$(echo $M | sed 's/rmat:18:8//')
timeout 150 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $M2 > $OUT/check.log 2>&1; echo check rc=$?
grep "^# check" $OUT/check.log | grep -vc matches
grep -c "^# check" $OUT/check.log
timeout 60 $D/perf_spgemm --space cuda --no-baselines --kernels rmat:18:8 $D/m/wiki-Vote.mtx.gz $D/m/Oregon-2.mtx.gz > $OUT/kernels.log 2>&1; echo kernels rc=$?
timeout 200 $D/perf_spgemm --space cuda --no-baselines --check --repeat 1 --warmup 0 --json $OUT/check_rmat18.json rmat:18:8 > $OUT/check_rmat18.log 2>&1; echo check18 rc=$?
grep "^# check" $OUT/check_rmat18.log
cd $OUT && tar czf $FINAL/run.tgz . && ls -la $OUT
