#!/usr/bin/env bash
# Command-line checks for the spk tool (registered with ctest as "cli").
#   test_cli.sh SPK_BINARY DATA_DIR
set -u
spk=$1
data=$2
# shellcheck source=tools/cli_check.sh
. "$(dirname "$0")/cli_check.sh"
check info-symmetric 0 'nnz: +46 ' -- "$spk" info "$data/LFAT5.mtx"
check info-gz-pattern 0 'size: +219 x 85' -- "$spk" info "$data/ash219.mtx.gz"
check info-generator 0 'nnz: +460 ' -- "$spk" info poisson2d:10
check convert-gz 0 '' -- "$spk" convert "$data/karate.mtx" "$tmp/k.mtx.gz"
check convert-readback 0 'format: +coordinate real general' -- "$spk" info "$tmp/k.mtx.gz"
check convert-nnz 0 'nnz: +156 ' -- "$spk" info "$tmp/k.mtx.gz"
check convert-sorted 0 '^1 2 1$' -- sh -c "gzip -dc '$tmp/k.mtx.gz' | sed -n 4p"
check missing-file 1 'cannot open file' -- "$spk" info "$tmp/none.mtx"
# Complex files compute in complex<double> (complex<float> with --precision single).
expect="python3 $(dirname "$0")/cli_expect.py"
check info-complex 0 'format: +coordinate complex hermitian' -- "$spk" info "$data/c_complex_hermitian.mtx.gz"
check info-complex-scalar 0 'scalar: +complex<double> \(--precision double\)' -- "$spk" info "$data/complex_hermitian.mtx"
check info-complex-hermitian 0 'hermitian: +yes' -- "$spk" info "$data/complex_hermitian.mtx"
check info-complex-not-hermitian 0 'hermitian: +no' -- "$spk" info "$data/complex_general.mtx"
check info-complex-single 0 'scalar: +complex<float>' -- "$spk" info "$data/complex_skew.mtx" --precision single
check info-single 0 'scalar: +float \(--precision single\)' -- "$spk" info "$data/karate.mtx" --precision single
check info-integer 0 'scalar: +double' -- "$spk" info "$data/integer_general.mtx"
check info-hermitian-diagonal 1 'hermitian_imaginary_diagonal.mtx:5: hermitian matrix has a diagonal entry \(2, 2\) with a nonzero imaginary part' -- "$spk" info "$data/bad/hermitian_imaginary_diagonal.mtx"
check info-complex-one-number 1 'complex_one_number.mtx:4: complex entry has one number' -- "$spk" info "$data/bad/complex_one_number.mtx"
check convert-complex 0 '' -- "$spk" convert "$data/complex_hermitian.mtx" "$tmp/h.mtx.gz"
check convert-complex-header 0 '^%%MatrixMarket matrix coordinate complex general' -- sh -c "gzip -dc '$tmp/h.mtx.gz' | head -1"
check convert-complex-values 0 'as expected' -- $expect "$tmp/h.mtx.gz" 0 'A' A="$data/complex_hermitian.mtx"
check convert-complex-array 0 '' -- "$spk" convert "$data/complex_array.mtx" "$tmp/ca.mtx" --format bsr:2
check convert-complex-array-values 0 'as expected' -- $expect "$tmp/ca.mtx" 0 'A' A="$data/complex_array.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 0.33333333333333331\n1 2 16777217\n' >"$tmp/third.mtx"
check convert-double 0 '' -- "$spk" convert "$tmp/third.mtx" "$tmp/third-d.mtx"
check convert-double-digits 0 '^1 1 0.3333333333333333$' -- sed -n 4p "$tmp/third-d.mtx"
check convert-single 0 '' -- "$spk" convert "$tmp/third.mtx" "$tmp/third-s.mtx" --precision single
check convert-single-digits 0 '^1 1 0.33333334$' -- sed -n 4p "$tmp/third-s.mtx"
check convert-single-rounded 0 '^1 2 16777216$' -- sed -n 5p "$tmp/third-s.mtx"
check spgemm-complex 0 'check: C matches the serial reference \(complex<double>' -- "$spk" spgemm "$data/complex_general.mtx" "$data/complex_hermitian.mtx" -o "$tmp/cc.mtx" --check
check spgemm-complex-values 0 'as expected' -- $expect "$tmp/cc.mtx" 1e-12 'mul(A, B)' A="$data/complex_general.mtx" B="$data/complex_hermitian.mtx"
check expect-detects-a-wrong-product 1 'entry \(1, 2\) is' -- $expect "$tmp/cc.mtx" 1e-12 'mul(B, A)' A="$data/complex_general.mtx" B="$data/complex_hermitian.mtx"
check spgemm-complex-real 0 'complex<float>' -- "$spk" spgemm "$data/complex_skew.mtx" "$data/pattern_symmetric.mtx" -o "$tmp/cr.mtx" --check --precision single
check spgemm-complex-real-values 0 'as expected' -- $expect "$tmp/cr.mtx" 1e-6 'mul(A, B)' A="$data/complex_skew.mtx" B="$data/pattern_symmetric.mtx"
# Generator specs with values=complex compute in complex<double>; the
# symmetric families are Hermitian.
check info-generator-complex 0 'format: +generated \(complex general\)' -- "$spk" info poisson2d:6:values=complex
check info-generator-hermitian 0 'hermitian: +yes' -- "$spk" info fem:2:2:7:values=complex
check info-generator-not-hermitian 0 'hermitian: +no' -- "$spk" info random:30:30:4:values=complex
check spmv-generator-complex 0 'check: y matches the serial reference \(complex<float>' -- "$spk" spmv banded:50:4:3:values=complex -o "$tmp/gz.mtx" --check --precision single
check spmv-generator-complex-header 0 '^%%MatrixMarket matrix array complex general' -- head -1 "$tmp/gz.mtx"
check generator-bad-values 1 "generator spec 'poisson2d:4:values=imaginary': values = 'imaginary' must be real or complex" -- "$spk" info poisson2d:4:values=imaginary
check spgemm-single 0 'check: C matches the serial reference \(float' -- "$spk" spgemm "$data/b1_ss.mtx" "$data/b1_ss.mtx" -o "$tmp/ls.mtx" --check --precision single
check spgemm-single-values 0 'as expected' -- $expect "$tmp/ls.mtx" 1e-6 'mul(A, A)' A="$data/b1_ss.mtx"
check convert-empty-name 2 'an empty argument is not a file name' -- "$spk" convert "$data/karate.mtx" ""
for cmd in "info $data/karate.mtx" "convert $data/karate.mtx $tmp/k2.mtx" "spgemm $data/karate.mtx $data/karate.mtx -o $tmp/c.mtx"; do
  check "bad-precision-${cmd%% *}" 2 "--precision takes single or double, not 'long'" -- "$spk" $cmd --precision long
