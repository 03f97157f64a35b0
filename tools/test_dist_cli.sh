#!/bin/bash
# ctest: the distributed CLI on 1 and 3 ranks gives the same C = A·A and
# y = A·1 (values to 1e-12 relative: the summation order differs), with the
# files read by rank 0 (gzip; B after A cut by nnz) and by every rank.
set -euo pipefail
tool=$1; mpiexec=$2; data=$3; shift 3
flags=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false OMPI_MCA_rmaps_base_oversubscribe=1
export SPK_DIST=1  # the distributed path also on one rank
for np in 1 3; do
  "$mpiexec" -n $np "${flags[@]}" "$tool" spgemm "$data/west0067_jumbled.mtx" \
    "$data/west0067_jumbled.mtx" -o "$tmp/C$np.mtx" --partition nnz
  "$mpiexec" -n $np "${flags[@]}" "$tool" spmv "$data/bcsstk03.mtx.gz" -o "$tmp/y$np.mtx" --repeat 2
  # Balanced by rows: both uncompressed files are read by every rank.
  "$mpiexec" -n $np "${flags[@]}" "$tool" spgemm "$data/west0067_jumbled.mtx" \
    "$data/west0067_jumbled.mtx" -o "$tmp/Cr$np.mtx"
  "$mpiexec" -n $np "${flags[@]}" "$tool" spmv "$data/west0067_jumbled.mtx" -o "$tmp/yw$np.mtx"
done
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def entries(path):
    rows = [l.split() for l in open(path) if not l.startswith('%')]
    return rows[0], rows[1:]
for a, b in (("C1.mtx", "C3.mtx"), ("y1.mtx", "y3.mtx"), ("Cr1.mtx", "Cr3.mtx"),
             ("C1.mtx", "Cr3.mtx"), ("yw1.mtx", "yw3.mtx")):
    (ha, ea), (hb, eb) = entries(f"{d}/{a}"), entries(f"{d}/{b}")
    assert ha == hb and len(ea) == len(eb) and len(ea) > 0, (a, ha, hb, len(ea), len(eb))
    for x, y in zip(ea, eb):
        assert x[:-1] == y[:-1], (a, x, y)  # same pattern
        vx, vy = float(x[-1]), float(y[-1])
        assert abs(vx - vy) <= 1e-12 * max(1.0, abs(vy)), (a, x, y)
print("distributed CLI: 1 and 3 ranks agree")
PY
