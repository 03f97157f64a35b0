// A Kokkos Tools library that times every kernel and deep copy on its own:
// the device is synchronised (driver API, cuCtxSynchronize) before and after
// each, so each region's time is its own device time plus launch latency,
// with nothing overlapping it.  For finding which kernels of a sequence
// carry real device work (not for the sequence's total: everything is
// serialised).  At exit each process writes, to KERNEL_TIMES_PREFIX<rank>.txt
// (rank: OMPI_COMM_WORLD_RANK, else 0), one line per (region, instance):
// total ms, calls, device id, name; largest first.
//   g++ -O2 -shared -fPIC -I../../src/spk/core -I/usr/local/cuda/include kernel_times.cpp \
//       -o libspk_kernel_times.so -L/usr/local/cuda/lib64/stubs -lcuda
//   KOKKOS_TOOLS_LIBS=$PWD/libspk_kernel_times.so mpirun -np 2 -x KOKKOS_TOOLS_LIBS ...
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <spk_settings.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace {
struct Region {
  std::string name;
  std::uint32_t dev;
  std::chrono::steady_clock::time_point start;
};
struct Total {
  double ms = 0;
  long calls = 0;
};
std::mutex mutex;
std::map<std::uint64_t, Region> open_regions;
std::map<std::pair<std::string, std::uint32_t>, Total> totals;
std::uint64_t next_id = 0;
std::vector<std::uint64_t> copies;  // open deep copies (nest-free in practice)

void sync() {
  CUcontext ctx = nullptr;
  if (cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx) cuCtxSynchronize();
}

std::uint64_t begin(const char* name, std::uint32_t dev) {
  sync();
  std::lock_guard<std::mutex> lock(mutex);
  const std::uint64_t id = next_id++;
  open_regions[id] = Region{name, dev, std::chrono::steady_clock::now()};
  return id;
}

void end(std::uint64_t id) {
  sync();
  const auto t = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = open_regions.find(id);
  if (it == open_regions.end()) return;
  auto& tot = totals[{it->second.name, it->second.dev}];
  tot.ms += std::chrono::duration<double, std::milli>(t - it->second.start).count();
  ++tot.calls;
  open_regions.erase(it);
}
}  // namespace

struct SpaceHandle {
  char name[64];
};

extern "C" {
void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}

void kokkosp_finalize_library() {
  const char* r = spk::environment_variable("OMPI_COMM_WORLD_RANK");
  const char* prefix = spk::environment_variable("KERNEL_TIMES_PREFIX");
  const std::string path = std::string(prefix ? prefix : "kernel_times_") + (r ? r : "0") + ".txt";
  std::vector<std::tuple<double, long, std::uint32_t, std::string>> rows;
  for (const auto& [key, tot] : totals) rows.emplace_back(tot.ms, tot.calls, key.second, key.first);
  std::sort(rows.rbegin(), rows.rend());
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    for (const auto& [ms, calls, dev, name] : rows)
      std::fprintf(f, "%10.3f %7ld %10u %s\n", ms, calls, dev, name.c_str());
    std::fclose(f);
  }
}

void kokkosp_begin_parallel_for(const char* name, std::uint32_t dev, std::uint64_t* id) {
  *id = begin(name, dev);
}
void kokkosp_end_parallel_for(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t dev, std::uint64_t* id) {
  *id = begin(name, dev);
}
void kokkosp_end_parallel_reduce(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_scan(const char* name, std::uint32_t dev, std::uint64_t* id) {
  *id = begin(name, dev);
}
void kokkosp_end_parallel_scan(std::uint64_t id) { end(id); }

void kokkosp_begin_deep_copy(SpaceHandle dst, const char*, const void*, SpaceHandle src,
                             const char*, const void*, std::uint64_t size) {
  const std::string name = std::string("deep_copy ") + src.name + "->" + dst.name +
                           (size >= (1u << 20) ? " >=1MiB" : " <1MiB");
  const std::uint64_t id = begin(name.c_str(), 0);
  std::lock_guard<std::mutex> lock(mutex);
  copies.push_back(id);
}
void kokkosp_end_deep_copy() {
  std::uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (copies.empty()) return;
    id = copies.back();
    copies.pop_back();
  }
  end(id);
}
}
