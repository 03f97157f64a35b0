#!/bin/bash
# A/B old (HEAD c49e9a8) vs new perf_spgemm (long B rows by team lanes, LPT bins,
# 2^9 warp sort), alternating; new with --check; unfenced host trace; ncu source of lhr07 numeric.
# (Rewritten on the shared steps of perf_tests/gpu/spgemm_device_lib.sh: the same runs,
# which now also record the GPU in gpu.txt.)
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup $PWD/.carry/ab perf_spgemm perf_spgemm_old
spk_dev_ab old perf_spgemm_old
spk_dev_suite new_lb32 perf_spgemm SPK_SPGEMM_LONG_B_ROW=32
F=""; for f in cage10 lhr07 wiki-Vote ca-CondMat luxembourg_osm Maragal_6 Oregon-2; do F="$F $D/m/$f.mtx.gz"; done
timeout 60 $D/perf_spgemm --space cuda --no-baselines --trace --repeat 5 $F > $OUT/trace.log 2>&1; echo trace rc=$?
NCU_SECTIONS="WarpStateStats SourceCounters Occupancy LaunchStats SpeedOfLight" \
  spk_dev_ncu ncu spgemm_binned_numeric 2 $D/m/lhr07.mtx.gz
CHECK_TIMEOUT=200 spk_dev_check
spk_dev_finish run10.tgz
