#!/usr/bin/env bash
# The main job: builds spk (Release) and runs every perf driver (perf_convert,
# perf_spmv, perf_spgemm, ...) on its default suite of generated matrices plus
# ../shared/matrices when it exists, or on the matrices / directories / specs
# given as arguments; prints one readable table and keeps the JSON.
#
#   scripts/run_perf.sh                         # default suite (+ ../shared/matrices)
#   scripts/run_perf.sh ~/matrices rmat:18:16   # your own matrices and specs
#
# Environment: Kokkos_ROOT (skip the dependency script), SPK_PERF_ARGS (extra
# driver options, e.g. "--repeat 20 --space serial" or "--quick"),
# SPK_PERF_DRIVERS (e.g. "perf_spmv"), SPK_RESULTS_DIR (default results/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SPK_BUILD_DIR:-$root/build-perf}
results=${SPK_RESULTS_DIR:-$root/results}
jobs=${SPK_JOBS:-$(nproc)}

if [ -n "${Kokkos_ROOT:-}" ]; then
  prefix=$Kokkos_ROOT
else
  prefix=$("$root/scripts/install_deps.sh" | tail -n 1)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DSPK_ENABLE_TESTS=OFF -DSPK_ENABLE_EXAMPLES=OFF -DSPK_ENABLE_PERF_TESTS=ON \
  ${SPK_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
drivers=${SPK_PERF_DRIVERS:-$(sed -n 's/^spk_add_perf(\(perf_[a-z_]*\) .*/\1/p' "$root/perf_tests/CMakeLists.txt")}
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $drivers

mkdir -p "$results"
if [ $# -eq 0 ] && [ -d "$root/../shared/matrices" ]; then
  export SPK_MATRIX_DIR=${SPK_MATRIX_DIR:-$(cd "$root/../shared/matrices" && pwd)}
fi
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
jsons=()
for d in $drivers; do
  echo "== $d $*"
  # shellcheck disable=SC2086
  "$build/perf_tests/$d" "$@" ${SPK_PERF_ARGS:-} --json "$results/$d.json"
  jsons+=("$results/$d.json")
done
echo
python3 "$root/scripts/perf_summary.py" "${jsons[@]}"
