// What every perf driver (perf_<op>) shares: command line, timing, the
// corpus, memory budgets, progress lines, bandwidth ceilings, the printed
// table and the JSON file.
//
//   perf_<op> [MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick]
//             [--repeat N] [--warmup N] [--space serial|openmp|cuda|default]
//             [--json FILE] [--memory GIB]
//
// A DIR argument adds every *.mtx / *.mtx.gz file in it (not recursive).
// With no matrix argument the driver runs a corpus (corpus_matrices below,
// docs/benchmarks.md): every generated family at two or more sizes, sized
// from the memory of the space it runs on, plus the real matrices of
// $SPK_MATRIX_DIR.  --quick is --corpus small.  --memory GIB caps the memory
// the corpus and the per-matrix estimates assume (default: what is free).
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <spk.hpp>
#include <spk_execution_spaces.hpp>
#include <sstream>
#include <string>
#include <vector>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#include <library_types.h>  // cudaDataType
#endif

namespace spk::perf {

/// A matrix read in double with values of scalar type S (--scalar), `name`
/// its spec or file: complex values are the generators' values=complex
/// (spk::with_complex_values: |a_ij| kept, both parts nonzero), so complex
/// products carry both parts.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> with_scalar(const std::string& name,
                                           const CsrMatrix<double, O, F, HostDevice>& A) {
  if constexpr (std::is_same_v<S, double>) {
    return A;
  } else if constexpr (is_complex_v<S>) {
    return with_complex_values<S>(name, A);
  } else {
    CsrMatrix<S, O, F, HostDevice> B("A", A.num_rows(), A.num_cols(), A.nnz());
    Kokkos::deep_copy(B.row_map(), A.row_map());
    Kokkos::deep_copy(B.col_idx(), A.col_idx());
    for (size_t k = 0; k < A.values().extent(0); ++k) B.values()(k) = static_cast<S>(A.values()(k));
    return B;
  }
}

#if defined(KOKKOS_ENABLE_CUDA)
/// cuSPARSE's name of scalar type S.
template <class S>
constexpr cudaDataType cuda_data_type() {
  if constexpr (std::is_same_v<S, float>) return CUDA_R_32F;
  if constexpr (std::is_same_v<S, double>) return CUDA_R_64F;
  if constexpr (std::is_same_v<S, Kokkos::complex<float>>) return CUDA_C_32F;
  return CUDA_C_64F;
}
#endif

/// Which generated matrices run when none are named: `small` for CPU and CI
/// smoke runs, `standard` (the default) sized so a 2-core machine finishes
/// the main job in minutes and a GPU sees 10⁶–10⁷ rows, `full` everything up
/// to what the space's memory holds.
enum class Corpus { standard, small, full };

inline const char* to_string(Corpus c) {
  return c == Corpus::small ? "small" : c == Corpus::full ? "full" : "default";
}

/// --memory GIB: a cap on the memory the estimates and the corpus assume
/// (0: none), for a machine shared with other work.
inline double& memory_cap_bytes() {
  static double cap = 0;
  return cap;
}

inline double capped(double bytes) {
  return memory_cap_bytes() > 0 ? std::min(bytes, memory_cap_bytes()) : bytes;
}

struct Options {
  std::vector<std::string> matrices;  // files and generator specs, in order
  int repeat = 10;
  int warmup = 2;
  std::string space = "default";
  std::string json;
  bool quick = false;  // --quick: the small corpus
  Corpus corpus = Corpus::standard;
  std::string command_line;
  std::map<std::string, std::string> extra;  // --key=value options a driver declares
};

/// Files *.mtx / *.mtx.gz of a directory, sorted by name.
inline std::vector<std::string> matrix_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && (Impl::has_suffix(p, ".mtx") || Impl::has_suffix(p, ".mtx.gz")))
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// perf_spgemm's AMG-setup products: ap:agg|sa:SPEC is A·P, ptap:agg|sa:SPEC
/// is Pᵀ·(A·P), with P the aggregation (agg) or smoothed-aggregation (sa)
/// prolongator of the square matrix SPEC (a generator spec or a file).
inline bool is_product_spec(const std::string& s) {
  for (const char* p : {"ap:agg:", "ap:sa:", "ptap:agg:", "ptap:sa:"})
    if (s.rfind(p, 0) == 0 && s.size() > std::strlen(p)) return true;
  return false;
}

