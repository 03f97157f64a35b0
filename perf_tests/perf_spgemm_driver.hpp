// The perf_spgemm driver for one scalar type, compiled once per type
// (perf_spgemm_<scalar>.cpp define SPK_PERF_SPGEMM_SCALAR and
// SPK_PERF_SPGEMM_NAMESPACE, then include this file); perf_spgemm.cpp's
// main picks one with --scalar.  What it measures: perf_spgemm.cpp.
#pragma once
#define SPK_COMPAT_KK_SPGEMM 1
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <spk_csc_matrix.hpp>
#include <spk_generators.hpp>
#include <spk_perf_common.hpp>
#include <spk_reference_convert.hpp>
#include <spk_reference_spgemm.hpp>
#include <spk_scalar_traits.hpp>
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

namespace SPK_PERF_SPGEMM_NAMESPACE {

using S = SPK_PERF_SPGEMM_SCALAR;
using O = int;
using F = int;
using HostCsr = spk::CsrMatrix<S, O, F, spk::HostDevice>;

/// A matrix read in double, with values of S (spk::perf::with_scalar).
HostCsr with_scalar(const std::string& name,
                    const spk::CsrMatrix<double, O, F, spk::HostDevice>& A) {
  return spk::perf::with_scalar<S, O, F>(name, A);
}

#if defined(SPK_HAVE_CUSPARSE)
constexpr cudaDataType cuda_value_type() { return spk::perf::cuda_data_type<S>(); }
#endif

// ---- options ----------------------------------------------------------------

struct Options {
  spk::perf::Options common;
  bool baselines = true, check = false, kernels = false, trace = false;
  int warmup = 1, repeat = 5;
  std::vector<std::string> only;  // --only: the records to run (empty: all)
  spk::SpgemmOptions spk;         // spk's options in every spk record (--long-row-split)
};

/// Whether record `impl` runs (--only).  Each implementation alone in a
/// process of its own: another one's allocations before it can change its
/// time (Kokkos Kernels' rmat:14:8 took 43 or 65 ms with what spk had
/// allocated before it).
bool wanted(const Options& opt, const std::string& impl) {
  return opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), impl) != opt.only.end();
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

using spk::perf::MemTracker;

struct Result {
  std::string impl;
  double symbolic_ms = 0, numeric_ms = 0, total_ms = 0;
  long long nnz_c = -1, peak_bytes = -1;
  std::string note;
  bool ran = true;            // false: left out by --only
  std::string status = "ok";  // or skipped (would not fit) / failed (threw)
  std::string message;
};

Result measure_or_throw(const std::string& impl, const Options& opt,
                        const std::function<void(double&, double&, long long&)>& f);

