#!/bin/bash
# ctest: the distributed CLI on 1 and 3 ranks gives the same C = A·A and
# y = A·1 (values to 1e-12 relative: the summation order differs), with the
# files read by rank 0 (gzip; B after A cut by nnz) and by every rank.
# Complex files and --precision single on 1, 2 and 3 ranks give the numbers
# of the single-process commands (SPK_DIST=0); bad complex input is an
# error naming the file and line on every rank count, and a pipe is refused.
set -euo pipefail
tool=$1; mpiexec=$2; data=$3; shift 3
flags=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false OMPI_MCA_rmaps_base_oversubscribe=1
export SPK_DIST=1  # the distributed path also on one rank
run() { "$mpiexec" -n "$np" "${flags[@]}" "$tool" "$@"; }
single() {  # the single-process command, quiet unless it fails
  SPK_DIST=0 "$tool" "$@" >"$tmp/single.log" 2>&1 || { cat "$tmp/single.log"; return 1; }
}
for np in 1 3; do
  run spgemm "$data/west0067_jumbled.mtx" "$data/west0067_jumbled.mtx" -o "$tmp/C$np.mtx" \
    --partition nnz
  run spmv "$data/bcsstk03.mtx.gz" -o "$tmp/y$np.mtx" --repeat 2
  # Balanced by rows: both uncompressed files are read by every rank.
  run spgemm "$data/west0067_jumbled.mtx" "$data/west0067_jumbled.mtx" -o "$tmp/Cr$np.mtx"
  run spmv "$data/west0067_jumbled.mtx" -o "$tmp/yw$np.mtx"
done

# Complex files large enough to be cut between ranks: a general one with
# duplicates, and a hermitian one storing its lower triangle (diagonal
# real), both read by every rank; x complex.
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
rng = random.Random(5)
def num(): return f"{rng.uniform(-1, 1):.6g}"
n = 40
gen = [(rng.randint(1, n), rng.randint(1, n)) for _ in range(260)]
with open(f"{d}/zg.mtx", "w") as f:
    f.write(f"%%MatrixMarket matrix coordinate complex general\n{n} {n} {len(gen)}\n")
    f.writelines(f"{i} {j} {num()} {num()}\n" for i, j in gen)
herm = sorted({(max(i, j), min(i, j)) for i, j in gen} | {(i, i) for i in range(1, n + 1)})
with open(f"{d}/zh.mtx", "w") as f:
    f.write(f"%%MatrixMarket matrix coordinate complex hermitian\n{n} {n} {len(herm)}\n")
    f.writelines(f"{i} {j} {num()} {num() if i != j else 0}\n" for i, j in herm)
with open(f"{d}/xz.mtx", "w") as f:
    f.write(f"%%MatrixMarket matrix array complex general\n{n} 1\n")
    f.writelines(f"{num()} {num()}\n" for _ in range(n))