/// Parses the common options; `extra_keys` are driver options taking a value
/// (--key VALUE or --key=VALUE).  Exits with a message on bad input.
inline Options parse_args(int argc, char* argv[], const std::string& usage,
                          const std::vector<std::string>& extra_keys = {}) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  auto fail = [&](const std::string& msg) {
    std::cerr << argv[0] << ": " << msg << "\nusage: " << argv[0] << " " << usage << "\n";
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], value;
    const size_t eq = a.find('=');
    const bool has_eq = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_eq) value = a.substr(eq + 1), a = a.substr(0, eq);
    auto take = [&]() -> std::string {
      if (has_eq) return value;
      if (i + 1 >= argc) fail("option " + a + " needs a value");
      return argv[++i];
    };
    auto integer = [&](const std::string& v) {
      try {
        size_t used = 0;
        const int n = std::stoi(v, &used);
        if (used != v.size() || n < 0) throw 0;
        return n;
      } catch (...) {
        fail("option " + a + ": '" + v + "' is not a non-negative integer");
      }
      return 0;
    };
    if (a == "--repeat")
      o.repeat = std::max(1, integer(take()));
    else if (a == "--warmup")
      o.warmup = integer(take());
    else if (a == "--space")
      o.space = take();
    else if (a == "--json")
      o.json = take();
    else if (a == "--memory") {
      const std::string v = take();
      char* end = nullptr;
      const double gib = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(gib > 0))
        fail("option --memory: '" + v + "' is not a positive number of GiB");
      memory_cap_bytes() = gib * double(1 << 30);
    } else if (a == "--quick")
      o.quick = true, o.corpus = Corpus::small;
    else if (a == "--corpus") {
      const std::string c = take();
      if (c == "small")
        o.corpus = Corpus::small;
      else if (c == "full")
        o.corpus = Corpus::full;
      else if (c == "default")
        o.corpus = Corpus::standard;
      else
        fail("option --corpus: '" + c + "' is none of small, default, full");
      o.quick = o.corpus == Corpus::small;
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: " << argv[0] << " " << usage << "\n";
      std::exit(0);
    } else if (a.rfind("--kokkos", 0) == 0)
      continue;
    else if (a.rfind("--", 0) == 0) {
      const std::string key = a.substr(2);
      if (std::find(extra_keys.begin(), extra_keys.end(), key) == extra_keys.end())
        fail("unknown option " + a);
      o.extra[key] = take();
    } else if (std::filesystem::is_directory(a)) {
      for (auto& f : matrix_files(a)) o.matrices.push_back(f);
    } else if (is_generator_spec(a) || std::filesystem::exists(a) || is_product_spec(a) ||
               (a.rfind("local:", 0) == 0 && is_generator_spec(a.substr(6)))) {
      // local:SPEC: generated by each rank where its rows live (perf_dist);
      // ap:/ptap: products of AMG setup (perf_spgemm).
      o.matrices.push_back(a);
    } else {
      fail("'" + a + "' is neither a file, a directory nor a generator spec");
    }
  }
  return o;
}

/// The shared SuiteSparse directory, if $SPK_MATRIX_DIR names one.
inline std::string shared_matrix_dir() {
  const char* env = spk::environment_variable("SPK_MATRIX_DIR");
  return env && *env && std::filesystem::is_directory(env) ? env : "";
}

// ---- memory -------------------------------------------------------------------

/// A field of /proc/meminfo or /proc/self/status in bytes (its kB value ×
/// 1024), or -1 when the file or field is missing.
inline long long proc_kb_field(const char* file, const char* field) {
  std::ifstream f(file);
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return 1024 * std::atoll(line.c_str() + key.size());
  return -1;
}

/// Host memory available to this process now: MemAvailable (what Linux can
/// give without swapping), else physical memory; at most --memory.
inline double host_available_bytes() {
  const long long avail = proc_kb_field("/proc/meminfo", "MemAvailable");
  if (avail > 0) return capped(static_cast<double>(avail));
  return capped(static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                static_cast<double>(sysconf(_SC_PAGE_SIZE)));
}

/// Free and total memory of the space's memory (the host's for host spaces).
template <class ExecSpace>
std::pair<double, double> space_memory_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      return {capped(static_cast<double>(free_b)), capped(static_cast<double>(total_b))};
  }
#endif
  const long long total = proc_kb_field("/proc/meminfo", "MemTotal");
  return {host_available_bytes(),
          total > 0 ? capped(static_cast<double>(total)) : host_available_bytes()};
}

