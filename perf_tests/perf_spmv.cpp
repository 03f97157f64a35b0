// perf_spmv: y = A·x (int32 indices; values double unless --scalar picks
// float, cfloat = Kokkos::complex<float> or cdouble) with every spk algorithm,
// Kokkos Kernels, cuSPARSE (CSR ALG1 and ALG2, CUDA builds) and a plain
// serial loop, side by side on each matrix, plus the machine's reference
// bandwidth measured in the same run (device-to-device copy; on the CPU also a
// streaming read).
//
//   perf_spmv [MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick]
//             [--space serial|openmp|cuda] [--repeat N] [--warmup N]
//             [--json FILE] [--sweep 1|split] [--serial-loop 0]
//             [--formats csr,ell,hyb,bsr:3,sell:32:256]
//             [--scalar float|double|cfloat|cdouble]
//
// Without matrices: the corpus (spk_perf_common.hpp, docs/benchmarks.md)
// plus $SPK_MATRIX_DIR's files.  A matrix whose vectors and copies would
// not fit the space's memory is a skipped row, one that throws a failed
// row; the run goes on.  On host spaces the implementations are timed in
// turn (spk::perf::time_in_turn), on GPUs one after another.  Reported: median ms after
// warm-up, GB/s from counted bytes (row_map + col_idx + values + x + y, each
// once), GFLOP/s (2·nnz), the fraction of the reference bandwidth, and each
// result's max relative deviation from the serial loop.  --sweep 1 also times
// explicit launch shapes (the data behind `auto`) and, with --formats, the
// formats' tuning values; --sweep split only the long-row split's shapes.
// Where auto's plan splits long rows, spk-auto-keep times it without the
// split.  --formats adds each storage format's SpMV
// (spk_perf_formats.hpp).  With a complex --scalar
// the matrix's values are the generators' values=complex (for a file too:
// spk::with_complex_values) and x is complex; the bytes counted follow the
// scalar's size.
#define SPK_COMPAT_KK_SPMV 1
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <spk_mirror.hpp>
#include <spk_perf_common.hpp>
#include <spk_perf_formats.hpp>
#include <spk_spmv.hpp>
#include <sstream>
#include <string>
#include <vector>

#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <spk_kokkoskernels.hpp>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

using O = int;
using F = int;
using HostCsr = spk::CsrMatrix<double, O, F, spk::HostDevice>;

using spk::perf::with_scalar;
#if defined(KOKKOS_ENABLE_CUDA)
using spk::perf::cuda_data_type;
#endif

struct Args {
  int repeat = 10, warmup = 2;
  bool serial_loop = true;
  bool sweep = false;                    // also time explicit launch shapes (tuning data)
  bool sweep_split = false;              // ... of the long-row split (--sweep 1 or split)
  std::vector<spk::FormatSpec> formats;  // --formats: storage formats beside CSR
};

/// The fastest of the last time_ms call's runs: on a shared, loaded host the
/// median can be a scheduler artefact, the minimum rarely is (reported as
/// min_ms beside the median).
double last_min_ms = 0;

