#!/usr/bin/env bash
# Installs what spk needs on a fresh Debian 12 machine, then builds Kokkos and
# Kokkos Kernels 3.4.01 (Serial + OpenMP) from Debian's `trilinos` source
# package into a cache prefix outside the build tree.  A second run finds the
# cache and returns at once.
#
#   scripts/install_deps.sh            # prints the Kokkos prefix on its last line
#   SPK_DEPS_PREFIX=/opt/spk-deps scripts/install_deps.sh
#
# Users with their own Kokkos (for CUDA, say) skip this and pass Kokkos_ROOT.
set -euo pipefail

prefix=${SPK_DEPS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/spk-deps}
kokkos_prefix=$prefix/kokkos-3.4.01
stamp=$kokkos_prefix/.spk-complete
jobs=${SPK_JOBS:-$(nproc)}

log() { echo "[install_deps] $*" >&2; }

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd=sudo

# --- Debian packages ----------------------------------------------------------
packages=(build-essential cmake ninja-build pkg-config libgtest-dev zlib1g-dev
          libopenmpi-dev openmpi-bin python3 python3-matplotlib dpkg-dev
          ca-certificates)
[ "${SPK_WITH_PETSC:-0}" = 1 ] && packages+=(libpetsc-real-dev)
# clang, libFuzzer and LLVM's OpenMP runtime for scripts/run_fuzz.sh
[ "${SPK_WITH_FUZZING:-0}" = 1 ] && packages+=(clang-14 libclang-rt-14-dev libomp-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -f "$stamp" ]; then
  log "Kokkos 3.4.01 found in cache: $kokkos_prefix"
  echo "$kokkos_prefix"
  exit 0
fi

# --- Kokkos + Kokkos Kernels 3.4.01 from Debian's trilinos source package -----
src_list=/etc/apt/sources.list.d/spk-deb-src.sources
if ! apt-get source --print-uris trilinos >/dev/null 2>&1; then
  log "adding a deb-src entry ($src_list)"
  $sudo_cmd tee "$src_list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $sudo_cmd apt-get update -qq
fi

work=$prefix/src
mkdir -p "$work"
cd "$work"
if ! ls trilinos_*.orig.tar.* >/dev/null 2>&1; then
  log "downloading the trilinos source package (about 170 MB)"
  apt-get source --download-only trilinos >/dev/null
fi
tarball=$(ls trilinos_*.orig.tar.* | head -n1)
if [ ! -d kokkos-src ]; then
  log "unpacking Kokkos and Kokkos Kernels from $tarball"
  rm -rf unpack && mkdir unpack
  tar -xf "$tarball" -C unpack --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  top=$(ls unpack)
  mv "unpack/$top/packages/kokkos" kokkos-src
  mv "unpack/$top/packages/kokkos-kernels" kokkos-kernels-src
  rm -rf unpack
fi

log "building Kokkos (Serial + OpenMP) into $kokkos_prefix"
cmake -S kokkos-src -B build-kokkos -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$kokkos_prefix" -DCMAKE_CXX_STANDARD=17 \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON \
  -DKokkos_ENABLE_TESTS=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build build-kokkos -j "$jobs" >/dev/null
cmake --install build-kokkos >/dev/null

# No explicit instantiation: spk instantiates the few Kokkos Kernels templates
# it compares against in its own translation units, and the library builds in
# about a minute instead of half an hour on two cores.
log "building Kokkos Kernels into $kokkos_prefix"
cmake -S kokkos-kernels-src -B build-kk -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$kokkos_prefix" -DKokkos_ROOT="$kokkos_prefix" \
  -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_INST_DOUBLE=OFF \
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_OFFSET_INT=OFF \
  -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_LAYOUTLEFT=OFF \
  -DKokkosKernels_ENABLE_TPL_BLAS=OFF \
  -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build build-kk -j "$jobs" >/dev/null
cmake --install build-kk >/dev/null

rm -rf build-kokkos build-kk
touch "$stamp"
log "done: $kokkos_prefix"
echo "$kokkos_prefix"