/// The process's resident-set high-water mark in bytes (VmHWM; getrusage's
/// ru_maxrss where /proc is missing).
inline long long peak_rss_bytes() {
  const long long hwm = proc_kb_field("/proc/self/status", "VmHWM");
  if (hwm >= 0) return hwm;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return 1024LL * u.ru_maxrss;
}

/// The largest high-water mark seen before reset_peak_rss() started a new one.
inline long long& earlier_peak_rss() {
  static long long peak = 0;
  return peak;
}

/// Starts a new high-water mark (Linux ≥ 4.0: writing 5 to clear_refs
/// resets VmHWM to the current RSS), so that peak_rss_bytes() after a matrix
/// is that matrix's peak.  Without it the mark is the process's so far.
inline void reset_peak_rss() {
  earlier_peak_rss() = std::max(earlier_peak_rss(), peak_rss_bytes());
  std::ofstream f("/proc/self/clear_refs");
  if (f) f << "5";
}

/// The process's resident high-water mark over its whole run.
inline long long process_peak_rss_bytes() { return std::max(earlier_peak_rss(), peak_rss_bytes()); }

/// Live and peak bytes of Kokkos allocations in device memory (all Kokkos
/// allocations on host spaces), from Kokkos's allocation hooks; drivers add
/// what they allocate outside Kokkos (cuSPARSE buffers) with add / remove.
struct MemTracker {
  static inline long long live = 0, peak = 0, matrix_peak = 0;
  static inline bool device_only = true;
  static bool counts(const Kokkos::Tools::SpaceHandle h) {
    return !device_only || std::strcmp(h.name, "Host") != 0;
  }
  static void add(long long bytes) {
    live += bytes;
    peak = std::max(peak, live);
    matrix_peak = std::max(matrix_peak, live);
  }
  static void remove(long long bytes) { live -= bytes; }
  static void on_alloc(const Kokkos::Tools::SpaceHandle h, const char*, const void*,
                       const uint64_t size) {
    if (counts(h)) add(static_cast<long long>(size));
  }
  static void on_free(const Kokkos::Tools::SpaceHandle h, const char*, const void*,
                      const uint64_t size) {
    if (counts(h)) remove(static_cast<long long>(size));
  }
  /// Starts a new peak for one measurement (peak) or one matrix (matrix_peak).
  static void reset() { peak = live; }
  static void reset_matrix() { matrix_peak = live; }
  static long long extra() { return peak - live; }
  /// Registers the hooks (after Kokkos::initialize).
  static void install(bool host_space) {
    device_only = !host_space;
    Kokkos::Tools::Experimental::set_allocate_data_callback(&on_alloc);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_free);
  }
};

/// Whether `need` bytes fit the memory a run may use now: at most 3/4 of
/// what is available (the rest for the system, the other processes and what
/// the estimate misses).  `reason` says why not.
inline bool fits_memory(double need, double available, const char* where, std::string& reason) {
  if (need <= 0.75 * available) return true;
  std::ostringstream o;
  o.precision(3);
  o << "needs ~" << need / double(1 << 30) << " GiB of " << where << " memory, "
    << available / double(1 << 30) << " GiB available";
  reason = o.str();
  return false;
}

inline std::string gib(double bytes) {
  std::ostringstream o;
  o.precision(3);
  o << bytes / double(1 << 30) << " GiB";
  return o.str();
}

// ---- the corpus -------------------------------------------------------------------

/// Generated matrices of about `nnz` nonzeros each, one per family (products
/// also adds the AMG-setup products of perf_spgemm).
inline std::vector<std::string> corpus_family_specs(double nnz, bool products) {
  auto root = [&](double per, int k) {
    return std::to_string(std::max(2LL, std::llround(std::pow(nnz / per, 1.0 / k))));
  };
  auto rows = [&](double per) { return std::to_string(std::max(16LL, std::llround(nnz / per))); };
  const std::string n8 = rows(8);
  // R-MAT's products grow faster than its nonzeros (hubs): half the size.
  const int rmat_scale = std::max(6, static_cast<int>(std::lround(std::log2(nnz / 32.0))));
  std::vector<std::string> s = {
      "poisson2d:" + root(5, 2),
      "poisson3d:" + root(7, 3),
      "stencil27:" + root(27, 3),
      "fem:" + root(243, 3) + ":3:27:1",
      "fem:" + root(252, 3) + ":6:7:1",
      "banded:" + rows(13) + ":200:13:1",
      "blockdiag:" + rows(64) + ":64:1",
      "random:" + n8 + ":" + n8 + ":8:1",
      "powerlaw:" + n8 + ":8:1.5:1:1",
      "rmat:" + std::to_string(rmat_scale) + ":8:1",
      "arrow:" + std::to_string(std::max(64LL, std::llround(nnz / 11))) + ":4:1",
  };
  if (products) {
    const std::string a = "stencil27:" + root(27, 3);
    s.push_back("ap:sa:" + a);
    s.push_back("ptap:sa:" + a);
    s.push_back("ptap:agg:poisson3d:" + root(7, 3));
  } else {
    s.push_back("prolongator:sa:stencil27:" + root(27, 3));
  }
  return s;
}