# The hermitian file with an imaginary diagonal entry near its end (in the
# last rank's share).
lines = open(f"{d}/zh.mtx").read().splitlines()
bad = len(lines) - 3
i, j = lines[bad].split()[:2]
lines[bad] = f"{i} {i} 1 0.5"
open(f"{d}/zh_bad.mtx", "w").write("\n".join(lines) + "\n")
print(bad + 1, file=open(f"{d}/zh_bad.line", "w"))
PY
single spmv "$tmp/zg.mtx" -x "$tmp/xz.mtx" -o "$tmp/ref_zg_y.mtx"
single spmv "$tmp/zh.mtx" -o "$tmp/ref_zh_y.mtx"
single spgemm "$tmp/zg.mtx" "$tmp/zh.mtx" -o "$tmp/ref_zgh.mtx"
single spgemm "$tmp/zh.mtx" "$tmp/zh.mtx" -o "$tmp/ref_zhh.mtx"
single spmv "$data/west0067_jumbled.mtx" -o "$tmp/ref_w_ys.mtx" --precision single
single spgemm "$tmp/zg.mtx" "$tmp/zg.mtx" -o "$tmp/ref_zgg_s.mtx" --precision single
single spmv "poisson2d:7:values=complex" -o "$tmp/ref_p_y.mtx"
single spgemm "$data/complex_skew.mtx" "$data/pattern_symmetric.mtx" -o "$tmp/ref_zsp.mtx"
single spmv "$data/rza_integer_skew.mtx" -o "$tmp/ref_iy.mtx"
for np in 1 2 3; do
  out=$(run spmv "$tmp/zg.mtx" -x "$tmp/xz.mtx" -o "$tmp/zg_y$np.mtx" --repeat 2)
  grep -q "(complex<double>" <<<"$out" || { echo "spmv zg on $np: $out"; exit 1; }
  run spmv "$tmp/zh.mtx" -o "$tmp/zh_y$np.mtx" --partition nnz --repeat 2 >/dev/null
  run spgemm "$tmp/zg.mtx" "$tmp/zh.mtx" -o "$tmp/zgh$np.mtx" >/dev/null
  run spgemm "$tmp/zh.mtx" "$tmp/zh.mtx" -o "$tmp/zhh$np.mtx" --partition nnz >/dev/null
  out=$(run spmv "$data/west0067_jumbled.mtx" -o "$tmp/w_ys$np.mtx" --precision single)
  grep -q "(float" <<<"$out" || { echo "spmv --precision single on $np: $out"; exit 1; }
  out=$(run spgemm "$tmp/zg.mtx" "$tmp/zg.mtx" -o "$tmp/zgg_s$np.mtx" --precision single)
  grep -q "(complex<float>" <<<"$out" || { echo "spgemm --precision single on $np: $out"; exit 1; }
  run spmv "poisson2d:7:values=complex" -o "$tmp/p_y$np.mtx" --repeat 1 >/dev/null
  # Complex times pattern is complex; an integer file is real.
  run spgemm "$data/complex_skew.mtx" "$data/pattern_symmetric.mtx" -o "$tmp/zsp$np.mtx" >/dev/null
  out=$(run spmv "$data/rza_integer_skew.mtx" -o "$tmp/iy$np.mtx" --repeat 1)
  grep -q "(double" <<<"$out" || { echo "spmv of an integer file on $np: $out"; exit 1; }
  # Bad complex input: every rank count names the file and the line.
  for bad in "$data/bad/complex_one_number.mtx:4: complex entry has one number" \
    "$tmp/zh_bad.mtx:$(cat "$tmp/zh_bad.line"): hermitian matrix has a diagonal entry"; do
    file=${bad%%:*}
    if out=$(run spmv "$file" -o "$tmp/never.mtx" 2>&1); then
      echo "no error for $file on $np ranks"; exit 1
    fi
    grep -qF "$bad" <<<"$out" || { echo "on $np ranks, expected '$bad' in: $out"; exit 1; }
  done
done
# The scalar is picked from a file's header before its entries are read, so
# a pipe (here rank 0's forwarded stdin) is refused by name.
np=1
if out=$(run spmv /dev/stdin -o "$tmp/never.mtx" <"$data/complex_general.mtx" 2>&1); then
  echo "a pipe was read"; exit 1
fi
grep -qF "/dev/stdin: the distributed commands read a file's header" <<<"$out" ||
  { echo "pipe: $out"; exit 1; }
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def entries(path):
    rows = [l.split() for l in open(path) if not l.startswith('%')]
    return rows[0], rows[1:]
def compare(a, b, tol, complex_values=False):
    (ha, ea), (hb, eb) = entries(f"{d}/{a}"), entries(f"{d}/{b}")
    k = 2 if complex_values else 1
    assert ha == hb and len(ea) == len(eb) and len(ea) > 0, (a, b, ha, hb, len(ea), len(eb))
    for x, y in zip(ea, eb):
        assert x[:-k] == y[:-k], (a, b, x, y)  # same pattern
        vx, vy = complex(*map(float, x[-k:] + ['0'] * (2 - k))), complex(*map(float, y[-k:] + ['0'] * (2 - k)))
        assert abs(vx - vy) <= tol * max(1.0, abs(vy)), (a, b, x, y)
for a, b in (("C1.mtx", "C3.mtx"), ("y1.mtx", "y3.mtx"), ("Cr1.mtx", "Cr3.mtx"),
             ("C1.mtx", "Cr3.mtx"), ("yw1.mtx", "yw3.mtx")):
    compare(a, b, 1e-12)
def header(path): return open(f"{d}/{path}").readline().split()
for np in (1, 2, 3):
    for name, tol, cplx in (("zg_y", 1e-12, True), ("zh_y", 1e-12, True), ("zgh", 1e-12, True),
                            ("zhh", 1e-12, True), ("w_ys", 1e-5, False), ("zgg_s", 1e-5, True),
                            ("p_y", 1e-12, True), ("zsp", 1e-12, True), ("iy", 1e-12, False)):
        compare(f"{name}{np}.mtx", f"ref_{name}.mtx", tol, cplx)
        assert header(f"{name}{np}.mtx")[3] == ("complex" if cplx else "real"), name
print("distributed CLI: 1 and 3 ranks agree; complex and single precision match the "
      "single-process commands on 1, 2 and 3 ranks")
PY
