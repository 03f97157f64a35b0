#!/usr/bin/env bash
# Command-line checks for `spk spmv` (registered with ctest as "cli_spmv").
#   test_cli_spmv.sh SPK_BINARY DATA_DIR
set -u
spk=$1
data=$2
# shellcheck source=tools/cli_check.sh
. "$(dirname "$0")/cli_check.sh"
values() { grep -v '^%' "$1" | tail -n +2 | tr '\n' ' '; }  # the numbers of an array file
# A = [1 0 2 0; 0 0 0 0; 0 3 0 4]
cat >"$tmp/A.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
3 4 4
1 1 1
1 3 2
3 2 3
3 4 4
MTX
printf '%%%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n' >"$tmp/x.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 2\n1\n1\n1\n2\n0\n1\n' >"$tmp/x3.mtx"
check ones 0 '' -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y1.mtx"
check ones-values 0 '^3 0 7 $' -- values "$tmp/y1.mtx"
check header 0 '^%%MatrixMarket matrix array real general' -- head -1 "$tmp/y1.mtx"
for alg in auto automatic scalar vector merge_path dynamic; do  # automatic: the old name of auto
  check "x-$alg" 0 '' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x.mtx" -o "$tmp/y-$alg.mtx" --algorithm $alg
  check "x-$alg-values" 0 '^7 0 22 $' -- values "$tmp/y-$alg.mtx"
done
# Aᵀ times two right-hand sides, [1 1 1] and [2 0 1]: [1 3 2 4] and [2 3 4 4]
check transpose 0 '' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x3.mtx" -o "$tmp/yt.mtx" --transpose
check transpose-shape 0 '^4 2$' -- sh -c "grep -v '^%' '$tmp/yt.mtx' | head -1"
check transpose-values 0 '^1 3 2 4 2 3 4 4 $' -- values "$tmp/yt.mtx"
check gz-symmetric 0 'karate.mtx.gz|karate' -- "$spk" spmv "$data/karate.mtx" -o "$tmp/deg.mtx.gz"
check degree-sum 0 '^156$' -- sh -c "gzip -dc '$tmp/deg.mtx.gz' | grep -v '^%' | tail -n +2 | awk '{s+=\$1} END {print s}'"
check generator 0 '' -- "$spk" spmv poisson2d:10 -o "$tmp/p.mtx" --space serial
check generator-rowsum 0 '^40$' -- sh -c "grep -v '^%' '$tmp/p.mtx' | tail -n +2 | awk '{s+=\$1} END {print s}'"
# The same products through every storage format (--format converts on the device).
for fmt in csr ell hyb hyb:1 bsr:1 bsr:2 bsr:3 sell sell:2:4 sell:32:256; do
  check "format-$fmt" 0 "format $fmt|, automatic|scalar|merge_path" -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x.mtx" -o "$tmp/y-f.mtx" --format $fmt
  check "format-$fmt-values" 0 '^7 0 22 $' -- values "$tmp/y-f.mtx"
  check "format-$fmt-transpose" 0 '' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x3.mtx" -o "$tmp/yt-f.mtx" --transpose --format $fmt
  check "format-$fmt-transpose-values" 0 '^1 3 2 4 2 3 4 4 $' -- values "$tmp/yt-f.mtx"