/// Median ms of f() (then sync()) over a.repeat runs after a.warmup runs.
template <class Fn, class Sync>
double time_ms(const Args& a, Fn&& f, Sync&& sync) {
  for (int r = 0; r < a.warmup; ++r) f();
  sync();
  std::vector<double> t;
  for (int r = 0; r < a.repeat; ++r) {
    Kokkos::Timer timer;
    f();
    sync();
    t.push_back(timer.seconds() * 1e3);
  }
  std::sort(t.begin(), t.end());
  last_min_ms = t.front();
  const size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

template <class ExecSpace, class V>
double stream_read_sum(const ExecSpace& space, const V& src) {
  double s = 0;
  Kokkos::parallel_reduce(
      "stream_read", Kokkos::RangePolicy<ExecSpace>(space, 0, src.extent(0)),
      KOKKOS_LAMBDA(const size_t i, double& acc) { acc += src(i); }, s);
  return s;
}

/// Streaming-read bandwidth (a parallel sum over 512 MiB), GB/s.
template <class ExecSpace>
double stream_read_gbps(const ExecSpace& space) {
  const size_t n = size_t(1) << 26;
  Kokkos::View<double*, typename ExecSpace::memory_space> src("src", n);
  Kokkos::deep_copy(space, src, 1.0);
  double sink = 0;
  const double ms = spk::perf::median_ms(2, 10, [&] { sink += stream_read_sum(space, src); });
  if (sink < 0) std::printf("%g\n", sink);
  return double(n) * sizeof(double) / (ms * 1e6);
}

/// Why the last fits() said no.
std::string memory_reason;

/// Whether y = A·x fits the space's memory now: A, x and y in the space,
/// the host's copy of A, x and two result vectors (and, on host spaces, both
/// in the same memory), the plan's row statistics.
template <class S, class ExecSpace>
bool fits(const ExecSpace&, const HostCsr& A) {
  const double m = A.num_rows(), n = A.num_cols();
  const double csr = (m + 1) * sizeof(F) + double(A.nnz()) * (sizeof(O) + sizeof(S));
  const double host = csr + (n + 2 * m) * sizeof(S);
  const double dev = csr + (n + m) * sizeof(S) + 8 * m;
  if (spk::Impl::is_host_space_v<ExecSpace>)
    return spk::perf::fits_memory(host + dev, spk::perf::host_available_bytes(), "host",
                                  memory_reason);
  return spk::perf::fits_memory(dev, spk::perf::space_memory_bytes<ExecSpace>().first, "device",
                                memory_reason);
}

#if defined(KOKKOS_ENABLE_CUDA)
/// cuSPARSE's generic SpMV on spk's arrays (32-bit indices, no copies): the
/// descriptors and one prepared buffer per algorithm, kept while the table's
/// implementations are timed in turn.
template <class S, class MS>
class CusparseSpmv {
 public:
  template <class Csr>
  CusparseSpmv(cudaStream_t stream, const Csr& A, const Kokkos::View<S*, MS>& x,
               const Kokkos::View<S*, MS>& y) {
    check(cusparseCreate(&handle_), "create");
    check(cusparseSetStream(handle_, stream), "set stream");
    check(cusparseCreateCsr(&mat_, A.num_rows(), A.num_cols(), A.nnz(),
                            const_cast<F*>(A.row_map().data()), const_cast<O*>(A.col_idx().data()),
                            const_cast<S*>(A.values().data()), CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<S>()),
          "create csr");
    check(cusparseCreateDnVec(&x_, x.extent(0), x.data(), cuda_data_type<S>()), "dnvec x");
    check(cusparseCreateDnVec(&y_, y.extent(0), y.data(), cuda_data_type<S>()), "dnvec y");
  }
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  ~CusparseSpmv() {
    cusparseDestroyDnVec(x_);
    cusparseDestroyDnVec(y_);
    cusparseDestroySpMat(mat_);
    cusparseDestroy(handle_);
  }

  /// Sizes (and, from cuSPARSE 12.4, preprocesses) a buffer for `alg`; returns its index for run().
  int prepare(cusparseSpMVAlg_t alg) {
    size_t bytes = 0;
    check(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, x_,
                                  &zero_, y_, cuda_data_type<S>(), alg, &bytes),
          "buffer size");
    algs_.push_back(alg);
    buffers_.emplace_back("cusparse_buffer", std::max<size_t>(bytes, 1));
#if CUSPARSE_VERSION >= 12400
    check(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, x_,
                                  &zero_, y_, cuda_data_type<S>(), alg, buffers_.back().data()),
          "preprocess");
#endif
    return static_cast<int>(algs_.size()) - 1;
  }

  /// y = A·x with the k-th prepared algorithm.
  void run(int k) const {
    check(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, x_, &zero_, y_,
                       cuda_data_type<S>(), algs_[k], buffers_[k].data()),
          "spmv");
  }

 private:
  static void check(cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS)
      throw spk::Error(std::string("cuSPARSE ") + what + ": " + cusparseGetErrorString(s));
  }
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  const S one_ = S(1), zero_ = S(0);
  std::vector<cusparseSpMVAlg_t> algs_;
  std::vector<Kokkos::View<char*, MS>> buffers_;
};
#endif

