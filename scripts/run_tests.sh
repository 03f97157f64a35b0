#!/usr/bin/env bash
# Builds spk and runs the whole test suite:
#   - unit tests on every enabled Kokkos backend (serial.*, openmp.*, cuda.*),
#     host tests (io.*, generators.*), the command-line checks and the examples;
#   - then installs spk and builds + runs the out-of-tree example against the
#     installed package with find_package(spk);
#   - with SPK_SANITIZE=address (CI sets it; "address,undefined" is the same),
#     the unit tests once more, built with AddressSanitizer and
#     UndefinedBehaviorSanitizer (-fsanitize=address,undefined
#     -fno-sanitize-recover=undefined: any undefined behaviour fails the run),
#     with spk's memory pool on and off (off: every array is an allocation of
#     its own, so a read past one is caught).  The sanitized build runs the
#     OpenMP bodies and the host tests (the threaded paths, atomics
#     included); the Serial bodies run unsanitized above.
# Dependencies come from scripts/install_deps.sh unless Kokkos_ROOT is set
# (e.g. to a CUDA build of Kokkos).  Extra CMake arguments: SPK_CMAKE_ARGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SPK_BUILD_DIR:-$root/build-tests}
jobs=${SPK_JOBS:-$(nproc)}

if [ -n "${Kokkos_ROOT:-}" ]; then
  prefix=$Kokkos_ROOT
else
  prefix=$("$root/scripts/install_deps.sh" | tail -n 1)
fi

echo "== configure ($build, Kokkos from $prefix)"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_INSTALL_PREFIX="$build/install" \
  -DSPK_ENABLE_TESTS=ON -DSPK_ENABLE_EXAMPLES=ON -DSPK_ENABLE_PERF_TESTS=ON -DSPK_ENABLE_MPI=ON \
  ${SPK_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
grep -E "^-- spk:" "$build.configure.log" || true

echo "== build"
cmake --build "$build" -j "$jobs"

echo "== install, then build the out-of-tree example against the installed spk"
cmake --install "$build" >/dev/null
cmake -S "$root/examples/basic" -B "$build/example-out-of-tree" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/install;$prefix" >/dev/null
cmake --build "$build/example-out-of-tree" -j "$jobs"
"$build/example-out-of-tree/spk_example_basic" poisson3d:20

echo "== tests"
cd "$build"
ctest --output-on-failure --timeout 1800

case "${SPK_SANITIZE:-}" in
  address | address,undefined) sanitize=1 ;;
  "") sanitize=0 ;;
  *) echo "SPK_SANITIZE=$SPK_SANITIZE: expected address (or address,undefined)" >&2; exit 2 ;;
esac
if [ "$sanitize" = 1 ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: OpenMP and host unit tests (MPI, examples and perf tests off)"
  asan=${SPK_ASAN_BUILD_DIR:-$build-asan}
  san_flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  # shellcheck disable=SC2086
  # -O1: half the compile time of -O3 under the sanitizers (the heaviest test
  # file: 135 s against 268 s on one core), the speed AddressSanitizer's
  # documentation recommends; the plain build above keeps -O3.
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DSPK_ENABLE_TESTS=ON -DSPK_ENABLE_EXAMPLES=OFF -DSPK_ENABLE_PERF_TESTS=OFF -DSPK_ENABLE_MPI=OFF \
    -DSPK_TEST_BACKENDS=openmp -DCMAKE_CXX_FLAGS="$san_flags -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$san_flags" \
    ${SPK_CMAKE_ARGS:-} >"$asan.configure.log" 2>&1 || { cat "$asan.configure.log"; exit 1; }
  cmake --build "$asan" -j "$jobs" --target spk_unit_tests
  for pool in 1 0; do
    echo "-- SPK_MEMORY_POOL=$pool"
    SPK_MEMORY_POOL=$pool ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$asan/unit_tests/spk_unit_tests" --gtest_brief=1
  done
fi
