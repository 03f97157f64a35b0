// perf_spgemm: C = A·A (A·Aᵀ for rectangular A), fp64, side by side in one
// run: spk (two-phase, fresh handle each time, and numeric reuse), Kokkos
// Kernels SPGEMM_KK, cuSPARSE cusparseSpGEMM (CUDA), the serial reference and
// the historical baselines (CSR×CSC dot products, dense output) where they
// fit.  Prints a table and writes JSON records (one per matrix and impl).
//
//   perf_spgemm [--space serial|openmp|cuda] [--repeat N] [--warmup N]
//               [--json FILE] [--no-baselines] [--check] MATRIX...
// MATRIX: a generator spec (poisson2d:N, poisson3d:N, random:R:C:K[:SEED],
// rmat:SCALE:EF[:SEED]) or a Matrix Market file (.mtx or .mtx.gz); no
// matrix: the default suite.
//
// Times are medians over the repeats after warm-up: symbolic, numeric and
// total (ms = total, including C's and all buffers' allocation).  GFLOP/s =
// 2·products / total.  peak_bytes: the largest amount of device memory the
// product held at once beyond its inputs (C included), from Kokkos's
// allocation hooks (spk, Kokkos Kernels) or from the cudaMalloc calls
// (cuSPARSE).
#include <zlib.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <spk_csc_matrix.hpp>
#include <spk_generators.hpp>
#include <spk_reference_convert.hpp>
#include <spk_reference_spgemm.hpp>
#include <spk_spgemm.hpp>
#include <sstream>
#include <string>
#include <vector>

#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm.hpp>
#endif
#if defined(SPK_HAVE_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

using S = double;
using O = int;
using F = int;
using HostCsr = spk::CsrMatrix<S, O, F, spk::HostDevice>;

// ---- options ----------------------------------------------------------------

struct Options {
  std::string space = "default";
  int repeat = 5, warmup = 1;
  std::string json;
  bool baselines = true, check = false;
  std::vector<std::string> matrices;
};

const std::vector<std::string> default_suite = {
    "poisson2d:1000",    "poisson3d:100",    "random:1000000:1000000:8", "rmat:18:16",
    "rmat:20:8",         "cage11.mtx.gz",    "TSOPF_RS_b39_c30.mtx.gz",  "poisson3Da.mtx.gz",
    "G3_circuit.mtx.gz", "wiki-Vote.mtx.gz", "ca-CondMat.mtx.gz",        "delaunay_n16.mtx.gz",
    "Maragal_6.mtx.gz"};

// ---- a small Matrix Market reader (coordinate, real/integer/pattern) -------

HostCsr read_matrix_market(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  SPK_REQUIRE(f, spk::Error, path, ": cannot open");
  std::vector<char> buf(1 << 16);
  auto getline = [&](std::string& line) {
    line.clear();
    while (gzgets(f, buf.data(), static_cast<int>(buf.size()))) {
      line += buf.data();
      if (!line.empty() && line.back() == '\n') return true;
    }
    return !line.empty();
  };
  std::string line;
  SPK_REQUIRE(getline(line), spk::Error, path, ": empty file");
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  SPK_REQUIRE(lower.rfind("%%matrixmarket matrix coordinate", 0) == 0, spk::Error, path,
              ": not a coordinate Matrix Market file");
  const bool pattern = lower.find("pattern") != std::string::npos;
  const bool symmetric =
      lower.find("symmetric") != std::string::npos || lower.find("hermitian") != std::string::npos;
  const bool skew = lower.find("skew-symmetric") != std::string::npos;
  SPK_REQUIRE(lower.find("complex") == std::string::npos, spk::Error, path,
              ": complex matrices are not supported here");
  while (getline(line) && (line.empty() || line[0] == '%')) {
  }
  long long rows = 0, cols = 0, entries = 0;
  SPK_REQUIRE(std::sscanf(line.c_str(), "%lld %lld %lld", &rows, &cols, &entries) == 3, spk::Error,
              path, ": bad size line");
  std::vector<std::vector<std::pair<O, S>>> r(rows);
  for (long long e = 0; e < entries; ++e) {
    SPK_REQUIRE(getline(line), spk::Error, path, ": ", e, " of ", entries, " entries");
    long long i, j;
    double v = 1;
    const int got = std::sscanf(line.c_str(), "%lld %lld %lf", &i, &j, &v);
    SPK_REQUIRE(got >= (pattern ? 2 : 3), spk::Error, path, ": bad entry '", line, "'");
    r[i - 1].emplace_back(static_cast<O>(j - 1), v);
    if ((symmetric || skew) && i != j) r[j - 1].emplace_back(static_cast<O>(i - 1), skew ? -v : v);
  }
  gzclose(f);
  for (auto& row : r) {  // sort, sum duplicates
    std::sort(row.begin(), row.end(), [](auto& a, auto& b) { return a.first < b.first; });
    size_t w = 0;
    for (size_t q = 0; q < row.size(); ++q) {
      if (w > 0 && row[w - 1].first == row[q].first)
        row[w - 1].second += row[q].second;
      else
        row[w++] = row[q];
    }
    row.resize(w);
  }
  return spk::reference::csr_from_rows<S, O, F>(static_cast<O>(rows), static_cast<O>(cols), r);
}