done
check bad-spec 1 "unknown generator 'bandit'" -- "$spk" info bandit:3
check spgemm-check 0 'check: C matches the serial reference' -- "$spk" spgemm "$data/karate.mtx" "$data/karate.mtx" -o "$tmp/c.mtx" --check
check spgemm-shape 1 "A's columns must match B's rows" -- "$spk" spgemm "$data/karate.mtx" poisson2d:5 -o "$tmp/c.mtx"
check spgemm-readback 0 'format: +coordinate real general' -- "$spk" info "$tmp/c.mtx"
check usage 2 'expected one matrix file' -- "$spk" info
check info-symmetric-rule 0 'symmetric: +one triangle stored, mirrored on read .*refused' -- "$spk" info "$data/LFAT5.mtx"
# Bad input: exit 1 with FILE:LINE (line 0 for the whole file) and the reason;
# the files are the unit tests' reproducers (unit_tests/data/bad/).
bad=$data/bad
check bad-nonsquare-symmetric 1 'nonsquare_symmetric.mtx:2: symmetric matrix must be square, not 2 x 5' -- "$spk" info "$bad/nonsquare_symmetric.mtx"
check bad-number-junk 1 "overflow_junk.mtx:3: value '1e999junk' is not a number" -- "$spk" info "$bad/overflow_junk.mtx"
check bad-double-sign 1 "double_sign.mtx:3: value '\+-3' is not a number" -- "$spk" convert "$bad/double_sign.mtx" "$tmp/ds.mtx"
check bad-gz-truncated 1 'truncated.mtx.gz: truncated gzip file' -- "$spk" convert "$bad/truncated.mtx.gz" "$tmp/t.mtx"
check bad-gz-truncated-no-output 2 'No such file' -- ls "$tmp/t.mtx"
check bad-gz-corrupt 1 'corrupt.mtx.gz: corrupt gzip data' -- "$spk" info "$bad/corrupt.mtx.gz"
check bad-gz-cut-header 1 'cut_header.mtx.gz: truncated gzip file' -- "$spk" info "$bad/cut_header.mtx.gz"
check bad-gz-trailing 1 'trailing_bytes.mtx.gz: unexpected data after the end of the gzip stream' -- sh -c "$memcap '$spk' info '$bad/trailing_bytes.mtx.gz'"
check bad-huge-empty-rows 1 'empty_huge_rows.mtx:2: .*the CSR row map would need 2147483648 elements' -- sh -c "$memcap '$spk' info '$bad/empty_huge_rows.mtx'"
check bad-both-triangles 1 'symmetric_both_triangles.mtx:5: entry \(1, 2\) mirrors entry \(2, 1\) at line 4' -- "$spk" info "$bad/symmetric_both_triangles.mtx"
check bad-directory 1 "$data: is a directory" -- "$spk" info "$data"
check pipe-plain 0 'nnz: +156 ' -- sh -c "cat '$data/karate.mtx' | '$spk' info /dev/stdin"
check pipe-gz 0 'nnz: +640 ' -- sh -c "cat '$data/bcsstk03.mtx.gz' | '$spk' info /dev/stdin"
for spec in poisson2d:4294967296 poisson3d:4194304 poisson3d:2097152 rmat:20:17592186044417; do
  check "bad-spec-$spec" 1 "generator spec '$spec.*overflows 64-bit integers" -- sh -c "$memcap '$spk' info $spec"
done
check bad-spec-rmat-scale 1 "'rmat:4294967297:4:1': SCALE must be in \[0, 40\]" -- "$spk" info rmat:4294967297:4
check bad-spec-rmat-memory 1 "'rmat:30:16:1': a 1073741824 x 1073741824 matrix with 17179869184 nonzeros needs about .* GiB" -- sh -c "$memcap '$spk' info rmat:30:16"
check unknown-command 2 "unknown command 'frobnicate'" -- "$spk" frobnicate
if [ "$fails" -ne 0 ]; then
  echo "$fails CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
