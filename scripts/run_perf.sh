#!/usr/bin/env bash
# The main job: builds spk (Release) and runs every perf driver (perf_convert,
# perf_spmv, perf_spgemm, ...) on its corpus of generated matrices plus
# ../shared/matrices when it exists, or on the matrices / directories / specs
# given as arguments; prints the progress, one summary table per driver
# (spk's default against each alternative), and keeps the JSON and plots.
#
#   scripts/run_perf.sh                        # the default corpus (+ ../shared/matrices)
#   scripts/run_perf.sh --full                 # every size that fits the memory
#   scripts/run_perf.sh --corpus small         # small | default | full
#   scripts/run_perf.sh --quick                # CI smoke: small corpus, one repeat
#   scripts/run_perf.sh ~/matrices rmat:18:16  # your own matrices and specs
#
# The corpus and its sizing rule: docs/benchmarks.md.  Options other than
# these go to every driver (e.g. --space cuda, --repeat 20).  A driver that
# fails is reported and the others still run; the exit code is then 1.
#
# Environment: Kokkos_ROOT (skip the dependency script), SPK_PERF_ARGS (extra
# driver options), SPK_PERF_DRIVERS (e.g. "perf_spmv"), SPK_RESULTS_DIR
# (default results/), SPK_BUILD_DIR (default build-perf/), SPK_REUSE_BUILD=1
# (build the drivers in an already configured SPK_BUILD_DIR as it is, e.g.
# the test build, instead of configuring it for this job).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SPK_BUILD_DIR:-$root/build-perf}
results=${SPK_RESULTS_DIR:-$root/results}
jobs=${SPK_JOBS:-$(nproc)}
start=$SECONDS

corpus=()
args=()
have_matrices=0
while [ $# -gt 0 ]; do
  case "$1" in
    --full) corpus=(--corpus full) ;;
    --quick) corpus=(--quick --repeat 1 --warmup 0) ;;
    --corpus) [ $# -ge 2 ] || { echo "run_perf.sh: --corpus needs a value" >&2; exit 2; }
      corpus=(--corpus "$2"); shift ;;
    --corpus=*) corpus=("$1") ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --space|--repeat|--warmup|--memory|--sweep|--serial-loop)  # driver options with a value
      [ $# -ge 2 ] || { echo "run_perf.sh: $1 needs a value" >&2; exit 2; }
      args+=("$1" "$2"); shift ;;
    -*) args+=("$1") ;;
    *) args+=("$1"); have_matrices=1 ;;
  esac
  shift
done

if [ "${SPK_REUSE_BUILD:-0}" != 1 ] || [ ! -f "$build/CMakeCache.txt" ]; then
  if [ -n "${Kokkos_ROOT:-}" ]; then
    prefix=$Kokkos_ROOT
  else
    prefix=$("$root/scripts/install_deps.sh" | tail -n 1)
  fi
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DSPK_ENABLE_TESTS=OFF -DSPK_ENABLE_EXAMPLES=OFF -DSPK_ENABLE_PERF_TESTS=ON \
    ${SPK_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
drivers=${SPK_PERF_DRIVERS:-$(sed -n 's/^spk_add_perf(\(perf_[a-z_]*\) .*/\1/p' "$root/perf_tests/CMakeLists.txt")}
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $drivers
built=$SECONDS

mkdir -p "$results"
if [ "$have_matrices" = 0 ] && [ -d "$root/../shared/matrices" ]; then
  export SPK_MATRIX_DIR=${SPK_MATRIX_DIR:-$(cd "$root/../shared/matrices" && pwd)}
fi
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
jsons=()
failed=()
for d in $drivers; do
  echo "== $d ${corpus[*]:-} ${args[*]:-}"
  rc=0
  # shellcheck disable=SC2086
  "$build/perf_tests/$d" ${corpus[@]+"${corpus[@]}"} ${args[@]+"${args[@]}"} ${SPK_PERF_ARGS:-} \
    --json "$results/$d.json" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "== $d exited with status $rc"
    failed+=("$d ($rc)")
  fi
  [ -f "$results/$d.json" ] && jsons+=("$results/$d.json")
done
echo
# The plots need matplotlib: Debian's python3 has it where another python3
# (pyenv, venv) earlier in PATH may not.
py=python3
if ! python3 -c "import matplotlib" 2>/dev/null && /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  py=/usr/bin/python3
fi
if [ ${#jsons[@]} -gt 0 ]; then
  "$py" "$root/scripts/perf_summary.py" --plots "$results" "${jsons[@]}" || failed+=("perf_summary.py")
fi
echo
echo "run_perf.sh: build $((built - start)) s, runs $((SECONDS - built)) s, total $((SECONDS - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "run_perf.sh: FAILED: ${failed[*]}"
  exit 1
fi