std::string matrix_dir() {
  const char* env = std::getenv("SPK_MATRIX_DIR");
  if (env && *env) return env;
  return SPK_PERF_MATRIX_DIR;
}

HostCsr load(const std::string& spec) {
  if (spk::is_generator_spec(spec)) return spk::generate<S, O, F>(spec);
  std::ifstream probe(spec);
  if (probe) return read_matrix_market(spec);
  return read_matrix_market(matrix_dir() + "/" + spec);
}

// ---- timing and memory --------------------------------------------------------

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Live and peak bytes of Kokkos allocations outside host memory (all
/// memory when the space is a host space).
struct MemTracker {
  static inline long long live = 0, peak = 0;
  static inline bool device_only = true;
  static bool counts(const Kokkos::Tools::SpaceHandle h) {
    return !device_only || std::strcmp(h.name, "Host") != 0;
  }
  static void on_alloc(const Kokkos::Tools::SpaceHandle h, const char*, const void*,
                       const uint64_t size) {
    if (!counts(h)) return;
    live += static_cast<long long>(size);
    peak = std::max(peak, live);
  }
  static void on_free(const Kokkos::Tools::SpaceHandle h, const char*, const void*,
                      const uint64_t size) {
    if (counts(h)) live -= static_cast<long long>(size);
  }
  static void reset() { peak = live; }
  static long long extra() { return peak - live; }
};

struct Result {
  std::string impl;
  double symbolic_ms = 0, numeric_ms = 0, total_ms = 0;
  long long nnz_c = -1, peak_bytes = -1;
  std::string note;
};

Result measure_or_throw(const std::string& impl, const Options& opt,
                        const std::function<void(double&, double&, long long&)>& f);

/// Repeats f (which returns symbolic and numeric ms, the rest of the time is
/// counted in total) and keeps the medians.
Result measure(const std::string& impl, const Options& opt,
               const std::function<void(double&, double&, long long&)>& f) {
  Result r;
  r.impl = impl;
  try {
    return measure_or_throw(impl, opt, f);
  } catch (const std::exception& e) {
    r.note = std::string("failed: ") + e.what();
    for (char& c : r.note)
      if (c == '"' || c == '\\' || c == '\n') c = ' ';
    r.total_ms = -1;
    return r;
  }
}

Result measure_or_throw(const std::string& impl, const Options& opt,
                        const std::function<void(double&, double&, long long&)>& f) {
  Result r;
  r.impl = impl;
  std::vector<double> sym, num, tot;
  long long peak = 0;
  for (int rep = 0; rep < opt.warmup + opt.repeat; ++rep) {
    double s = 0, n = 0;
    MemTracker::reset();
    const double t0 = now_ms();
    f(s, n, r.nnz_c);
    const double t1 = now_ms();
    peak = std::max(peak, MemTracker::extra());
    if (rep < opt.warmup) continue;
    sym.push_back(s);
    num.push_back(n);
    tot.push_back(t1 - t0);
  }
  r.symbolic_ms = median(sym);
  r.numeric_ms = median(num);
  r.total_ms = median(tot);
  r.peak_bytes = peak;
  return r;
}

// ---- implementations -----------------------------------------------------------

template <class ExecSpace>
using DevCsr = spk::CsrMatrix<S, O, F, spk::device_t<ExecSpace>>;

#if defined(SPK_HAVE_CUSPARSE)
#define SPK_CUDA_CHECK(x)                                                         \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    SPK_REQUIRE(e_ == cudaSuccess, spk::Error, #x, ": ", cudaGetErrorString(e_)); \
  } while (0)