/// Repeats f (which returns symbolic and numeric ms, the rest of the time is
/// counted in total) and keeps the medians.
Result measure(const std::string& impl, const Options& opt,
               const std::function<void(double&, double&, long long&)>& f) {
  Result r;
  r.impl = impl;
  if (!wanted(opt, impl)) {
    r.ran = false;
    return r;
  }
  try {
    return measure_or_throw(impl, opt, f);
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = e.what();
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
/// bytes allocated at once.  With `pooled`, the allocations come from CUDA's
/// default stream-ordered pool (cudaMallocAsync / cudaFreeAsync on the
/// handle's stream, the legacy default stream here) instead of cudaMalloc /
/// cudaFree: what a cuSPARSE user with a caching allocator would see, next
/// to spk's own pool.
long long cusparse_spgemm(cusparseHandle_t handle, const DevCsr<Kokkos::Cuda>& A,
                          const DevCsr<Kokkos::Cuda>& B, double& sym_ms, double& num_ms,
                          long long& peak, bool pooled) {
  long long live = 0;
  peak = 0;
  auto dmalloc = [&](void** p, size_t n) {
    if (pooled)
      SPK_CUDA_CHECK(cudaMallocAsync(p, n, cudaStreamLegacy));
    else
      SPK_CUDA_CHECK(cudaMalloc(p, n));
    live += static_cast<long long>(n);
    peak = std::max(peak, live);
    MemTracker::add(static_cast<long long>(n));
  };
  auto dfree = [&](void* p, size_t n) {
    if (pooled)
      cudaFreeAsync(p, cudaStreamLegacy);
    else
      cudaFree(p);
    live -= static_cast<long long>(n);
    MemTracker::remove(static_cast<long long>(n));
  };
  const double t0 = now_ms();
  cusparseSpMatDescr_t a, b, c;
  SPK_CUSPARSE_CHECK(
      cusparseCreateCsr(&a, A.num_rows(), A.num_cols(), A.nnz(), (void*)A.row_map().data(),
                        (void*)A.col_idx().data(), (void*)A.values().data(), CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_value_type()));
  SPK_CUSPARSE_CHECK(
      cusparseCreateCsr(&b, B.num_rows(), B.num_cols(), B.nnz(), (void*)B.row_map().data(),
                        (void*)B.col_idx().data(), (void*)B.values().data(), CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_value_type()));
  void* c_rows = nullptr;
  const size_t rows_bytes = (A.num_rows() + 1) * sizeof(int);
  dmalloc(&c_rows, rows_bytes);
  SPK_CUSPARSE_CHECK(cusparseCreateCsr(&c, A.num_rows(), B.num_cols(), 0, c_rows, nullptr, nullptr,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, cuda_value_type()));
  cusparseSpGEMMDescr_t desc;
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc));
  const S alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t size1 = 0, size2 = 0;
  void *buf1 = nullptr, *buf2 = nullptr;
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c,
                                                   cuda_value_type(), alg, desc, &size1, nullptr));
  dmalloc(&buf1, size1);
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c,
                                                   cuda_value_type(), alg, desc, &size1, buf1));
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c,
                                            cuda_value_type(), alg, desc, &size2, nullptr));
  dmalloc(&buf2, size2);
  SPK_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c,
                                            cuda_value_type(), alg, desc, &size2, buf2));
  int64_t rows, cols, nnz;
  SPK_CUSPARSE_CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  void *c_cols = nullptr, *c_vals = nullptr;
  dmalloc(&c_cols, nnz * sizeof(int));
  dmalloc(&c_vals, nnz * sizeof(S));
  SPK_CUSPARSE_CHECK(cusparseCsrSetPointers(c, c_rows, c_cols, c_vals));
  SPK_CUDA_CHECK(cudaDeviceSynchronize());
  const double t1 = now_ms();
  SPK_CUSPARSE_CHECK(
      cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, cuda_value_type(), alg, desc));
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
  dfree(c_vals, nnz * sizeof(S));
  sym_ms = t1 - t0;
  num_ms = t2 - t1;
  return nnz;
}
#endif

bool check_failed = false;
/// kk-spgemm-kk ms / impl ms per matrix, for the summary.
std::map<std::string, std::vector<double>> speedups_vs_kk;

/// Bytes of a CSR matrix with int ordinals and offsets.
double csr_bytes(double rows, double nnz) {
  return (rows + 1) * sizeof(F) + nnz * (sizeof(O) + sizeof(S));
}

/// What one product needs, estimated before it runs: the exact product
/// count from A's columns and B's row lengths, and an upper bound on C's
/// nonzeros (per row, the fewer of its products and B's columns).
struct ProductSize {
  std::uint64_t products = 0;
  double nnz_c_bound = 0;
  bool exact = false;  // nnz_c_bound is the exact count (from spk's symbolic phase)
};

ProductSize product_size(const HostCsr& A, const HostCsr& B) {
  ProductSize p;
  for (O i = 0; i < A.num_rows(); ++i) {
    std::uint64_t row = 0;
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const O j = A.col_idx()(k);
      row += static_cast<std::uint64_t>(B.row_map()(j + 1) - B.row_map()(j));
    }
    p.products += row;
    p.nnz_c_bound += static_cast<double>(std::min<std::uint64_t>(row, B.num_cols()));
  }
  return p;
}

/// The serial reference's C and the bound |A|·|B| its values are compared
/// against, when --check asks for them.
struct Reference {
  HostCsr C, bound;
  bool available = false;
};

/// Compares one implementation's C with the reference (its rows sorted on
/// the host first when the implementation leaves them unsorted); prints the
/// outcome and records a mismatch.  Values are compared against the error
/// bound of a sum in any order: `tolerance` times the entry of |A|·|B|
/// (entries of C that cancel are compared with the size of what cancelled).
constexpr double tolerance = std::is_same_v<spk::real_type_t<S>, float> ? 5e-5 : 1e-12;

template <class T>
std::string value_text(const T& v) {
  if constexpr (spk::is_complex_v<T>)
    return "(" + std::to_string(v.real()) + ", " + std::to_string(v.imag()) + ")";
  else
    return std::to_string(v);
}

