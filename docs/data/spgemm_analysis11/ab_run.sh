#!/bin/bash
# A/B of an analysis variant (issue 4, eleventh session) on one H100: perf_base
# (the session's starting code, c8a49a4 with Kokkos Kernels, as in spgemm_tiers10) and perf_spgemm
# (this change) in turn, ROUNDS suite runs each, after fenced per-kernel times
# of both on the matrices with long rows and on two without.
#   run(kind=nvidia-h100-x1, carry=[".carry/g11"], command="[TRACE=1] bash docs/data/spgemm_analysis11/ab_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g11 perf_base perf_spgemm
spk_dev_logs kernels "--kernels --repeat 10" "perf_base perf_spgemm" $D/m/Maragal_6.mtx.gz \
  $D/m/Oregon-2.mtx.gz $D/m/wiki-Vote.mtx.gz $D/m/delaunay_n16.mtx.gz poisson2d:1000 \
  random:1000000:1000000:8
[ "${TRACE:-0}" = 1 ] && spk_dev_logs trace "--trace --kernels --repeat 20" "perf_base perf_spgemm" \
  $D/m/luxembourg_osm.mtx.gz $D/m/delaunay_n16.mtx.gz $D/m/bfly.mtx.gz $D/m/ct2010.mtx.gz
spk_dev_ab base perf_base ${ROUNDS:-3}
[ "${CHECK:-1}" = 1 ] && spk_dev_check
spk_dev_geomeans $OUT/base*.json $OUT/new*.json
# The analysis kernel's atomics in the carried binary's SASS (native ATOM/RED or CAS loops).
cuobjdump -sass $D/perf_spgemm | awk '/Function : /{p = /SpgemmAnalyze/} p' |
  grep -oE "(ATOMG|ATOMS|ATOM|RED)[A-Z0-9._]*" | sort | uniq -c >"$OUT/analyze_atomics.txt"
cat "$OUT/analyze_atomics.txt"
spk_dev_finish ab.tgz