#define SPK_CUSPARSE_CHECK(x)                                                                     \
  do {                                                                                            \
    cusparseStatus_t s_ = (x);                                                                    \
    SPK_REQUIRE(s_ == CUSPARSE_STATUS_SUCCESS, spk::Error, #x, ": ", cusparseGetErrorString(s_)); \
  } while (0)

/// cusparseSpGEMM with the default algorithm: the whole sequence, buffers
/// and C allocated and freed each time.  Returns nnz(C); peak = the most
/// bytes cudaMalloc'd at once.
long long cusparse_spgemm(cusparseHandle_t handle, const DevCsr<Kokkos::Cuda>& A,
                          const DevCsr<Kokkos::Cuda>& B, double& sym_ms, double& num_ms,
                          long long& peak) {
  long long live = 0;
  peak = 0;
  auto dmalloc = [&](void** p, size_t n) {
    SPK_CUDA_CHECK(cudaMalloc(p, n));
    live += static_cast<long long>(n);
    peak = std::max(peak, live);
  };
  auto dfree = [&](void* p, size_t n) {
    cudaFree(p);
    live -= static_cast<long long>(n);
  };
  const double t0 = now_ms();
  cusparseSpMatDescr_t a, b, c;
  SPK_CUSPARSE_CHECK(cusparseCreateCsr(&a, A.num_rows(), A.num_cols(), A.nnz(),
                                       (void*)A.row_map().data(), (void*)A.col_idx().data(),
                                       (void*)A.values().data(), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  SPK_CUSPARSE_CHECK(cusparseCreateCsr(&b, B.num_rows(), B.num_cols(), B.nnz(),
                                       (void*)B.row_map().data(), (void*)B.col_idx().data(),
                                       (void*)B.values().data(), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  void* c_rows = nullptr;
  const size_t rows_bytes = (A.num_rows() + 1) * sizeof(int);
  dmalloc(&c_rows, rows_bytes);
  SPK_CUSPARSE_CHECK(cusparseCreateCsr(&c, A.num_rows(), B.num_cols(), 0, c_rows, nullptr, nullptr,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseSpGEMMDescr_t desc;
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc));
  const double alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t size1 = 0, size2 = 0;
  void *buf1 = nullptr, *buf2 = nullptr;
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c,
                                                   CUDA_R_64F, alg, desc, &size1, nullptr));
  dmalloc(&buf1, size1);
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c,
                                                   CUDA_R_64F, alg, desc, &size1, buf1));
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg,
                                            desc, &size2, nullptr));
  dmalloc(&buf2, size2);
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg,
                                            desc, &size2, buf2));
  int64_t rows, cols, nnz;
  SPK_CUSPARSE_CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  void *c_cols = nullptr, *c_vals = nullptr;
  dmalloc(&c_cols, nnz * sizeof(int));
  dmalloc(&c_vals, nnz * sizeof(double));
  SPK_CUSPARSE_CHECK(cusparseCsrSetPointers(c, c_rows, c_cols, c_vals));
  SPK_CUDA_CHECK(cudaDeviceSynchronize());
  const double t1 = now_ms();
  SPK_CUSPARSE_CHECK(
      cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc));
  SPK_CUDA_CHECK(cudaDeviceSynchronize());
  const double t2 = now_ms();
  cusparseSpGEMM_destroyDescr(desc);
  cusparseDestroySpMat(a);
  cusparseDestroySpMat(b);
  cusparseDestroySpMat(c);
  dfree(buf1, size1);
  dfree(buf2, size2);
  dfree(c_rows, rows_bytes);
  dfree(c_cols, nnz * sizeof(int));
  dfree(c_vals, nnz * sizeof(double));
  sym_ms = t1 - t0;
  num_ms = t2 - t1;
  return nnz;
}
#endif