done
check format-generator 0 'format bsr:5' -- "$spk" spmv poisson2d:10 -o "$tmp/p5.mtx" --format bsr:5
check format-generator-rowsum 0 '^40$' -- sh -c "grep -v '^%' '$tmp/p5.mtx' | tail -n +2 | awk '{s+=\$1} END {print s}'"
check bad-format 2 "unknown format 'coo'" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --format coo
check bad-block-size 2 'block size 17 is outside' -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --format bsr:17
check ell-too-narrow 1 'row 0 has 2 entries, more than the ELL width 1.*HYB' -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --format ell:1
# convert --format writes what the format stores: bsr:2 keeps its blocks' zeros.
check convert-bsr 0 '' -- "$spk" convert "$tmp/A.mtx" "$tmp/A-bsr.mtx" --format bsr:2
check convert-bsr-nnz 0 'nnz: +12 ' -- "$spk" info "$tmp/A-bsr.mtx"
check convert-poisson-bsr 0 '' -- "$spk" convert poisson2d:4 "$tmp/P-bsr.mtx" --format bsr:2
check info-suggests-bsr 0 'suggested: +bsr:' -- "$spk" info "$tmp/P-bsr.mtx"
check convert-sell 0 '' -- "$spk" convert "$tmp/A.mtx" "$tmp/A-sell.mtx" --format sell:2:4
check convert-sell-nnz 0 'nnz: +4 ' -- "$spk" info "$tmp/A-sell.mtx"
check info-fill 0 'sell:32:4096 +1\.[0-9]+' -- "$spk" info poisson2d:20
check info-suggests-ell 0 'suggested: +(ell|sell|hyb)' -- "$spk" info poisson2d:20
check shape-mismatch 1 'x.mtx:2: the size line declares 4 rows; 3 are required' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x.mtx" -o "$tmp/bad.mtx" --transpose
check no-output 2 'expected -o' -- "$spk" spmv "$tmp/A.mtx"
check bad-algorithm 2 "--algorithm: unknown algorithm 'fastest'" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --algorithm fastest
check bad-repeat 2 "--repeat takes a positive integer .*, not 'abc'" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --repeat abc
check bad-repeat-zero 2 "--repeat takes a positive integer" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --repeat 0
check bad-repeat-range 2 "--repeat takes a positive integer" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --repeat 99999999999
check bad-repeat-missing 2 "option --repeat needs a value" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --repeat
# x's size line is checked against A before x's entries (a header claiming
# 10^10 values costs nothing), and a dense x needs its entries.
check x-huge-header 1 'x_huge_header.mtx:2: the size line declares 100000 rows; 4 are required' -- sh -c "$memcap '$spk' spmv '$tmp/A.mtx' -x '$data/bad/x_huge_header.mtx' -o '$tmp/y.mtx'"
printf '%%%%MatrixMarket matrix coordinate real general\n4 100000000 1\n1 1 1\n' >"$tmp/xwide.mtx"
check x-huge-columns 1 'xwide.mtx:2: .*the dense matrix would need 400000000 elements' -- sh -c "$memcap '$spk' spmv '$tmp/A.mtx' -x '$tmp/xwide.mtx' -o '$tmp/y.mtx'"
check x-nonsquare-symmetric 1 'nonsquare_symmetric.mtx:2: symmetric matrix must be square' -- "$spk" spmv poisson2d:2 -x "$data/bad/nonsquare_symmetric.mtx" -o "$tmp/y.mtx"
check bad-space 2 "not enabled" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --space hip
# Complex and single precision: y is checked against cli_expect.py's own
# reader and product (tolerances: 1e-12 in double, 1e-5 in single).
expect="python3 $(dirname "$0")/cli_expect.py"
cat >"$tmp/Ac.mtx" <<'MTX'
%%MatrixMarket matrix coordinate complex general
3 4 5
1 1 1 2
1 3 -0.5 0.25
3 2 3 -1
3 4 0 4
2 2 1e-3 0
MTX
printf '%%%%MatrixMarket matrix array complex general\n4 1\n1 0\n0 1\n2 -2\n0.5 0.5\n' >"$tmp/xc.mtx"
check complex 0 'in complex<double>' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/xc.mtx" -o "$tmp/yc.mtx"
check complex-header 0 '^%%MatrixMarket matrix array complex general' -- head -1 "$tmp/yc.mtx"
check complex-values 0 'as expected' -- $expect "$tmp/yc.mtx" 1e-12 'mul(A, X)' A="$tmp/Ac.mtx" X="$tmp/xc.mtx"
check complex-single 0 'in complex<float>' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/xc.mtx" -o "$tmp/ycs.mtx" --precision single
check complex-single-values 0 'as expected' -- $expect "$tmp/ycs.mtx" 1e-5 'mul(A, X)' A="$tmp/Ac.mtx" X="$tmp/xc.mtx"
check complex-real-x 0 '' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/x.mtx" -o "$tmp/ycr.mtx"
check complex-real-x-values 0 'as expected' -- $expect "$tmp/ycr.mtx" 1e-12 'mul(A, X)' A="$tmp/Ac.mtx" X="$tmp/x.mtx"
check real-a-complex-x 0 'in complex<double>' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/xc.mtx" -o "$tmp/yrc.mtx"
check real-a-complex-x-values 0 'as expected' -- $expect "$tmp/yrc.mtx" 1e-12 'mul(A, X)' A="$tmp/A.mtx" X="$tmp/xc.mtx"
printf '%%%%MatrixMarket matrix array complex general\n3 2\n1 0\n0 -1\n2 0.5\n0 0\n1 1\n-1 0\n' >"$tmp/xc3.mtx"
check complex-transpose 0 'transposed' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/xc3.mtx" -o "$tmp/yct.mtx" --transpose
check complex-transpose-values 0 'as expected' -- $expect "$tmp/yct.mtx" 1e-12 'mul(T(A), X)' A="$tmp/Ac.mtx" X="$tmp/xc3.mtx"
check complex-conjugate-transpose 0 '' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/xc3.mtx" -o "$tmp/ych.mtx" --conjugate-transpose
check complex-conjugate-transpose-values 0 'as expected' -- $expect "$tmp/ych.mtx" 1e-12 'mul(H(A), X)' A="$tmp/Ac.mtx" X="$tmp/xc3.mtx"
for fmt in csr ell bsr:2 sell:2:4; do
  check "complex-conjugate-transpose-$fmt" 0 'check: y matches' -- "$spk" spmv "$tmp/Ac.mtx" -x "$tmp/xc3.mtx" -o "$tmp/ych-f.mtx" --conjugate-transpose --format $fmt --check
  check "complex-conjugate-transpose-$fmt-values" 0 'as expected' -- $expect "$tmp/ych-f.mtx" 1e-12 'mul(H(A), X)' A="$tmp/Ac.mtx" X="$tmp/xc3.mtx"