/// The sizes (nonzeros of A per family) of a corpus.  `memory` is what the
/// space has (host memory for host spaces, device memory for CUDA): no size
/// above memory / 400 B (A, its copies, C of a few times A's size and the
/// temporaries of the products).
inline std::vector<double> corpus_sizes(Corpus c, bool host, double memory) {
  const double cap = memory / 400.0;
  std::vector<double> sizes;
  if (c == Corpus::small) return {2e4, 1.5e5};
  const double base = host ? 1.5e5 : 2e6;
  if (c == Corpus::standard) {
    sizes = {base, std::min(host ? 1e6 : 3.2e7, cap)};
  } else {
    for (double t = base; t <= cap; t *= 8) sizes.push_back(t);
  }
  if (sizes.size() < 2 || sizes[1] <= sizes[0])
    sizes = {std::min(base, cap / 8), std::min(base * 8, cap)};
  return sizes;
}

/// The corpus: every family at each size, smallest first, then the real
/// matrices of $SPK_MATRIX_DIR (in the small corpus only files below 1 MB).
inline std::vector<std::string> corpus_matrices(Corpus c, bool host, double memory, bool products) {
  std::vector<std::string> out;
  for (double nnz : corpus_sizes(c, host, memory))
    for (auto& s : corpus_family_specs(nnz, products)) out.push_back(s);
  if (const std::string dir = shared_matrix_dir(); !dir.empty())
    for (const auto& f : matrix_files(dir))
      if (c != Corpus::small || std::filesystem::file_size(f) < (1u << 20)) out.push_back(f);
  return out;
}

/// The corpus of a driver when no matrix was named, on space ExecSpace.
template <class ExecSpace>
std::vector<std::string> default_matrices(const Options& o, bool products) {
  const bool host = spk::Impl::is_host_space_v<ExecSpace>;
  return corpus_matrices(o.corpus, host, space_memory_bytes<ExecSpace>().first, products);
}

// ---- progress -------------------------------------------------------------------

/// "[i/n] matrix impl (elapsed s)" on stderr for each step of a run, so a
/// long run shows where it is without mixing into the table on stdout.
class Progress {
 public:
  explicit Progress(size_t n) : n_(n), t0_(std::chrono::steady_clock::now()) {}
  void matrix(size_t i, const std::string& name) {
    i_ = i;
    name_ = name;
    step("load");
  }
  void step(const std::string& what) const {
    std::fprintf(stderr, "[%zu/%zu] %s %s (elapsed %.1f s)\n", i_ + 1, n_, name_.c_str(),
                 what.c_str(), elapsed_s());
    std::fflush(stderr);
  }
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  size_t n_, i_ = 0;
  std::string name_;
  std::chrono::steady_clock::time_point t0_;
};

/// Median wall time in ms of `repeat` runs of f after `warmup` runs.  f must
/// fence its work (all spk and Kokkos calls below do).
template <class F>
double median_ms(int warmup, int repeat, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t(repeat);
  for (int i = 0; i < repeat; ++i) {
    const auto b = std::chrono::steady_clock::now();
    f();
    t[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count();
  }
  std::sort(t.begin(), t.end());
  return repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
}

/// One implementation's times from time_in_turn, in ms.
struct TurnTimes {
  double median_ms = 0, min_ms = 0;
};

/// Times several implementations of one operation in turn: `warmup` passes,
/// then `repeat` passes that each run every implementation once, each run
/// followed by sync().  Drift of the machine (a neighbour's load, the clock,
/// the GPU's power state) then falls on all implementations alike.  Blocks of
/// repeats, one implementation after another, do not give that: on a 2-core
/// host the same kernel timed in two such blocks of one run came out up to 3×
/// apart (ca-CondMat, 2 OpenMP threads).  Every implementation must read and
/// write the same data, so that none finds the caches warmed for it alone.
template <class Sync>
std::vector<TurnTimes> time_in_turn(int warmup, int repeat,
                                    const std::vector<std::function<void()>>& runs, Sync&& sync) {
  for (int r = 0; r < warmup; ++r)
    for (const auto& f : runs) {
      f();
      sync();
    }
  std::vector<std::vector<double>> t(runs.size());
  for (int r = 0; r < repeat; ++r)
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto b = std::chrono::steady_clock::now();
      runs[i]();
      sync();
      t[i].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count());
    }
  std::vector<TurnTimes> out(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& v = t[i];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    out[i] = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v.front()};
  }
  return out;
}