template <class ExecSpace>
void check_against_reference(const std::string& name, const std::string& impl,
                             const DevCsr<ExecSpace>& C_dev, bool rows_sorted, const Reference& r) {
  if (!r.available) return;
  const auto C =
      rows_sorted ? spk::create_mirror_view_and_copy_host(C_dev) : spk::reference::sort_rows(C_dev);
  const HostCsr& ref = r.C;
  bool ok = C.nnz() == ref.nnz() && C.num_rows() == ref.num_rows();
  std::string where =
      ok ? "" : "nnz " + std::to_string(C.nnz()) + " vs " + std::to_string(ref.nnz());
  for (O i = 0; ok && i <= ref.num_rows(); ++i) {
    ok = C.row_map()(i) == ref.row_map()(i);
    if (!ok) where = "row pointer " + std::to_string(i);
  }
  for (F k = 0; ok && k < ref.nnz(); ++k) {
    ok = C.col_idx()(k) == ref.col_idx()(k) &&
         double(spk::Impl::magnitude(C.values()(k) - ref.values()(k))) <=
             tolerance * std::max(1.0, double(spk::Impl::magnitude(r.bound.values()(k))));
    if (!ok)
      where = "entry " + std::to_string(k) + ": column " + std::to_string(C.col_idx()(k)) +
              " value " + value_text(C.values()(k)) + ", expected column " +
              std::to_string(ref.col_idx()(k)) + " value " + value_text(ref.values()(k));
  }
  std::printf("# check %s: %s %s the serial reference%s%s\n", name.c_str(), impl.c_str(),
              ok ? "matches" : "DOES NOT MATCH", ok ? "" : " at ", where.c_str());
  std::fflush(stdout);
  if (!ok) check_failed = true;
}

/// Memory of the space the products run in, available now.
template <class ExecSpace>
double space_available() {
  return spk::perf::space_memory_bytes<ExecSpace>().first;
}