template <class ExecSpace>
std::vector<Result> run_all(const Options& opt, const HostCsr& A_h, const HostCsr& B_h,
                            std::uint64_t products, const std::string& name) {
  std::vector<Result> out;
  ExecSpace space;
  auto A = spk::create_mirror_view_and_copy(space, A_h);
  auto B = spk::create_mirror_view_and_copy(space, B_h);
  MemTracker::device_only = !spk::Impl::is_host_space_v<ExecSpace>;

  // spk, everything from scratch each time.
  DevCsr<ExecSpace> C_spk;
  out.push_back(measure("spk", opt, [&](double& s, double& n, long long& nnz) {
    spk::SpgemmHandle<O, F, ExecSpace> h;
    DevCsr<ExecSpace> C;
    double t0 = now_ms();
    spk::spgemm_symbolic(space, h, A, B, C);
    double t1 = now_ms();
    spk::spgemm_numeric(space, h, A, B, C);
    double t2 = now_ms();
    s = t1 - t0;
    n = t2 - t1;
    nnz = C.nnz();
    C_spk = C;
  }));
  {
    // Numeric reuse: symbolic once, numeric timed.
    spk::SpgemmHandle<O, F, ExecSpace> h;
    DevCsr<ExecSpace> C;
    spk::spgemm_symbolic(space, h, A, B, C);
    Result r = measure("spk-numeric-reuse", opt, [&](double& s, double& n, long long& nnz) {
      const double t0 = now_ms();
      spk::spgemm_numeric(space, h, A, B, C);
      n = now_ms() - t0;
      s = 0;
      nnz = C.nnz();
    });
    std::ostringstream note;
    note << "bins";
    for (auto& b : h.bins())
      note << " g" << b.group << ":2^" << b.log2_capacity << "x" << (b.end - b.begin);
    note << (h.plan().slab_dense ? " dense" : " hash") << "-slab " << h.slab_bytes() << "B";
    r.note = note.str();
    out.push_back(r);
  }
  if (opt.check) {
    const auto ref = spk::reference::spgemm(A_h, B_h);
    auto C = spk::create_mirror_view_and_copy_host(C_spk);
    bool ok = C.nnz() == ref.nnz();
    for (F k = 0; ok && k < ref.nnz(); ++k)
      ok = C.col_idx()(k) == ref.col_idx()(k) &&
           std::abs(C.values()(k) - ref.values()(k)) <=
               1e-12 * std::max(1.0, std::abs(ref.values()(k)));
    for (O i = 0; ok && i <= ref.num_rows(); ++i) ok = C.row_map()(i) == ref.row_map()(i);
    std::printf("  check %s: spk %s the serial reference\n", name.c_str(),
                ok ? "matches" : "DOES NOT MATCH");
    if (!ok) std::exit(2);
  }

#if defined(SPK_HAVE_KOKKOSKERNELS)
  out.push_back(measure("kk-spgemm-kk", opt, [&](double& s, double& n, long long& nnz) {
    using MS = typename ExecSpace::memory_space;
    using KH = KokkosKernels::Experimental::KokkosKernelsHandle<F, O, S, ExecSpace, MS, MS>;
    double t0 = now_ms();
    KH kh;
    kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
    Kokkos::View<F*, ExecSpace> rm("kk.C.row_map", A.num_rows() + 1);
    KokkosSparse::Experimental::spgemm_symbolic(&kh, A.num_rows(), B.num_rows(), B.num_cols(),
                                                A.row_map(), A.col_idx(), false, B.row_map(),
                                                B.col_idx(), false, rm);
    space.fence();
    double t1 = now_ms();
    const F c_nnz = kh.get_spgemm_handle()->get_c_nnz();
    Kokkos::View<O*, ExecSpace> ci(Kokkos::ViewAllocateWithoutInitializing("kk.C.col_idx"), c_nnz);
    Kokkos::View<S*, ExecSpace> cv(Kokkos::ViewAllocateWithoutInitializing("kk.C.values"), c_nnz);
    KokkosSparse::Experimental::spgemm_numeric(
        &kh, A.num_rows(), B.num_rows(), B.num_cols(), A.row_map(), A.col_idx(), A.values(), false,
        B.row_map(), B.col_idx(), B.values(), false, rm, ci, cv);
    space.fence();
    double t2 = now_ms();
    kh.destroy_spgemm_handle();
    s = t1 - t0;
    n = t2 - t1;
    nnz = c_nnz;
  }));
#endif

#if defined(SPK_HAVE_CUSPARSE)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    cusparseHandle_t handle;
    SPK_CUSPARSE_CHECK(cusparseCreate(&handle));
    long long cu_peak = 0;
    Result r = measure("cusparse-spgemm", opt, [&](double& s, double& n, long long& nnz) {
      long long p = 0;
      nnz = cusparse_spgemm(handle, A, B, s, n, p);
      cu_peak = std::max(cu_peak, p);
    });
    r.peak_bytes = cu_peak;
    out.push_back(r);
    cusparseDestroy(handle);
  }
