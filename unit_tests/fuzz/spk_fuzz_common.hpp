// Shared by spk's libFuzzer targets: Kokkos started once, on one host
// thread (small inputs then run without parallel regions), and a check that
// aborts with a message, which libFuzzer reports as a finding.
#pragma once

#include <zlib.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define SPK_FUZZ_CHECK(cond, ...)                                                             \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "spk fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fprintf(stderr, "\n");                                                             \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace spk_fuzz {

/// Starts Kokkos on one host thread, once per process, and finalises it at
/// exit.
inline void initialize_kokkos() {
  if (Kokkos::is_initialized()) return;
  // One OpenMP thread, which never spins waiting for work between inputs.
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("OMP_PROC_BIND", "false", 1);
  setenv("KMP_BLOCKTIME", "0", 1);
  char name[] = "spk_fuzz", threads[] = "--kokkos-num-threads=1",
       quiet[] = "--kokkos-disable-warnings";
  char* argv[] = {name, threads, quiet, nullptr};
  int argc = 3;
  Kokkos::initialize(argc, argv);
  std::atexit([] { Kokkos::finalize(); });
}

inline std::string_view as_text(const std::uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

/// A gzip stream of bytes (fast, with a small window and little memory:
/// fuzzing wants speed, not ratio).
inline std::string gzip(std::string_view bytes) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + 9, 1, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  // (deflateBound, not compressBound: it knows the small window and memory)
  std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

/// Lines of a text as the reader numbers them: an error's line lies in
/// [0, this] (0: the whole input; the last: the empty line after a final
/// newline, where a missing entry is reported).
inline long long line_count(std::string_view text) {
  long long n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace spk_fuzz