/// median_ms for slow host baselines: a first run of at least `budget_ms`
/// is the measurement; shorter ones are timed as median_ms.  The serial
/// COO->CSR reference takes 5-15 s on 10^7-entry matrices, and four runs
/// of it on each large matrix kept perf_convert's CUDA corpus run past ten
/// minutes.
template <class F>
double median_ms_within(double budget_ms, int warmup, int repeat, F&& f) {
  const auto b = std::chrono::steady_clock::now();
  f();
  const double first =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count();
  if (first >= budget_ms) return first;
  return median_ms(warmup > 0 ? warmup - 1 : 0, repeat, f);
}

/// Bandwidth of a device-to-device copy in the space's memory (bytes read +
/// written per second), measured now: the ceiling memory-bound kernels are
/// compared with.  On a host space this is a streaming copy.
template <class ExecSpace>
double copy_gbps(const ExecSpace& space, size_t bytes = size_t(1) << 29) {
  using View = Kokkos::View<double*, typename ExecSpace::memory_space>;
  const size_t n = bytes / sizeof(double);
  View a(Kokkos::ViewAllocateWithoutInitializing("copy.a"), n);
  View b(Kokkos::ViewAllocateWithoutInitializing("copy.b"), n);
  Kokkos::deep_copy(space, a, 1.5);
  space.fence();
  const double ms = median_ms(2, 10, [&] {
    Kokkos::deep_copy(space, b, a);
    space.fence();
  });
  return 2.0 * n * sizeof(double) / (ms * 1e6);
}

/// One measurement.  Names follow the JSON schema shared by all drivers.
struct Record {
  std::string op, matrix, impl, space;
  long long rows = 0, cols = 0, nnz = 0;
  double ms = 0;     // median
  double gbps = -1;  // effective bandwidth from counted bytes (-1: n/a)
  double gflops = -1;
  std::vector<std::pair<std::string, double>> numbers;       // op-specific
  std::vector<std::pair<std::string, std::string>> strings;  // op-specific
  std::string status = "ok";  // ok, skipped (would not fit) or failed (threw)
  std::string message;        // why, when not ok
};

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += c;
    else if (c == '\n')
      o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      o += ' ';
    else
      o += c;
  }
  return o;
}

inline std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

/// Collects records, prints them as a table and writes them as JSON.
class Report {
 public:
  explicit Report(Options o) : opt_(std::move(o)) {}

  /// Prints the row and rewrites the JSON with it, so that a run stopped
  /// part-way (a time limit, a crash in a later matrix) keeps what it measured.
  void add(Record r) {
    print_row(r);
    records_.push_back(std::move(r));
    write_json();
  }

  /// A row for a matrix or implementation that did not run: status
  /// "skipped" (it would not fit) or "failed" (it threw), with the reason.
  void add_status(Record r, const std::string& status, const std::string& message) {
    r.status = status;
    r.message = message;
    r.ms = std::numeric_limits<double>::quiet_NaN();
    r.gbps = r.gflops = -1;
    add(std::move(r));
  }

  /// What the summary compares: the implementation a user gets by default,
  /// and the alternatives it is compared with (JSON "default_impl",
  /// "alternatives").
  void set_comparison(std::string default_impl, std::vector<std::string> alternatives) {
    default_impl_ = std::move(default_impl);
    alternatives_ = std::move(alternatives);
  }

  /// Memory of the space at the start, for the JSON.
  void set_memory(double available, double total) {
    memory_available_ = available;
    memory_total_ = total;
  }

  /// The end of a run: counts of ok / skipped / failed records, the
  /// process's peak RSS, then the JSON.
  void finish() {
    size_t ok = 0, skipped = 0, failed = 0;
    for (const auto& r : records_)
      (r.status == "ok" ? ok : r.status == "skipped" ? skipped : failed) += 1;
    note("records: " + std::to_string(ok) + " ok, " + std::to_string(skipped) + " skipped, " +
         std::to_string(failed) + " failed; peak RSS " + gib(double(process_peak_rss_bytes())) +
         " (whole process); elapsed " + json_number(elapsed_s()) + " s");
    write_json();
    if (!opt_.json.empty()) std::printf("# wrote %s\n", opt_.json.c_str());
    std::fflush(stdout);
  }

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

