#!/bin/bash
# ncu of the analysis kernel (spk::spgemm::analyze) of the base and the new
# binary on a million short rows (poisson2d:1000) and on Maragal_6's long ones.
#   run(kind=nvidia-h100-x1, carry=[".carry/g10"], command="bash docs/data/spgemm_tiers10/ncu_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g10 perf_base perf_spgemm
cp $D/perf_spgemm $D/perf_new
for b in perf_base perf_new; do
  for f in poisson2d:1000 $D/m/Maragal_6.mtx.gz; do
    n=$(basename $f .mtx.gz)
    cp $D/$b $D/perf_spgemm
    spk_dev_ncu ncu_${b}_$n 'spgemm_analyze|SpgemmAnalyze' 1 $f
  done
done
cp $D/perf_new $D/perf_spgemm
spk_dev_finish ncu.tgz
