// What every perf driver (perf_<op>) shares: command line, timing, the
// default suite, bandwidth ceilings, the printed table and the JSON file.
//
//   perf_<op> [MATRIX|SPEC|DIR ...] [--repeat N] [--warmup N]
//             [--space serial|openmp|cuda|default] [--json FILE] [--quick]
//
// A DIR argument adds every *.mtx / *.mtx.gz file in it (not recursive).
// With no matrix argument the driver runs its default suite of generated
// matrices, plus ../shared/matrices when $SPK_MATRIX_DIR names it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <spk.hpp>
#include <spk_execution_spaces.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace spk::perf {

struct Options {
  std::vector<std::string> matrices;  // files and generator specs, in order
  int repeat = 10;
  int warmup = 2;
  std::string space = "default";
  std::string json;
  bool quick = false;  // smaller default suite
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
    else if (a == "--quick")
      o.quick = true;
    else if (a == "-h" || a == "--help") {
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
    } else if (is_generator_spec(a) || std::filesystem::exists(a)) {
      o.matrices.push_back(a);
    } else {
      fail("'" + a + "' is neither a file, a directory nor a generator spec");
    }
  }
  return o;
}

/// The shared SuiteSparse directory, if $SPK_MATRIX_DIR names one.
inline std::string shared_matrix_dir() {
  const char* env = std::getenv("SPK_MATRIX_DIR");
  return env && *env && std::filesystem::is_directory(env) ? env : "";
}

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

  void add(Record r) {
    print_row(r);
    records_.push_back(std::move(r));
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
        << ", \"gflops\": " << (r.gflops >= 0 ? json_number(r.gflops) : "null");
      for (const auto& [k, v] : r.numbers)
        f << ", \"" << json_escape(k) << "\": " << json_number(v);
      for (const auto& [k, v] : r.strings)
        f << ", \"" << json_escape(k) << "\": \"" << json_escape(v) << "\"";
      f << "}" << (i + 1 < records_.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
    std::printf("# wrote %s\n", opt_.json.c_str());
  }

  const std::vector<Record>& records() const { return records_; }

 private:
  static void print_row(const Record& r) {
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

/// Time per kernel label: while a KernelProfile is active, every Kokkos
/// parallel_for / reduce / scan and deep_copy is fenced before and after and
/// its time added to its label.  For diagnosis only (the fences change what
/// is measured): `perf_spgemm` uses it on one extra, separately reported run.
class KernelProfile {
 public:
  KernelProfile() {
    namespace KT = Kokkos::Tools::Experimental;
    times().clear();
    KT::set_begin_parallel_for_callback(&begin);
    KT::set_begin_parallel_reduce_callback(&begin);
    KT::set_begin_parallel_scan_callback(&begin);
    KT::set_end_parallel_for_callback(&end);
    KT::set_end_parallel_reduce_callback(&end);
    KT::set_end_parallel_scan_callback(&end);
    KT::set_begin_deep_copy_callback(&begin_copy);
    KT::set_end_deep_copy_callback(&end_copy);
  }
  ~KernelProfile() {
    namespace KT = Kokkos::Tools::Experimental;
    KT::set_begin_parallel_for_callback(nullptr);
    KT::set_begin_parallel_reduce_callback(nullptr);
    KT::set_begin_parallel_scan_callback(nullptr);
    KT::set_end_parallel_for_callback(nullptr);
    KT::set_end_parallel_reduce_callback(nullptr);
    KT::set_end_parallel_scan_callback(nullptr);
    KT::set_begin_deep_copy_callback(nullptr);
    KT::set_end_deep_copy_callback(nullptr);
  }
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

}  // namespace spk::perf