template <class ExecSpace>
std::vector<Result> run_all(const Options& opt, const HostCsr& A_h, const HostCsr& B_h,
                            ProductSize size, const std::string& name,
                            const spk::perf::Progress& progress) {
  std::vector<Result> out;
  ExecSpace space;
  constexpr bool host_space = spk::Impl::is_host_space_v<ExecSpace>;
  const std::uint64_t products = size.products;
  auto A = spk::create_mirror_view_and_copy(space, A_h);
  auto B = spk::create_mirror_view_and_copy(space, B_h);
  const double rows = A_h.num_rows();
  // Device bytes each implementation needs beyond the inputs (C and its
  // temporaries; cuSPARSE's default algorithm keeps buffers that grow with
  // the intermediate products); on host spaces the host's own copies of the
  // reference come on top.
  auto c_bytes = [&] { return csr_bytes(rows, size.nnz_c_bound); };
  auto spk_need = [&] { return 2 * c_bytes() + 16 * rows; };
  auto kk_need = [&] { return 2 * c_bytes() + 8.0 * B_h.nnz() + 24 * rows; };
  auto cusparse_need = [&] { return c_bytes() + 16.0 * double(products) + 16 * rows; };
  // Skips `impl` with a reason when `need` bytes of the space's memory are
  // not available now (a skipped record), and says so on stderr.
  auto fits = [&](const std::string& impl, double need) {
    if (!wanted(opt, impl)) return false;
    std::string reason;
    if (spk::perf::fits_memory(need, space_available<ExecSpace>(), host_space ? "host" : "device",
                               reason))
      return true;
    Result r;
    r.impl = impl;
    r.status = "skipped";
    r.message = reason + (size.exact ? " (exact nnz(C))" : " (nnz(C) bound)");
    out.push_back(r);
    progress.step(impl + " skipped: " + r.message);
    return false;
  };
  // What spk's pool kept from the previous matrix goes back first, so that
  // the free memory the estimates compare with is all there is.
  spk::trim_memory_pool();
  // A bound that does not fit may still be far above the true nnz(C)
  // (R-MAT's hubs): spk's symbolic phase counts it exactly, in row counts.
  std::string unused;
  if (!spk::perf::fits_memory(spk_need(), space_available<ExecSpace>(), "", unused) &&
      !size.exact) {
    progress.step("counting nnz(C) (the bound does not fit)");
    spk::SpgemmHandle<O, F, ExecSpace> h(opt.spk);
    DevCsr<ExecSpace> C;
    spk::spgemm_symbolic(space, h, A, B, C);
    size.nnz_c_bound = static_cast<double>(C.nnz());
    size.exact = true;
  }

  Reference ref;
  if (opt.check) {
    std::string reason;
    if (spk::perf::fits_memory(3 * c_bytes() + 12.0 * B_h.num_cols(),
                               spk::perf::host_available_bytes(), "host", reason)) {
      progress.step("serial reference for --check");
      ref.C = spk::reference::spgemm(A_h, B_h);
      auto abs_of = [](const HostCsr& M) {
        HostCsr o = spk::clone(spk::HostDevice(), M);
        for (F k = 0; k < o.nnz(); ++k) o.values()(k) = spk::Impl::magnitude(o.values()(k));
        return o;
      };
      ref.bound = spk::reference::spgemm(abs_of(A_h), abs_of(B_h));
      ref.available = true;
    } else {
      std::printf("# check %s: skipped, the reference %s\n", name.c_str(), reason.c_str());
    }
  }

  // spk, everything from scratch each time; the last C is checked, then
  // released before the next implementation runs.
  DevCsr<ExecSpace> last;
  auto checked = [&](const char* impl, bool rows_sorted) {
    check_against_reference<ExecSpace>(name, impl, last, rows_sorted, ref);
    last = DevCsr<ExecSpace>();
  };
  if (fits("spk", spk_need())) {
    progress.step("spk");
    out.push_back(measure("spk", opt, [&](double& s, double& n, long long& nnz) {
      spk::SpgemmHandle<O, F, ExecSpace> h(opt.spk);
      last = DevCsr<ExecSpace>();
      DevCsr<ExecSpace> C;
      double t0 = now_ms();
      spk::spgemm_symbolic(space, h, A, B, C);
      double t1 = now_ms();
      spk::spgemm_numeric(space, h, A, B, C);
      double t2 = now_ms();
      s = t1 - t0;
      n = t2 - t1;
      nnz = C.nnz();
      if (ref.available) last = C;
    }));
    checked("spk", true);
  }
  // spk's one-call API (on host spaces: the fused single pass, no symbolic).
  // Also without sorting each row (spk-onecall-unsorted): the output contract
  // of Kokkos Kernels' SPGEMM_KK (and of cuSPARSE), for a like-for-like
  // comparison.
  spk::SpgemmOptions unsorted = opt.spk;
  unsorted.sort = spk::SpgemmSort::Unsorted;
  auto one_call = [&](const spk::SpgemmOptions& o) {
    return [&, o](double& s, double& n, long long& nnz) {
      last = DevCsr<ExecSpace>();
      const double t0 = now_ms();
      DevCsr<ExecSpace> C = spk::spgemm(space, A, B, o);
      space.fence();
      s = 0;
      n = now_ms() - t0;
      nnz = C.nnz();
      if (ref.available) last = C;
    };
  };
  const spk::SpgemmOptions sorted = opt.spk;
  std::size_t onecall_record = out.size();
  if (fits("spk-onecall", spk_need())) {
    progress.step("spk-onecall");
    onecall_record = out.size();
    out.push_back(measure("spk-onecall", opt, one_call(sorted)));
    checked("spk-onecall", true);
  }
  if (fits("spk-onecall-unsorted", spk_need())) {
    progress.step("spk-onecall-unsorted");
    out.push_back(measure("spk-onecall-unsorted", opt, one_call(unsorted)));
    checked("spk-onecall-unsorted", false);
  }
  if (opt.kernels && wanted(opt, "spk-onecall") && onecall_record < out.size()) {
    // One more one-call product with every kernel fenced and timed by label.
    spk::perf::KernelProfile profile;
    const double t0 = now_ms();
    DevCsr<ExecSpace> C = spk::spgemm(space, A, B, opt.spk);
    space.fence();
    std::ostringstream note;
    note.precision(3);
    note << "total(ms)=" << now_ms() - t0 << " kernels(ms)" << spk::perf::KernelProfile::summary();
    out[onecall_record].note = note.str();
  }
  if ((wanted(opt, "spk") || wanted(opt, "spk-numeric-reuse") ||
       wanted(opt, "spk-numeric-unsorted")) &&
      fits("spk-numeric-reuse", spk_need())) {
    progress.step("spk-numeric-reuse");
    // Numeric reuse: symbolic once, numeric timed.
    spk::SpgemmHandle<O, F, ExecSpace> h(opt.spk);
    DevCsr<ExecSpace> C;
    spk::spgemm_symbolic(space, h, A, B, C);
    if (!out.empty() && out[0].impl == "spk" && out[0].status == "ok") {
      // One more run with phase timing, for the note of the "spk" record.
      spk::SpgemmOptions o = opt.spk;
      o.time_phases = true;
      spk::SpgemmHandle<O, F, ExecSpace> ht(o);
      DevCsr<ExecSpace> Ct;
      spk::spgemm_symbolic(space, ht, A, B, Ct);
      spk::spgemm_numeric(space, ht, A, B, Ct);
      std::ostringstream note;
      note.precision(3);
      note << "phases(ms)";
      for (const auto& [phase, ms] : ht.phase_times()) note << " " << phase << "=" << ms;
      if (opt.kernels) {
        // And one with every kernel fenced and timed by label.
        spk::SpgemmHandle<O, F, ExecSpace> hk(opt.spk);
        DevCsr<ExecSpace> Ck;
        spk::perf::KernelProfile profile;
        spk::spgemm_symbolic(space, hk, A, B, Ck);
        spk::spgemm_numeric(space, hk, A, B, Ck);
        note << " kernels(ms)" << spk::perf::KernelProfile::summary();
      }
      if (opt.trace) {
        // And one with its host timeline (no fences added).
        spk::SpgemmHandle<O, F, ExecSpace> hk(opt.spk);
        DevCsr<ExecSpace> Ck;
        std::string trace;
        {
          spk::perf::HostTrace t;
          spk::spgemm_symbolic(space, hk, A, B, Ck);
          spk::spgemm_numeric(space, hk, A, B, Ck);
          trace = spk::perf::HostTrace::summary();
        }
        note << " trace(us)" << trace;
      }
      out[0].note = note.str();
    }
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
      note << " " << spk::Impl::to_string(b.kernel) << ":2^" << b.log2_capacity << "x"
           << (b.end - b.begin);
    note << " long-rows:" << int(h.plan().long_rows.kind)
         << " split-rows:" << h.plan().long_rows.split.rows << " slabs " << h.slab_bytes() << "B";
    r.note = note.str();
    out.push_back(r);
    // What sorting costs: numeric again without it.
    h.set_sort(spk::SpgemmSort::Unsorted);
    progress.step("spk-numeric-unsorted");
    out.push_back(measure("spk-numeric-unsorted", opt, [&](double& s, double& n, long long& nnz) {
      const double t0 = now_ms();
      spk::spgemm_numeric(space, h, A, B, C);
      n = now_ms() - t0;
      s = 0;
      nnz = C.nnz();
    }));
  }

  // The baselines start with the device memory spk's pool kept given back.
  spk::trim_memory_pool();
#if defined(SPK_HAVE_KOKKOSKERNELS)
  if (fits("kk-spgemm-kk", kk_need())) {
    progress.step("kk-spgemm-kk");
    out.push_back(measure("kk-spgemm-kk", opt, [&](double& s, double& n, long long& nnz) {
      using MS = typename ExecSpace::memory_space;
      using KH = KokkosKernels::Experimental::KokkosKernelsHandle<F, O, S, ExecSpace, MS, MS>;
      double t0 = now_ms();
      KH kh;
      kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      Kokkos::View<F*, ExecSpace> rm("kk.C.row_map", A.num_rows() + 1);
      spk::Impl::kk_spgemm::spgemm_symbolic(&kh, A.num_rows(), B.num_rows(), B.num_cols(),
                                            A.row_map(), A.col_idx(), false, B.row_map(),
                                            B.col_idx(), false, rm);
      space.fence();
      double t1 = now_ms();
      const F c_nnz = kh.get_spgemm_handle()->get_c_nnz();
      Kokkos::View<O*, ExecSpace> ci(Kokkos::ViewAllocateWithoutInitializing("kk.C.col_idx"),
                                     c_nnz);
      Kokkos::View<S*, ExecSpace> cv(Kokkos::ViewAllocateWithoutInitializing("kk.C.values"), c_nnz);
      spk::Impl::kk_spgemm::spgemm_numeric(&kh, A.num_rows(), B.num_rows(), B.num_cols(),
                                           A.row_map(), A.col_idx(), A.values(), false, B.row_map(),
                                           B.col_idx(), B.values(), false, rm, ci, cv);
      space.fence();
      double t2 = now_ms();
      kh.destroy_spgemm_handle();
      s = t1 - t0;
      n = t2 - t1;
      nnz = c_nnz;
    }));
  }
#endif

#if defined(SPK_HAVE_CUSPARSE)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    cusparseHandle_t handle;
    SPK_CUSPARSE_CHECK(cusparseCreate(&handle));
    cudaMemPool_t default_pool;
    SPK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&default_pool, space.cuda_device()));
    for (const bool pooled : {false, true}) {
      const char* impl = pooled ? "cusparse-spgemm-pooled" : "cusparse-spgemm";
      if (!fits(impl, cusparse_need())) continue;
      progress.step(impl);
      // The pooled variant caches like spk's pool: the default pool keeps
      // freed memory across synchronisations (its threshold is 0 by default).
      std::uint64_t keep = pooled ? UINT64_MAX : 0;
      cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &keep);
      long long cu_peak = 0;
      Result r = measure(impl, opt, [&](double& s, double& n, long long& nnz) {
        long long p = 0;
        nnz = cusparse_spgemm(handle, A, B, s, n, p, pooled);
        cu_peak = std::max(cu_peak, p);
      });
      if (r.status == "ok") r.peak_bytes = cu_peak;
      out.push_back(r);
      std::uint64_t none = 0;
      cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &none);
      cudaDeviceSynchronize();
      cudaMemPoolTrimTo(default_pool, 0);
    }
    cusparseDestroy(handle);
  }
