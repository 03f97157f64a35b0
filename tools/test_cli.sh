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
check complex-refused 1 'complex matrices are not supported yet' -- "$spk" info "$data/c_complex_hermitian.mtx.gz"
check bad-spec 1 "unknown generator 'bandit'" -- "$spk" info bandit:3
check spgemm-check 0 'check: C matches the serial reference' -- "$spk" spgemm "$data/karate.mtx" "$data/karate.mtx" -o "$tmp/c.mtx" --check
check spgemm-shape 1 "A's columns must match B's rows" -- "$spk" spgemm "$data/karate.mtx" poisson2d:5 -o "$tmp/c.mtx"
check spgemm-readback 0 'format: +coordinate real general' -- "$spk" info "$tmp/c.mtx"
check usage 2 'expected one matrix file' -- "$spk" info
check unknown-command 2 "unknown command 'frobnicate'" -- "$spk" frobnicate
if [ "$fails" -ne 0 ]; then
  echo "$fails CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