#endif

  if (opt.baselines) {
    if (products <= 400'000'000ull) {
      Options once = opt;
      once.warmup = 0;
      once.repeat = std::min(opt.repeat, 3);
      Result r = measure("serial-reference", once, [&](double& s, double& n, long long& nnz) {
        const double t0 = now_ms();
        nnz = spk::reference::spgemm(A_h, B_h).nnz();
        s = 0;
        n = now_ms() - t0;
      });
      r.peak_bytes = -1;
      out.push_back(r);
    }
    const double mn = double(A.num_rows()) * double(B.num_cols());
    if (mn <= 2.5e7) {
      auto Bc = spk::create_mirror_view_and_copy(space, spk::reference::csr_to_csc(B_h));
      out.push_back(measure("baseline-dot-csr-csc", opt, [&](double& s, double& n, long long& nnz) {
        const double t0 = now_ms();
        nnz = spk::baseline::spgemm_dot(space, A, Bc).nnz();
        s = 0;
        n = now_ms() - t0;
      }));
      out.push_back(
          measure("baseline-dense-output", opt, [&](double& s, double& n, long long& nnz) {
            const double t0 = now_ms();
            nnz = spk::baseline::spgemm_dense_output(space, A, Bc).nnz();
            s = 0;
            n = now_ms() - t0;
          }));
    }
  }
  return out;
}

void write_json(std::FILE* f, bool& first, const std::string& name, const HostCsr& A,
                const std::string& space, std::uint64_t products, const Result& r) {
  // Bytes: A and B read once per use (each product reads one entry of B),
  // C written once: (nnz(A) + products + nnz(C)) · (index + value).
  const double bytes = (double(A.nnz()) + double(products) + double(std::max(0LL, r.nnz_c))) *
                       (sizeof(O) + sizeof(S));
  const double s = r.total_ms * 1e-3;
  std::fprintf(f,
               "%s\n  {\"op\": \"spgemm\", \"matrix\": \"%s\", \"rows\": %d, \"cols\": %d, "
               "\"nnz\": %lld, \"impl\": \"%s\", \"space\": \"%s\", \"ms\": %.6g, \"gbps\": %.6g, "
               "\"gflops\": %.6g, \"symbolic_ms\": %.6g, \"numeric_ms\": %.6g, \"products\": %llu, "
               "\"nnz_c\": %lld, \"peak_bytes\": %lld, \"note\": \"%s\"}",
               first ? "" : ",", name.c_str(), A.num_rows(), A.num_cols(), (long long)A.nnz(),
               r.impl.c_str(), space.c_str(), r.total_ms, s > 0 ? bytes / s * 1e-9 : 0,
               s > 0 ? 2.0 * double(products) / s * 1e-9 : 0, r.symbolic_ms, r.numeric_ms,
               (unsigned long long)products, r.nnz_c, r.peak_bytes, r.note.c_str());
  first = false;
}

