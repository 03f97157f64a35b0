#!/bin/bash
# Long rows: dynamic row queue (new) vs static round robin (prev = 05dcb57), and a sweep of
# SPK_SPGEMM_MAX_SLABS on the R-MAT products.
D=$PWD/.carry/lr
for b in perf_spgemm perf_spgemm_prev; do gunzip -f $D/$b.gz; chmod +x $D/$b; done
FINAL=$OUT; OUT=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
R="rmat:18:8 rmat:16:16"
F=""; for f in wiki-Vote Oregon-2 Maragal_6 lhr07 p2p-Gnutella04 PGPgiantcompo ca-CondMat; do F="$F $D/$f.mtx.gz"; done
for r in 1 2; do
  timeout 100 $D/perf_spgemm_prev --space cuda --no-baselines --json $OUT/prev$r.json $R $F > $OUT/prev$r.log 2>&1; echo prev rc=$?
  timeout 100 $D/perf_spgemm --space cuda --no-baselines --json $OUT/new$r.json $R $F > $OUT/new$r.log 2>&1; echo new rc=$?
done
timeout 100 $D/perf_spgemm --space cuda --no-baselines --check --json $OUT/check.json $F > $OUT/check.log 2>&1; echo check rc=$?
grep "^# check" $OUT/check.log | grep -vc matches
for s in 33 66 132 264 528; do
  SPK_SPGEMM_MAX_SLABS=$s timeout 60 $D/perf_spgemm --space cuda --no-baselines --repeat 3 --json $OUT/slabs$s.json $R > $OUT/slabs$s.log 2>&1; echo slabs $s rc=$?
done
cd $OUT && tar czf $FINAL/run.tgz . && ls $OUT
