#!/usr/bin/env bash
# Builds spk's libFuzzer targets (unit_tests/fuzz: fuzz_matrix_market,
# fuzz_dense, fuzz_generator_spec, fuzz_cli_args) with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer, and runs each one.
#
#   scripts/run_fuzz.sh                  each target for 20 s (CI)
#   scripts/run_fuzz.sh -t 600           each target for 600 s
#   scripts/run_fuzz.sh -n 3000000       each target for 3,000,000 executions
#   scripts/run_fuzz.sh -n 200000 -s 1  a reproducible run (CI): fixed
#                                        executions and random seed
#   scripts/run_fuzz.sh -t 60 fuzz_dense only the targets named
#
# Each target starts from its seed corpus (unit_tests/fuzz/corpus/<name>)
# plus what earlier runs in the same build folder found, with its
# dictionary.  Any single allocation over 64 MiB is a finding (inputs are
# at most 8 KiB: nothing the reader allocates may exceed what the input
# holds by that much), as are crashes, sanitizer reports, the targets' own
# checks and timeouts.  Findings (crash-*, oom-*, timeout-*) go to
# $build/findings/<name>/ and make the script fail.  A summary line per
# target gives its executions, time and corpus size.
#
# Environment: SPK_FUZZ_BUILD_DIR (default build-fuzz), SPK_FUZZ_CXX
# (default clang++-14, else clang++), Kokkos_ROOT or scripts/install_deps.sh
# as for run_tests.sh, SPK_JOBS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SPK_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${SPK_JOBS:-$(nproc)}
seconds=20
runs=-1
seed=0  # libFuzzer's default: a seed from the clock
while getopts "t:n:s:" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    n) runs=$OPTARG; seconds=0 ;;
    s) seed=$OPTARG ;;
    *) sed -n '2,27p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_matrix_market fuzz_dense fuzz_generator_spec fuzz_cli_args)

if [ -n "${Kokkos_ROOT:-}" ]; then
  prefix=$Kokkos_ROOT
else
  prefix=$(SPK_WITH_FUZZING=1 "$root/scripts/install_deps.sh" | tail -n 1)
fi
cxx=${SPK_FUZZ_CXX:-$(command -v clang++-14 || command -v clang++)}

echo "== configure fuzz targets ($build, $cxx, Kokkos from $prefix)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" -DSPK_ENABLE_FUZZING=ON \
  -DSPK_ENABLE_TESTS=OFF -DSPK_ENABLE_TOOLS=OFF -DSPK_ENABLE_PERF_TESTS=OFF \
  -DSPK_ENABLE_EXAMPLES=OFF -DSPK_ENABLE_KOKKOSKERNELS=OFF >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
echo "== build"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

failed=0
summary=()
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  corpus=$build/corpus/$name
  findings=$build/findings/$name
  mkdir -p "$corpus" "$findings"
  echo "== $t ($([ "$seconds" -gt 0 ] && echo "$seconds s" || echo "$runs executions"))"
  log=$build/$t.log
  dict=$root/unit_tests/fuzz/$name.dict
  [ -f "$dict" ] || dict=$root/unit_tests/fuzz/matrix_market.dict  # (fuzz_dense reads the same format)
  set +e
  "$build/unit_tests/fuzz/$t" "$corpus" "$root/unit_tests/fuzz/corpus/$name" \
    -dict="$dict" -max_total_time="$seconds" -runs="$runs" -seed="$seed" \
    -max_len=8192 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=64 -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  secs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE 'in [0-9]+' | grep -oE '[0-9]+' || echo 0)
  line="$t: $execs executions in ${secs} s ($((execs / (secs > 0 ? secs : 1))) exec/s), corpus $(ls "$corpus" | wc -l) inputs, exit $rc"
  summary+=("$line")
  if [ $rc -ne 0 ] || [ -n "$(ls -A "$findings")" ]; then
    failed=1
    tail -n 60 "$log"
    echo "FINDING in $t: see $findings and $log"
  fi
  echo "$line"
done
echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit $failed
