#!/bin/bash
# A/B of the fixed cost per product on one H100 (issue 4): perf_base (the
# session's starting code) and perf_spgemm (this change) in turn, ROUNDS
# suite runs each, after the host timeline of three small products.
#   run(kind=nvidia-h100-x1, carry=[".carry/g9"], command="bash docs/data/spgemm_fixed9/ab_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g9 perf_base perf_spgemm
[ "${UT:-0}" = 1 ] && spk_dev_unit_tests 200
for f in luxembourg_osm delaunay_n16 cage10; do
  timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --kernels --repeat 20 \
    $D/m/$f.mtx.gz >$OUT/trace_$f.log 2>&1
  echo "$f rc=$?"
done
spk_dev_ab base perf_base ${ROUNDS:-2}
[ "${CHECK:-0}" = 1 ] && spk_dev_check
spk_dev_geomeans $OUT/base*.json $OUT/new*.json
spk_dev_finish ab.tgz
