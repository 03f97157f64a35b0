#!/bin/bash
# Team-kernel versions of the SpGEMM analysis on one H100 (issue 4), each tried
# and reverted: fenced analysis times of four matrices with perf_base (ac700f1,
# Kokkos' parallel_reduce) and perf_spgemm (the version), then ROUNDS suite
# runs of each in turn and --check.  Ran three times, results committed as
# analysis_padded.tgz (atomic words on lines of their own), analysis_tree.tgz
# (team_reduce replaced by a scratch tree) and analysis_slots.tgz (per-team
# slots summed on the host, no global atomics).
#   run(kind=nvidia-h100-x1, carry=[".carry/g9"], command="ROUNDS=3 bash docs/data/spgemm_fixed9/analysis_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g9 perf_base perf_spgemm
for b in perf_base perf_spgemm; do
  for f in luxembourg_osm delaunay_n16 cage10 G3_circuit; do
    timeout 60 $D/$b --space cuda --no-baselines --kernels --repeat 20 $D/m/$f.mtx.gz \
      >$OUT/kernels_${b}_$f.log 2>&1
    echo "$b $f rc=$? $(grep -a -o 'spk::spgemm::analyze=[0-9.]*' $OUT/kernels_${b}_$f.log | head -1)"
  done
done
spk_dev_ab base perf_base ${ROUNDS:-2}
spk_dev_check
spk_dev_geomeans $OUT/base*.json $OUT/new*.json
spk_dev_finish analysis.tgz
