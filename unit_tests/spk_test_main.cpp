// One main for every backend's tests: initialises Kokkos around GoogleTest.
//
// `--spk-trace-kernels` prints every kernel's name and every deep copy to
// stderr as it starts and ends, unbuffered: when a test crashes the process
// (a host fault inside a launch, a device fault reported later), the last
// lines name the operation.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

void trace_begin(const char* name, const std::uint32_t, std::uint64_t* id) {
  static std::uint64_t next = 0;
  *id = next++;
  std::fprintf(stderr, "[spk-trace] begin %llu %s\n", static_cast<unsigned long long>(*id), name);
  std::fflush(stderr);
}

void trace_end(const std::uint64_t id) {
  std::fprintf(stderr, "[spk-trace] end %llu\n", static_cast<unsigned long long>(id));
  std::fflush(stderr);
}

void trace_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                Kokkos::Tools::SpaceHandle, const char* src, const void*, std::uint64_t bytes) {
  std::fprintf(stderr, "[spk-trace] copy %llu bytes %s <- %s\n",
               static_cast<unsigned long long>(bytes), dst, src);
  std::fflush(stderr);
}

void trace_kernels() {
  namespace KT = Kokkos::Tools::Experimental;
  KT::set_begin_parallel_for_callback(&trace_begin);
  KT::set_begin_parallel_reduce_callback(&trace_begin);
  KT::set_begin_parallel_scan_callback(&trace_begin);
  KT::set_end_parallel_for_callback(&trace_end);
  KT::set_end_parallel_reduce_callback(&trace_end);
  KT::set_end_parallel_scan_callback(&trace_end);
  KT::set_begin_deep_copy_callback(&trace_copy);
}

/// Removes `flag` from argv; true if it was there.
bool take_flag(int& argc, char* argv[], const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) {
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      return true;
    }
  return false;
}

}  // namespace

int main(int argc, char* argv[]) {
  const bool trace = take_flag(argc, argv, "--spk-trace-kernels");
  Kokkos::initialize(argc, argv);
  if (trace) trace_kernels();
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