  /// A note printed now and stored in the JSON "notes" list.
  void note(const std::string& s) {
    std::printf("# %s\n", s.c_str());
    std::fflush(stdout);
    notes_.push_back(s);
  }

  void print_header() const {
    std::printf("%-14s %-26s %-22s %-7s %10s %10s %10s %8s  %s\n", "op", "matrix", "impl", "space",
                "rows", "nnz", "ms", "GB/s", "GFLOP/s / notes");
    std::fflush(stdout);
  }

  void write_json() const {
    if (opt_.json.empty()) return;
    std::ofstream f(opt_.json);
    if (!f) throw Error("cannot write " + opt_.json);
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    f << "{\n  \"command\": \"" << json_escape(opt_.command_line) << "\",\n";
    f << "  \"date\": \"" << date << "\",\n";
    f << "  \"spk_version\": \"" << SPK_VERSION_STRING << "\",\n";
    f << "  \"kokkos_version\": " << KOKKOS_VERSION << ",\n";
    f << "  \"corpus\": \"" << to_string(opt_.corpus) << "\",\n";
    f << "  \"default_impl\": \"" << json_escape(default_impl_) << "\",\n";
    f << "  \"alternatives\": [";
    for (size_t i = 0; i < alternatives_.size(); ++i)
      f << (i ? ", " : "") << "\"" << json_escape(alternatives_[i]) << "\"";
    f << "],\n";
    f << "  \"memory_available_bytes\": " << json_number(memory_available_) << ",\n";
    f << "  \"memory_total_bytes\": " << json_number(memory_total_) << ",\n";
    f << "  \"peak_rss_bytes\": " << process_peak_rss_bytes() << ",\n";
    f << "  \"elapsed_s\": " << json_number(elapsed_s()) << ",\n";
    f << "  \"notes\": [";
    for (size_t i = 0; i < notes_.size(); ++i)
      f << (i ? ", " : "") << "\"" << json_escape(notes_[i]) << "\"";
    f << "],\n  \"records\": [\n";
    for (size_t i = 0; i < records_.size(); ++i) {
      const Record& r = records_[i];
      f << "    {\"op\": \"" << json_escape(r.op) << "\", \"matrix\": \"" << json_escape(r.matrix)
        << "\", \"rows\": " << r.rows << ", \"cols\": " << r.cols << ", \"nnz\": " << r.nnz
        << ", \"impl\": \"" << json_escape(r.impl) << "\", \"space\": \"" << r.space
        << "\", \"ms\": " << json_number(r.ms)
        << ", \"gbps\": " << (r.gbps >= 0 ? json_number(r.gbps) : "null")
        << ", \"gflops\": " << (r.gflops >= 0 ? json_number(r.gflops) : "null")
        << ", \"status\": \"" << r.status << "\"";
      if (!r.message.empty()) f << ", \"message\": \"" << json_escape(r.message) << "\"";
      for (const auto& [k, v] : r.numbers)
        f << ", \"" << json_escape(k) << "\": " << json_number(v);
      for (const auto& [k, v] : r.strings)
        f << ", \"" << json_escape(k) << "\": \"" << json_escape(v) << "\"";
      f << "}" << (i + 1 < records_.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
  }

  const std::vector<Record>& records() const { return records_; }

  /// Adds a number to the records from index `first` on (per-matrix values
  /// known once the matrix is done); they reach the JSON, not the table.
  void annotate_since(size_t first, const std::string& key, double value) {
    for (size_t i = first; i < records_.size(); ++i) records_[i].numbers.push_back({key, value});
  }

 private:
  static void print_row(const Record& r) {
    if (r.status != "ok") {
      std::printf("%-14s %-26s %-22s %-7s %10lld %10lld %10s %8s  %s: %s\n", r.op.c_str(),
                  r.matrix.substr(0, 26).c_str(), r.impl.c_str(), r.space.c_str(), r.rows, r.nnz,
                  "-", "-", r.status.c_str(), r.message.c_str());
      std::fflush(stdout);
      return;
    }
    std::string tail = r.gflops >= 0 ? json_number(r.gflops) : "";
    for (const auto& [k, v] : r.numbers) tail += " " + k + "=" + json_number(v);
    for (const auto& [k, v] : r.strings) tail += " " + k + "=" + v;
    std::printf("%-14s %-26s %-22s %-7s %10lld %10lld %10.3f %8s  %s\n", r.op.c_str(),
                r.matrix.substr(0, 26).c_str(), r.impl.c_str(), r.space.c_str(), r.rows, r.nnz,
                r.ms, r.gbps >= 0 ? json_number(r.gbps).c_str() : "-", tail.c_str());
    std::fflush(stdout);
  }

  Options opt_;
  std::vector<Record> records_;
  std::vector<std::string> notes_;
  std::string default_impl_;
  std::vector<std::string> alternatives_;
  double memory_available_ = std::numeric_limits<double>::quiet_NaN();
  double memory_total_ = std::numeric_limits<double>::quiet_NaN();
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

/// The loop of a driver over its matrices: `run`(fn) calls fn(spec) for
/// each with a progress line, a fresh peak-memory mark and a failure that
/// stays one row: an exception becomes a "failed" record (op, matrix, impl
/// "all") and the run goes on.  Afterwards each record of the matrix gets
/// its peak_rss_bytes (the process's resident high-water mark during the
/// matrix) and peak_device_bytes (MemTracker's high-water mark: Kokkos
/// allocations of the space, and what the driver added), and the JSON is
/// rewritten, so a run cut short keeps what it measured.
class MatrixLoop {
 public:
  MatrixLoop(std::string op, std::string space, const std::vector<std::string>& matrices,
             Report& report)
      : op_(std::move(op)),
        space_(std::move(space)),
        matrices_(matrices),
        report_(report),
        progress_(matrices.size()) {}

  template <class Fn>
  void run(Fn&& fn) {
    for (size_t i = 0; i < matrices_.size(); ++i) {
      const std::string& spec = matrices_[i];
      const std::string name = matrix_display_name(spec);
      progress_.matrix(i, name);
      reset_peak_rss();
      MemTracker::reset_matrix();
      const size_t first = report_.records().size();
      try {
        fn(spec);
      } catch (const std::exception& e) {
        Record r;
        r.op = op_;
        r.matrix = name;
        r.impl = "all";
        r.space = space_;
        report_.add_status(r, "failed", e.what());
        progress_.step(std::string("failed: ") + e.what());
      }
      report_.annotate_since(first, "peak_rss_bytes", double(peak_rss_bytes()));
      report_.annotate_since(first, "peak_device_bytes", double(MemTracker::matrix_peak));
      report_.write_json();
    }
  }

  /// A progress line for a step of the current matrix.
  void step(const std::string& what) const { progress_.step(what); }

 private:
  std::string op_, space_;
  const std::vector<std::string>& matrices_;
  Report& report_;
  Progress progress_;
};

/// Calls f(ExecSpace()) for the space named by --space.
template <class F>
void with_space(const std::string& name, F&& f) {
  with_execution_space(name, std::forward<F>(f));
}

/// Process set-up for drivers: thread placement, then Kokkos.
inline void set_thread_placement() {
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
}

/// Kokkos Tools callbacks of the diagnosis classes below: kernels (for,
/// reduce, scan), deep copies and, if given, fences.  Null pointers remove
/// them again.
using ToolBegin = void (*)(const char*, const std::uint32_t, std::uint64_t*);
using ToolEnd = void (*)(const std::uint64_t);
using ToolBeginCopy = void (*)(Kokkos::Tools::SpaceHandle, const char*, const void*,
                               Kokkos::Tools::SpaceHandle, const char*, const void*, std::uint64_t);
using ToolEndCopy = void (*)();
inline void set_tool_callbacks(ToolBegin begin, ToolEnd end, ToolBeginCopy begin_copy,
                               ToolEndCopy end_copy, ToolBegin begin_fence = nullptr) {
  namespace KT = Kokkos::Tools::Experimental;
  KT::set_begin_parallel_for_callback(begin);
  KT::set_begin_parallel_reduce_callback(begin);
  KT::set_begin_parallel_scan_callback(begin);
  KT::set_end_parallel_for_callback(end);
  KT::set_end_parallel_reduce_callback(end);
  KT::set_end_parallel_scan_callback(end);
  KT::set_begin_deep_copy_callback(begin_copy);
  KT::set_end_deep_copy_callback(end_copy);
  KT::set_begin_fence_callback(begin_fence);
  KT::set_end_fence_callback(begin_fence ? end : nullptr);
}

/// Time per kernel label: while a KernelProfile is active, every Kokkos
/// parallel_for / reduce / scan and deep_copy is fenced before and after and
/// its time added to its label.  For diagnosis only (the fences change what
/// is measured): `perf_spgemm` uses it on one extra, separately reported run.
class KernelProfile {
 public:
  KernelProfile() {
    times().clear();
    set_tool_callbacks(&begin, &end, &begin_copy, &end_copy);
  }
  ~KernelProfile() { set_tool_callbacks(nullptr, nullptr, nullptr, nullptr); }
  KernelProfile(const KernelProfile&) = delete;
  KernelProfile& operator=(const KernelProfile&) = delete;

  /// "label=ms(calls) ..." sorted by time, longest first.
  static std::string summary() {
    std::vector<std::pair<std::string, std::pair<double, int>>> v(times().begin(), times().end());
    std::sort(v.begin(), v.end(),
              [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    std::ostringstream o;
    o.precision(3);
    for (const auto& [label, t] : v) o << " " << label << "=" << t.first << "(" << t.second << ")";
    return o.str();
  }

 private:
  static std::map<std::string, std::pair<double, int>>& times() {
    static std::map<std::string, std::pair<double, int>> t;
    return t;
  }
  static std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>>& open() {
    static std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> o;
    return o;
  }
  static void start(const std::string& label) {
    Kokkos::fence();
    open().emplace_back(label, std::chrono::steady_clock::now());
  }
  static void stop() {
    Kokkos::fence();
    if (open().empty()) return;
    const auto [label, t0] = open().back();
    open().pop_back();
    auto& t = times()[label];
    t.first +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    t.second += 1;
  }
  static void begin(const char* name, const std::uint32_t, std::uint64_t*) { start(name); }
  static void end(const std::uint64_t) { stop(); }
  static void begin_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                         Kokkos::Tools::SpaceHandle, const char*, const void*, std::uint64_t) {
    start(std::string("deep_copy:") + dst);
  }
  static void end_copy() { stop(); }
};

/// Host timeline of one run, without fences: while a HostTrace is active,
/// each Kokkos parallel_for / reduce / scan, deep_copy and fence is recorded
/// as (label, start, host duration).  A launch's duration is the host cost
/// of queueing it; a fence's is the wait.  The gaps between entries are
/// host work outside Kokkos (CUDA API calls, allocation).  For diagnosis:
/// `perf_spgemm --trace` prints it for one extra two-phase product.
class HostTrace {
 public:
  HostTrace() {
    events().clear();
    t0() = std::chrono::steady_clock::now();
    set_tool_callbacks(&begin, &end, &begin_copy, &end_copy, &begin_fence);
    Kokkos::Tools::Experimental::set_profile_event_callback(&mark);
  }
  ~HostTrace() {
    set_tool_callbacks(nullptr, nullptr, nullptr, nullptr);
    Kokkos::Tools::Experimental::set_profile_event_callback(nullptr);
  }
  HostTrace(const HostTrace&) = delete;
  HostTrace& operator=(const HostTrace&) = delete;

  /// "label@start+duration" in microseconds since the trace began.
  static std::string summary() {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    for (const auto& e : events()) o << " " << e.label << "@" << e.start << "+" << e.dur;
    return o.str();
  }

 private:
  struct Event {
    std::string label;
    double start, dur;
  };
  static std::vector<Event>& events() {
    static std::vector<Event> e;
    return e;
  }
  static std::chrono::steady_clock::time_point& t0() {
    static std::chrono::steady_clock::time_point t;
    return t;
  }
  static std::vector<std::size_t>& open() {
    static std::vector<std::size_t> o;
    return o;
  }
  static double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0())
        .count();
  }
  static void start(const std::string& label) {
    open().push_back(events().size());
    events().push_back({label, now_us(), 0.0});
  }
  static void stop() {
    if (open().empty()) return;
    Event& e = events()[open().back()];
    open().pop_back();
    e.dur = now_us() - e.start;
  }
  static void begin(const char* name, const std::uint32_t, std::uint64_t*) { start(name); }
  static void begin_fence(const char* name, const std::uint32_t, std::uint64_t*) {
    start(std::string("fence:") + name);
  }
  static void end(const std::uint64_t) { stop(); }
  static void begin_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                         Kokkos::Tools::SpaceHandle, const char*, const void*, std::uint64_t) {
    start(std::string("copy:") + dst);
  }
  static void end_copy() { stop(); }
  // A library's event (spgemm's phase ends): a point, duration 0.
  static void mark(const char* name) {
    events().push_back({std::string("event:") + name, now_us(), 0.0});
  }
};

}  // namespace spk::perf
