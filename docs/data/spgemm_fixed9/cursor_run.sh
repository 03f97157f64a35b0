#!/bin/bash
# The global-slab hash kernel's cursor in C's row as a 32-bit counter instead
# of a 64-bit one (issue 4), on one H100: wide-B power-law products (long rows
# on global hash slabs; cuSPARSE fails on rmat:20:2), perf_base (ac700f1) and
# perf_spgemm (this change) in turn, two rounds.
#   run(kind=nvidia-h100-x1, carry=[".carry/g9"], command="bash docs/data/spgemm_fixed9/cursor_run.sh")
source perf_tests/gpu/spgemm_device_lib.sh
spk_dev_setup .carry/g9 perf_base perf_spgemm
for r in 1 2; do
  for b in perf_base perf_spgemm; do
    timeout 150 $D/$b --space cuda --no-baselines --repeat 5 --json $OUT/${b}_$r.json \
      rmat:19:2 rmat:20:2 >$OUT/${b}_$r.log 2>&1
    echo "$b round $r rc=$?"
    grep -a -E "^spgemm +\S+ +spk " $OUT/${b}_$r.log | awk '{print "  ", $2, $8, $10, $11}'
  done
done
spk_dev_finish cursor.tgz >/dev/null
