#!/bin/bash
# Host timeline (--trace) and fenced per-kernel times (--kernels) of small
# single-GPU products, to find the fixed cost per product (issue 4).
#   run(kind=nvidia-h100-x1, carry=[".carry/g9"], command="bash docs/data/spgemm_fixed9/trace_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g9 perf_base perf_new
for f in luxembourg_osm delaunay_n16 cage10 bfly ct2010 Maragal_6; do
  timeout 60 $D/${BIN:-perf_new} --space cuda --no-baselines --trace --kernels --repeat 20 $D/m/$f.mtx.gz \
    >$OUT/trace_$f.log 2>&1
  echo "$f rc=$?"
  grep -a -E "^spgemm +\S+ +(spk|cusparse-spgemm) " $OUT/trace_$f.log | awk '{print $3, $8, $10, $11}'
done
spk_dev_finish trace.tgz