template <class ExecSpace>
int run_space(const Options& opt) {
  const std::string space = spk::Impl::space_name<ExecSpace>();
  std::FILE* json = opt.json.empty() ? nullptr : std::fopen(opt.json.c_str(), "w");
  bool first = true;
  if (json) std::fprintf(json, "[");
  std::printf("%-28s %-22s %10s %10s %10s %9s %12s %12s %s\n", "matrix", "impl", "sym_ms", "num_ms",
              "total_ms", "GFLOP/s", "nnz_c", "peak_MB", "vs_cusparse");
  for (const std::string& spec : opt.matrices) {
    HostCsr A_h;
    try {
      A_h = load(spec);
    } catch (const std::exception& e) {
      std::printf("%-28s skipped: %s\n", spec.c_str(), e.what());
      continue;
    }
    const bool square = A_h.num_rows() == A_h.num_cols();
    const HostCsr B_h = square ? A_h : spk::reference::transpose(A_h);
    const std::string name = spec + (square ? "" : " (A*At)");
    const std::uint64_t products = spk::reference::spgemm_products(A_h, B_h);
    std::vector<Result> results;
    try {
      results = run_all<ExecSpace>(opt, A_h, B_h, products, name);
    } catch (const std::exception& e) {
      std::printf("%-28s failed: %s\n", name.c_str(), e.what());
      continue;
    }
    double cusparse_ms = 0;
    long long spk_nnz = -1;
    for (const Result& r : results) {
      if (r.impl == "cusparse-spgemm" && r.total_ms > 0) cusparse_ms = r.total_ms;
      if (r.impl == "spk") spk_nnz = r.nnz_c;
    }
    for (const Result& r : results) {
      if (r.total_ms < 0) {
        std::printf("%-28s %-22s %s\n", name.c_str(), r.impl.c_str(), r.note.c_str());
        continue;
      }
      std::printf("%-28s %-22s %10.3f %10.3f %10.3f %9.2f %12lld %12.1f", name.c_str(),
                  r.impl.c_str(), r.symbolic_ms, r.numeric_ms, r.total_ms,
                  2.0 * double(products) / (r.total_ms * 1e-3) * 1e-9, r.nnz_c,
                  r.peak_bytes / 1048576.0);
      if (cusparse_ms > 0) std::printf(" %8.2fx", cusparse_ms / r.total_ms);
      if (r.nnz_c != spk_nnz && r.impl != "baseline-dense-output")
        std::printf("  (nnz differs from spk!)");
      if (!r.note.empty()) std::printf("  %s", r.note.c_str());
      std::printf("\n");
      if (json) write_json(json, first, name, A_h, space, products, r);
    }
    std::fflush(stdout);
  }
  if (json) {
    std::fprintf(json, "\n]\n");
    std::fclose(json);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  {
    Kokkos::Tools::Experimental::set_allocate_data_callback(&MemTracker::on_alloc);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&MemTracker::on_free);
    Options opt;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        SPK_REQUIRE(i + 1 < argc, spk::Error, a, " needs a value");
        return argv[++i];
      };
      if (a == "--space")
        opt.space = next();
      else if (a == "--repeat")
        opt.repeat = std::stoi(next());
      else if (a == "--warmup")
        opt.warmup = std::stoi(next());
      else if (a == "--json")
        opt.json = next();
      else if (a == "--no-baselines")
        opt.baselines = false;
      else if (a == "--check")
        opt.check = true;
      else if (a.rfind("--kokkos", 0) == 0)
        continue;
      else if (a == "--help" || a == "-h") {
        std::printf(
            "perf_spgemm [--space serial|openmp|cuda] [--repeat N] [--warmup N] [--json FILE]\n"
            "            [--no-baselines] [--check] MATRIX...\n");
        Kokkos::finalize();
        return 0;
      } else
        opt.matrices.push_back(a);
    }
    if (opt.matrices.empty()) opt.matrices = default_suite;
    if (opt.space == "default") opt.space = spk::Impl::space_name<Kokkos::DefaultExecutionSpace>();
    if (false) {
    }
#if defined(KOKKOS_ENABLE_CUDA)
    else if (opt.space == "cuda")
      rc = run_space<Kokkos::Cuda>(opt);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    else if (opt.space == "openmp")
      rc = run_space<Kokkos::OpenMP>(opt);
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    else if (opt.space == "serial")
      rc = run_space<Kokkos::Serial>(opt);
#endif
    else {
      std::fprintf(stderr, "perf_spgemm: space '%s' is not enabled in this build\n",
                   opt.space.c_str());
      rc = 1;
    }
  }
  Kokkos::finalize();
  return rc;
}