done
check hermitian-ones 0 '' -- "$spk" spmv "$data/complex_hermitian.mtx" -o "$tmp/yh.mtx"
check hermitian-ones-values 0 'as expected' -- $expect "$tmp/yh.mtx" 1e-12 'mul(A, [[1], [1], [1]])' A="$data/complex_hermitian.mtx"
for fmt in csr ell hyb bsr:2 sell:2:4; do
  for precision in single double; do
    check "complex-check-$fmt-$precision" 0 'check: y matches the serial reference \(complex<' -- "$spk" spmv "$data/complex_skew.mtx" -x "$tmp/xc3.mtx" -o "$tmp/y-cf.mtx" --format $fmt --precision $precision --check
    check "complex-check-$fmt-$precision-values" 0 'as expected' -- $expect "$tmp/y-cf.mtx" 1e-5 'mul(A, X)' A="$data/complex_skew.mtx" X="$tmp/xc3.mtx"
  done
done
check single 0 'in float' -- "$spk" spmv "$tmp/A.mtx" -x "$tmp/x.mtx" -o "$tmp/ys.mtx" --precision single --check
check single-values 0 '^7 0 22 $' -- values "$tmp/ys.mtx"
check single-header 0 '^%%MatrixMarket matrix array real general' -- head -1 "$tmp/ys.mtx"
check single-check 0 'check: y matches the serial reference \(float' -- "$spk" spmv poisson2d:12 -o "$tmp/ps.mtx" --precision single --check --format hyb
check bad-precision 2 "--precision takes single or double, not 'half'" -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --precision half
check bad-precision-missing 2 'option --precision needs a value' -- "$spk" spmv "$tmp/A.mtx" -o "$tmp/y.mtx" --precision
if [ "$fails" -ne 0 ]; then
  echo "$fails spmv CLI check(s) failed"
  exit 1
fi
echo "all spmv CLI checks passed"