#endif

  if (opt.baselines) {
    std::string reason;
    const bool ref_fits = spk::perf::fits_memory(c_bytes() + 12.0 * B_h.num_cols(),
                                                 spk::perf::host_available_bytes(), "host", reason);
    if (products <= 100'000'000ull && wanted(opt, "serial-reference") && !ref_fits) {
      Result r;
      r.impl = "serial-reference";
      r.status = "skipped";
      r.message = reason;
      out.push_back(r);
    }
    if (products <= 100'000'000ull && wanted(opt, "serial-reference") && ref_fits) {
      progress.step("serial-reference");
      Options once = opt;
      once.warmup = 0;
      once.repeat = 1;
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
    if (mn <= (host_space ? 2.5e7 : 1.5e8)) {
      progress.step("baselines (dot products, dense output)");
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

/// The two operands of a matrix argument and its display name: A·A for a
/// square matrix, A·Aᵀ for a rectangular one, and the AMG-setup products
/// ap:agg|sa:SPEC (A·P) and ptap:agg|sa:SPEC (Pᵀ·(A·P), A·P formed first
/// by the serial reference).
struct Operands {
  HostCsr A, B;
  std::string name;
};

Operands load_operands(const std::string& spec) {
  if (spk::perf::is_product_spec(spec)) {
    const bool ptap = spec.rfind("ptap:", 0) == 0;
    const std::string rest = spec.substr(ptap ? 5 : 3);
    const std::string kind = rest.substr(0, rest.find(':'));
    const std::string inner = rest.substr(kind.size() + 1);
    // The prolongator is built from the double matrix, then both take S.
    const auto A_read = spk::load_csr<double, O, F>(inner);
    // (P's complex values are those of the spec prolongator:KIND:INNER)
    const HostCsr A = with_scalar(inner, A_read);
    const HostCsr P = with_scalar("prolongator:" + kind + ":" + inner,
                                  kind == "sa" ? spk::smoothed_prolongator(A_read, "P_sa")
                                               : spk::aggregation_prolongator(A_read, "P_agg"));
    if (!ptap) return {A, P, spec};
    return {spk::transpose(P), spk::reference::spgemm(A, P), spec};
  }
  HostCsr A = with_scalar(spec, spk::load_csr<double, O, F>(spec));
  const bool square = A.num_rows() == A.num_cols();
  HostCsr B = square ? A : spk::transpose(A);
  return {A, B, spk::matrix_display_name(spec) + (square ? "" : " (A*At)")};
}

template <class ExecSpace>
void run_space(const Options& opt, spk::perf::Report& report) {
  const std::string space = spk::Impl::space_name<ExecSpace>();
  spk::perf::Progress progress(opt.common.matrices.size());
  for (std::size_t m = 0; m < opt.common.matrices.size(); ++m) {
    const std::string& spec = opt.common.matrices[m];
    progress.matrix(m, spk::perf::is_product_spec(spec) ? spec : spk::matrix_display_name(spec));
    spk::perf::reset_peak_rss();
    spk::perf::MemTracker::reset_matrix();
    spk::perf::Record base;
    base.op = "spgemm";
    base.matrix = spk::perf::is_product_spec(spec) ? spec : spk::matrix_display_name(spec);
    base.impl = "all";
    base.space = space;
    std::vector<Result> results;
    Operands ops;
    ProductSize size;
    try {
      ops = load_operands(spec);
      base.matrix = ops.name;
      base.rows = ops.A.num_rows();
      base.cols = ops.A.num_cols();
      base.nnz = ops.A.nnz();
      size = product_size(ops.A, ops.B);
      results = run_all<ExecSpace>(opt, ops.A, ops.B, size, ops.name, progress);
    } catch (const spk::Overflow& e) {
      // C does not fit this run's offset type (counted exactly when its
      // bound did not fit the memory): no implementation can hold it.
      report.add_status(base, "skipped", e.what());
      progress.step(std::string("skipped: ") + e.what());
      report.write_json();
      continue;
    } catch (const std::exception& e) {
      // The matrix could not be loaded or a step outside the measured
      // implementations threw: one failed row, then the next matrix.
      report.add_status(base, "failed", e.what());
      progress.step(std::string("failed: ") + e.what());
      report.write_json();
      continue;
    }
    const HostCsr& A_h = ops.A;
    const std::uint64_t products = size.products;
    const double peak_rss = double(spk::perf::peak_rss_bytes());
    const double peak_dev = double(spk::perf::MemTracker::matrix_peak);
    double cusparse_ms = 0, kk_ms = 0;
    long long spk_nnz = -1;
    for (const Result& r : results) {
      if (r.status != "ok") continue;
      if (r.impl == "cusparse-spgemm" && r.total_ms > 0) cusparse_ms = r.total_ms;
      if (r.impl == "kk-spgemm-kk" && r.total_ms > 0) kk_ms = r.total_ms;
      if (r.impl == "spk") spk_nnz = r.nnz_c;
    }
    for (const Result& r : results) {
      if (!r.ran) continue;
      spk::perf::Record rec = base;
      rec.impl = r.impl;
      rec.numbers = {{"products", double(products)},
                     {"peak_rss_bytes", peak_rss},
                     {"peak_device_bytes", peak_dev}};
      if (r.status != "ok") {
        report.add_status(rec, r.status, r.message);
        continue;
      }
      rec.ms = r.total_ms;
      // Bytes: A read once, one entry of B per product, C written once.
      const double bytes = (double(A_h.nnz()) + double(products) + double(std::max(0LL, r.nnz_c))) *
                           (sizeof(O) + sizeof(S));
      rec.gbps = bytes / (r.total_ms * 1e6);
      rec.gflops = (spk::is_complex_v<S> ? 8.0 : 2.0) * double(products) / (r.total_ms * 1e6);
      rec.numbers.insert(rec.numbers.begin(), {{"symbolic_ms", r.symbolic_ms},
                                               {"numeric_ms", r.numeric_ms},
                                               {"nnz_c", double(r.nnz_c)}});
      if (r.peak_bytes >= 0) rec.numbers.push_back({"peak_bytes", double(r.peak_bytes)});
      if (cusparse_ms > 0) rec.numbers.push_back({"speedup_vs_cusparse", cusparse_ms / r.total_ms});
      if (kk_ms > 0 && r.total_ms > 0) {
        rec.numbers.push_back({"speedup_vs_kk", kk_ms / r.total_ms});
        speedups_vs_kk[r.impl].push_back(kk_ms / r.total_ms);
      }
      if (spk_nnz >= 0 && r.nnz_c != spk_nnz && r.impl != "baseline-dense-output")
        rec.strings.push_back({"warning", "nnz_c differs from spk"});
      if (!r.note.empty()) rec.strings.push_back({"note", r.note});
      report.add(rec);
    }
    report.write_json();  // after every matrix: a run cut short keeps its data
  }
}

/// The driver for scalar S: parses the options (main has checked --scalar;
/// it is skipped here but kept in the report's command line), runs the
/// products and writes the report; returns the exit code.
int driver_main(int argc, char* argv[]) {
  int rc = 0;
  try {
    Options opt;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--scalar" && i + 1 < argc)
        ++i;
      else if (a.rfind("--scalar=", 0) == 0)
        continue;
      else if (a == "--check")
        opt.check = true;
      else if (a == "--kernels")
        opt.kernels = true;
      else if (a == "--trace")
        opt.trace = true;
      else if (a == "--no-baselines")
        opt.baselines = false;
      else if (a.rfind("--long-row-split=", 0) == 0) {
        const std::string m = a.substr(17);
        SPK_REQUIRE(m == "auto" || m == "off" || m == "force", spk::Error,
                    "--long-row-split=auto|off|force, not ", m);
        opt.spk.long_row_split = m == "off"     ? spk::SpgemmLongRowSplit::Off
                                 : m == "force" ? spk::SpgemmLongRowSplit::Force
                                                : spk::SpgemmLongRowSplit::Auto;
      } else if (a.rfind("--only=", 0) == 0) {
        std::stringstream list(a.substr(7));
        for (std::string impl; std::getline(list, impl, ',');)
          if (!impl.empty()) opt.only.push_back(impl);
      } else
        args.push_back(argv[i]);
    }
    bool warmup_given = false, repeat_given = false;
    for (char* a : args) {
      warmup_given |= std::string(a).rfind("--warmup", 0) == 0;
      repeat_given |= std::string(a).rfind("--repeat", 0) == 0;
    }
    opt.common = spk::perf::parse_args(
        static_cast<int>(args.size()), args.data(),
        "[MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick] [--repeat N] "
        "[--warmup N] [--space serial|openmp|cuda] [--json FILE] [--check] [--no-baselines] "
        "[--kernels] [--trace] [--only=IMPL[,IMPL...]] [--long-row-split=auto|off|force] "
        "[--scalar float|double|cfloat|cdouble]\n"
        "  SPEC: a generator spec, or ap:agg|sa:SPEC (A*P) / ptap:agg|sa:SPEC (Pt*(A*P)) with P\n"
        "  the aggregation or smoothed-aggregation prolongator of SPEC");
    opt.common.command_line.clear();
    for (int i = 0; i < argc; ++i) opt.common.command_line += (i ? " " : "") + std::string(argv[i]);
    SPK_REQUIRE(!(opt.check && !opt.only.empty()), spk::Error,
                "--check compares every spk record: not with --only");
    // SpGEMM runs are long: fewer repeats than the harness default.
    if (!repeat_given) opt.common.repeat = 5;
    if (!warmup_given) opt.common.warmup = 1;
    opt.repeat = opt.common.repeat;
    opt.warmup = opt.common.warmup;
    spk::perf::Report report(opt.common);
    spk::perf::with_space(opt.common.space, [&](auto space) {
      using ExecSpace = decltype(space);
      MemTracker::install(spk::Impl::is_host_space_v<ExecSpace>);
      if (opt.common.matrices.empty())
        opt.common.matrices = spk::perf::default_matrices<ExecSpace>(opt.common, true);
      const auto memory = spk::perf::space_memory_bytes<ExecSpace>();
      report.set_memory(memory.first, memory.second);
      report.set_comparison("spk-onecall", {"kk-spgemm-kk", "serial-reference", "cusparse-spgemm",
                                            "cusparse-spgemm-pooled"});
      report.note(std::string("corpus ") + spk::perf::to_string(opt.common.corpus) + ", " +
                  std::to_string(opt.common.matrices.size()) + " matrices; memory available " +
                  spk::perf::gib(memory.first) + " of " + spk::perf::gib(memory.second));
      report.note(std::string("perf_spgemm: C = A*A (A*At for rectangular A), ") +
                  spk::ScalarTraits<S>::name() +
                  ", int/int; ms = median total incl. allocation; space " +
                  spk::Impl::space_name<ExecSpace>() + ", concurrency " +
                  std::to_string(space.concurrency()));
      report.print_header();
      run_space<ExecSpace>(opt, report);
      // Geometric means of the speed-ups over Kokkos Kernels (total time).
      for (const char* impl :
           {"spk", "spk-onecall", "spk-onecall-unsorted", "spk-numeric-reuse", "cusparse-spgemm"}) {
        const auto it = speedups_vs_kk.find(impl);
        if (it == speedups_vs_kk.end() || it->second.empty()) continue;
        double lg = 0;
        for (double x : it->second) lg += std::log(x);
        const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
        char line[256];
        std::snprintf(line, sizeof line,
                      "summary: geometric mean speed-up of %s over kk-spgemm-kk: %.2fx over %zu "
                      "matrices (min %.2fx, max %.2fx)",
                      impl, std::exp(lg / it->second.size()), it->second.size(), *lo, *hi);
        report.note(line);
      }
      report.finish();
    });
    if (check_failed) {
      std::fprintf(stderr, "perf_spgemm: --check found a mismatch\n");
      rc = 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perf_spgemm: %s\n", e.what());
    rc = 1;
  }
  return rc;
}

}  // namespace SPK_PERF_SPGEMM_NAMESPACE