template <class ExecSpace, class S>
int run(const Args& args, const spk::perf::Options& opt, spk::perf::Report& report) {
  using MS = typename ExecSpace::memory_space;
  using Csr = spk::CsrMatrix<S, O, F, Kokkos::Device<ExecSpace, MS>>;
  ExecSpace space;
  const std::string space_name = spk::Impl::space_name<ExecSpace>();
  const bool host = spk::Impl::is_host_space_v<ExecSpace>;
  const double copy = spk::perf::copy_gbps(space);
  const double read = host ? stream_read_gbps(space) : 0.0;
  const double ref_gbps = host ? read : copy;
  report.note("space " + space_name + ", concurrency " +
              std::to_string(spk::Impl::concurrency(space)) + ": copy bandwidth " +
              spk::perf::json_number(copy) + " GB/s (read + write)" +
              (host ? ", streaming read " + spk::perf::json_number(read) + " GB/s" : "") +
              "; ref_frac is the fraction of the " + (host ? "streaming read" : "copy"));
  report.print_header();
  int failures = 0;
  std::vector<std::string> names;
  spk::perf::MatrixLoop matrices("spmv", space_name, opt.matrices, report);
  matrices.run([&](const std::string& spec) {
    const HostCsr hA_read = spk::load_csr<double, O, F>(spec);
    const std::string name = spk::matrix_display_name(spec);
    names.push_back(name);
    const long long m = hA_read.num_rows(), n = hA_read.num_cols(), nnz = hA_read.nnz();
    if (!fits<S>(space, hA_read)) {
      report.add_status({"spmv", name, "all", space_name, m, n, nnz}, "skipped", memory_reason);
      return;
    }
    const double bytes = double(m + 1) * sizeof(F) + double(nnz) * (sizeof(O) + sizeof(S)) +
                         double(n + m) * sizeof(S);
    // Complex products: 4 multiplies and 4 adds per entry.
    const double flops = (spk::is_complex_v<S> ? 8.0 : 2.0) * nnz;
    const auto hA = with_scalar<S>(spec, hA_read);
    Csr A = spk::create_mirror_view_and_copy(space, hA);
    Kokkos::View<S*, Kokkos::HostSpace> hx("hx", n), href("href", m);
    spk::Impl::SplitMix64 rng(42);
    for (long long i = 0; i < n; ++i) {
      const double re = 2 * rng.uniform() - 1;
      if constexpr (spk::is_complex_v<S>)
        hx(i) = S(re, 2 * rng.uniform() - 1);
      else
        hx(i) = static_cast<S>(re);
    }
    // The plain serial loop: the oracle and a baseline.
    auto serial_loop = [&] {
      const F* rp = hA.row_map().data();
      const O* ci = hA.col_idx().data();
      const S* va = hA.values().data();
      const S* xp = hx.data();
      S* yp = href.data();
      for (long long i = 0; i < m; ++i) {
        S s = 0;
        for (F k = rp[i]; k < rp[i + 1]; ++k) s += va[k] * xp[ci[k]];
        yp[i] = s;
      }
    };
    serial_loop();
    Kokkos::View<S*, MS> x("x", n), y("y", m);
    Kokkos::deep_copy(x, hx);
    auto hy = Kokkos::create_mirror_view(y);
    double ref_norm = 0;
    for (long long i = 0; i < m; ++i)
      ref_norm = std::max(ref_norm, double(spk::Impl::magnitude(href(i))));
    // Sums in another order than the serial loop: a few hundred roundings
    // of the scalar's precision (double: 1e-10, as for the other drivers).
    const double tolerance =
        std::max(1e-10, 2000.0 * std::numeric_limits<spk::real_type_t<S>>::epsilon());
    auto add = [&](const std::string& impl, double ms, const std::string& sp, bool check,
                   const std::string& note = "", const spk::perf::Numbers& extra = {}) {
      double err = -1;
      if (check) {
        Kokkos::deep_copy(hy, y);
        err = 0;
        for (long long i = 0; i < m; ++i)
          err = std::max(err, double(spk::Impl::magnitude(hy(i) - href(i))));
        err /= std::max(ref_norm, 1e-300);
        if (!(err <= tolerance)) {
          ++failures;
          report.note("MISMATCH " + name + " " + impl + ": max relative error " +
                      spk::perf::json_number(err));
        }
      }
      const double gbps = bytes / (ms * 1e6);
      spk::perf::Record r{"spmv", name, impl, sp, m, n, nnz, ms, gbps, flops / (ms * 1e6)};
      r.numbers.push_back({"ref_frac", gbps / ref_gbps});
      r.numbers.push_back({"copy_frac", gbps / copy});
      r.numbers.push_back({"min_ms", last_min_ms});
      if (err >= 0) r.numbers.push_back({"max_rel_err", err});
      for (const auto& e : extra) r.numbers.push_back(e);
      if (!note.empty()) r.strings.push_back({"launch", note});
      r.strings.push_back({"scalar", spk::ScalarTraits<S>::name()});
      report.add(r);
      matrices.step(impl);
    };
    auto sync = [&] { space.fence(); };
    auto poison = [&] {
      Kokkos::deep_copy(
          y, spk::Impl::scalar_cast<S>(std::numeric_limits<spk::real_type_t<S>>::quiet_NaN()));
    };

    // The table's implementations, timed in turn (time_in_turn): each pass
    // runs every one once on the same A, x and y.
    struct Candidate {
      std::string impl, note;
      std::function<void()> run;
    };
    std::vector<Candidate> candidates;
    std::vector<std::shared_ptr<spk::SpmvPlan<Csr>>> plans;
    auto add_plan = [&](const std::string& impl, const spk::SpmvOptions& o) {
      auto plan = std::make_shared<spk::SpmvPlan<Csr>>(space, A, o);
      plans.push_back(plan);
      // The chosen algorithm and lanes, e.g. "vector lanes=8 groups=32 rows/group=4".
      candidates.push_back(
          {impl, plan->describe(), [&, plan] { spk::spmv(space, *plan, S(1), A, x, S(0), y); }});
      return plan;
    };
    for (auto alg :
         {spk::SpmvAlgorithm::Scalar, spk::SpmvAlgorithm::Vector, spk::SpmvAlgorithm::MergePath,
          spk::SpmvAlgorithm::Stream, spk::SpmvAlgorithm::Auto}) {
      spk::SpmvOptions o;
      o.algorithm = alg;
      const auto plan = add_plan(std::string("spk-") + spk::to_string(alg), o);
      if (alg == spk::SpmvAlgorithm::Auto && plan->launch().split_rows > 0) {
        o.long_rows = spk::SpmvLongRows::Keep;
        add_plan("spk-auto-keep", o);
      }
    }
    // auto without a plan: the mean-only choice.
    candidates.push_back({"spk-auto-noplan", "", [&] { spk::spmv(space, S(1), A, x, S(0), y); }});
#if defined(SPK_HAVE_KOKKOSKERNELS)
    auto kA = spk::to_kokkos_kernels(A);
    candidates.push_back({"kokkoskernels", "KokkosSparse::spmv default dispatch",
                          [&] { KokkosSparse::spmv("N", S(1), kA, x, S(0), y); }});
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
    candidates.push_back({"kokkoskernels-native", "SPMVHandle(SPMV_NATIVE)",
                          [&] { spk::Impl::kk_spmv_native(space, S(1), kA, x, S(0), y); }});
#endif
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    std::optional<CusparseSpmv<S, MS>> cusparse;
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      cusparse.emplace(space.cuda_stream(), A, x, y);
      for (const auto& shape : {std::pair{CUSPARSE_SPMV_CSR_ALG1, "cusparse-alg1"},
                                std::pair{CUSPARSE_SPMV_CSR_ALG2, "cusparse-alg2"}}) {
        const int k = cusparse->prepare(shape.first);
        candidates.push_back({shape.second, "", [&, k] { cusparse->run(k); }});
      }
    }
#endif
    {
      std::vector<std::function<void()>> runs;
      for (const auto& c : candidates) runs.push_back(c.run);
      // In turn on host spaces only.  On a GPU each run leaves the 50 MB L2
      // as its loads left it (spk's streaming loads evict A, cuSPARSE's do
      // not), so that in turn every library met another's cache state:
      // cuSPARSE ALG1 and Kokkos Kernels took 1.39x their times in blocks,
      // spk 1.10x (43 matrices, H200).  In blocks each one is timed warm.
      std::vector<spk::perf::TurnTimes> times;
      if (host) {
        times = spk::perf::time_in_turn(args.warmup, args.repeat, runs, sync);
      } else {
        for (const auto& f : runs) {
          const double ms = time_ms(args, f, sync);
          times.push_back({ms, last_min_ms});
        }
      }
      for (size_t i = 0; i < candidates.size(); ++i) {
        poison();  // each must write y itself
        candidates[i].run();
        sync();
        last_min_ms = times[i].min_ms;
        add(candidates[i].impl, times[i].median_ms, space_name, true, candidates[i].note);
      }
    }
    if (args.sweep_split) {  // the long-row split: threshold × piece × team threads
      const bool host = spk::Impl::is_host_space_v<ExecSpace>;
      struct Shape {
        spk::SpmvAlgorithm alg;
        long long split_min, piece;
        int threads;
      };
      std::vector<Shape> shapes;
      for (long long split_min :
           host ? std::vector<long long>{16384, 65536} : std::vector<long long>{1024, 4096, 16384})
        for (long long piece :
             host ? std::vector<long long>{16384} : std::vector<long long>{2048, 4096, 16384})
          for (int threads : host ? std::vector<int>{1} : std::vector<int>{128, 256})
            shapes.push_back({spk::SpmvAlgorithm::Auto, split_min, piece, threads});
      // The other rows' algorithm, at the policy's split.
      const spk::SpmvTuning policy = spk::spmv_tuning(space);
      for (auto alg :
           {spk::SpmvAlgorithm::Scalar, spk::SpmvAlgorithm::Vector, spk::SpmvAlgorithm::Stream})
        shapes.push_back(
            {alg, policy.split_row_min, policy.split_piece_nnz, policy.split_team_threads});
      for (const auto& [alg, split_min, piece, threads] : shapes) {
        spk::SpmvOptions o;
        o.algorithm = alg;
        o.long_rows = spk::SpmvLongRows::Split;
        spk::SpmvTuning t = spk::spmv_tuning(space);
        t.split_row_min = split_min;
        t.split_piece_nnz = piece;
        t.split_team_threads = threads;
        o.tuning = t;
        spk::SpmvPlan plan(space, A, o);
        if (plan.launch().split_rows == 0) continue;
        poison();
        const double ms = time_ms(
            args, [&] { spk::spmv(space, plan, S(1), A, x, S(0), y); }, sync);
        add("sweep-split-" + std::string(spk::to_string(alg)) + "-m" + std::to_string(split_min) +
                "-p" + std::to_string(piece) + "-t" + std::to_string(threads),
            ms, space_name, true, plan.describe());
      }
    }
    if (args.sweep) {  // explicit launch shapes: the data behind auto's rules
      std::vector<spk::SpmvOptions> shapes;
      const bool host = spk::Impl::is_host_space_v<ExecSpace>;
      for (int vl : host ? std::vector<int>{1} : std::vector<int>{1, 2, 4, 8, 16, 32})
        for (int threads : host ? std::vector<int>{1, 16} : std::vector<int>{128, 256, 512})
          for (int rows : host ? std::vector<int>{0} : std::vector<int>{0, 1, 2, 4}) {
            // rows: rows per lane group (0: the policy's rule).
            spk::SpmvOptions o;
            o.algorithm = spk::SpmvAlgorithm::Vector;
            o.vector_length = vl;
            o.team_size = std::max(1, threads / vl);
            if (rows > 0) {
              spk::SpmvTuning t = spk::spmv_tuning(space);
              t.nnz_per_team = 1e18;
              t.min_teams = 1;
              t.max_rows_per_group = rows;
              o.tuning = t;
            }
            shapes.push_back(o);
          }
      for (int items :
           host ? std::vector<int>{1000, 10000, 100000} : std::vector<int>{2, 4, 8, 16, 32}) {
        spk::SpmvOptions o;
        o.algorithm = spk::SpmvAlgorithm::MergePath;
        o.merge_path_items = items;
        shapes.push_back(o);
      }
      // stream: block size × team threads × lanes of the scratch reduction.
      for (int block : host ? std::vector<int>{1024} : std::vector<int>{256, 512, 1024, 2048})
        for (int threads : host ? std::vector<int>{1} : std::vector<int>{128, 256, 512})
          for (int vl : host ? std::vector<int>{1} : std::vector<int>{1, 2, 4, 8}) {
            spk::SpmvOptions o;
            o.algorithm = spk::SpmvAlgorithm::Stream;
            o.vector_length = vl;
            o.team_size = std::max(1, threads / vl);
            spk::SpmvTuning t = spk::spmv_tuning(space);
            t.stream_block_nnz = block;
            o.tuning = t;
            shapes.push_back(o);
          }
      for (const auto& o : shapes) {
        spk::SpmvPlan plan(space, A, o);
        poison();
        const double ms = time_ms(
            args, [&] { spk::spmv(space, plan, S(1), A, x, S(0), y); }, sync);
        std::ostringstream label;
        if (o.algorithm == spk::SpmvAlgorithm::Vector)
          label << "sweep-vector-vl" << o.vector_length << "-ts" << o.team_size
                << (o.tuning ? "-r" + std::to_string(o.tuning->max_rows_per_group) : "");
        else if (o.algorithm == spk::SpmvAlgorithm::Stream)
          label << "sweep-stream-b" << o.tuning->stream_block_nnz << "-vl" << o.vector_length
                << "-ts" << o.team_size;
        else
          label << "sweep-merge_path-i" << o.merge_path_items;
        add(label.str(), ms, space_name, true, plan.describe());
      }
    }
    spk::perf::run_formats(
        space, args.formats, A, x, y, [&](auto&& f) { return time_ms(args, f, sync); }, poison,
        [&](const std::string& impl, double ms, bool check, const std::string& note,
            const spk::perf::Numbers& extra) {
          if (ms > 0)
            add(impl, ms, space_name, check, note, extra);
          else
            report.note(name + " " + impl + ": " + note);
        },
        args.sweep);
    if (args.serial_loop) {
      Args few = args;
      few.repeat = std::min(args.repeat, 5);
      few.warmup = 1;
      const double ms = time_ms(few, serial_loop, [] {});
      add("serial-loop", ms, "host-1-thread", false);
    }
  });
  // Geometric means of the ratios to the baselines over the suite.
  const auto& records = report.records();
  auto min_of = [](const spk::perf::Record& r) {
    for (const auto& [k, v] : r.numbers)
      if (k == "min_ms") return v;
    return r.ms;
  };
  auto geo = [&](const std::string& impl, const std::string& base) {
    double lsum = 0, lsum_min = 0;
    int cnt = 0;
    for (const auto& r : records)
      if (r.impl == impl)
        for (const auto& b : records)
          if (b.impl == base && b.matrix == r.matrix) {
            lsum += std::log(b.ms / r.ms);
            lsum_min += std::log(min_of(b) / min_of(r));
            ++cnt;
          }
    if (cnt > 0)
      report.note("geomean speedup of " + impl + " over " + base + ": " +
                  spk::perf::json_number(std::exp(lsum / cnt)) + " on medians, " +
                  spk::perf::json_number(std::exp(lsum_min / cnt)) + " on minima (" +
                  std::to_string(cnt) + " matrices)");
  };
  for (const char* base :
       {"kokkoskernels", "kokkoskernels-native", "cusparse-alg1", "cusparse-alg2", "serial-loop"})
    geo("spk-auto", base);
  if (failures) report.note(std::to_string(failures) + " MISMATCHES");
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  spk::perf::set_thread_placement();
  Kokkos::ScopeGuard kokkos(argc, argv);
  auto opt = spk::perf::parse_args(argc, argv,
                                   "[MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick] "
                                   "[--repeat N] [--warmup N] [--space S] [--json FILE] "
                                   "[--sweep 1|split] [--serial-loop 0] "
                                   "[--formats csr,ell,hyb,bsr:3,sell:32:256] "
                                   "[--scalar float|double|cfloat|cdouble]",
                                   {"sweep", "serial-loop", "formats", "scalar"});
  Args args;
  args.repeat = opt.repeat;
  args.warmup = opt.warmup;
  args.sweep =
      opt.extra.count("sweep") && opt.extra["sweep"] != "0" && opt.extra["sweep"] != "split";
  args.sweep_split = args.sweep || (opt.extra.count("sweep") && opt.extra["sweep"] == "split");
  args.serial_loop = !(opt.extra.count("serial-loop") && opt.extra["serial-loop"] == "0");
  try {
    if (opt.extra.count("formats"))
      args.formats = spk::perf::parse_format_list(opt.extra["formats"]);
  } catch (const std::exception& e) {
    std::cerr << "perf_spmv: error: " << e.what() << "\n";
    return 2;
  }
  const std::string scalar = opt.extra.count("scalar") ? opt.extra["scalar"] : "double";
  if (scalar != "float" && scalar != "double" && scalar != "cfloat" && scalar != "cdouble") {
    std::cerr << "perf_spmv: error: --scalar '" << scalar
              << "' is not float, double, cfloat or cdouble\n";
    return 2;
  }
  int rc = 0;
  spk::perf::Report report(opt);
  try {
    spk::perf::with_space(opt.space, [&](auto space) {
      using E = decltype(space);
      spk::perf::MemTracker::install(spk::Impl::is_host_space_v<E>);
      if (opt.matrices.empty()) opt.matrices = spk::perf::default_matrices<E>(opt, false);
      const auto memory = spk::perf::space_memory_bytes<E>();
      report.set_memory(memory.first, memory.second);
      report.set_comparison("spk-auto",
                            {"kokkoskernels", "serial-loop", "cusparse-alg1", "cusparse-alg2"});
      report.note(std::string("corpus ") + spk::perf::to_string(opt.corpus) + ", " +
                  std::to_string(opt.matrices.size()) + " matrices; memory available " +
                  spk::perf::gib(memory.first) + " of " + spk::perf::gib(memory.second));
      report.note("scalar " + scalar);
      if (scalar == "float")
        rc = run<E, float>(args, opt, report);
      else if (scalar == "cfloat")
        rc = run<E, Kokkos::complex<float>>(args, opt, report);
      else if (scalar == "cdouble")
        rc = run<E, Kokkos::complex<double>>(args, opt, report);
      else
        rc = run<E, double>(args, opt, report);
    });
  } catch (const std::exception& e) {
    std::cerr << "perf_spmv: error: " << e.what() << "\n";
    return 2;
  }
  report.finish();
  return rc;
}
