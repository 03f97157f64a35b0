#!/bin/bash
# A/B of the one-team row-pointer scan and the allocations moved before the
# analysis' synchronisation, on one H100 (issue 4): perf_base (commit
# ac700f1) and perf_spgemm (this change), both with Kokkos Kernels 4.6.02,
# in turn, ROUNDS suite runs each, after the fenced kernel times and host
# timeline of four small products with each.
#   run(kind=nvidia-h100-x1, carry=[".carry/g9"], command="ROUNDS=3 CHECK=1 bash docs/data/spgemm_fixed9/scan_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g9 perf_base perf_spgemm
[ "${UT:-0}" = 1 ] && spk_dev_unit_tests 200
for b in perf_base perf_spgemm; do
  for f in luxembourg_osm delaunay_n16 cage10 wiki-Vote; do
    timeout 60 $D/$b --space cuda --no-baselines --trace --kernels --repeat 20 \
      $D/m/$f.mtx.gz >$OUT/trace_${b}_$f.log 2>&1
    echo "$b $f rc=$? $(grep -a -o 'spk::spgemm::row_map=[0-9.]*' $OUT/trace_${b}_$f.log | head -1)"
  done
done
spk_dev_ab base perf_base ${ROUNDS:-2}
[ "${CHECK:-0}" = 1 ] && spk_dev_check
spk_dev_geomeans $OUT/base*.json $OUT/new*.json
spk_dev_finish scan.tgz
