// perf_spmv: y = A·x (fp64 values, int32 indices) with every spk algorithm,
// Kokkos Kernels, cuSPARSE (CSR ALG1 and ALG2, CUDA builds) and a plain
// serial loop, side by side on each matrix, plus the machine's reference
// bandwidth measured in the same run (device-to-device copy on a GPU, a
// streaming read on the CPU).
//
//   perf_spmv [MATRIX...] [--space serial|openmp|cuda] [--repeat N] [--warmup N]
//             [--json FILE] [--no-serial-loop] [--sweep]
//
// MATRIX is a generator spec (poisson3d:150, rmat:21:16, ...) or a Matrix
// Market file (.mtx / .mtx.gz); without any, the default suite for the space.
// Reported: median ms over --repeat runs after --warmup, GB/s from counted
// bytes (row_map + col_idx + values + x + y, each once), GFLOP/s (2·nnz), and
// the fraction of the reference bandwidth.  Every result is checked against
// the serial loop.
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
#include <spk_generators.hpp>
#include <spk_mirror.hpp>
#include <spk_spmv.hpp>
#include <sstream>
#include <string>
#include <vector>

#if __has_include(<spk_matrix_market.hpp>)
#include <spk_matrix_market.hpp>
#define SPK_PERF_SPMV_HAVE_MM 1
#endif
#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <KokkosSparse_CrsMatrix.hpp>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

using S = double;
using O = int;
using F = int;
using HostCsr = spk::CsrMatrix<S, O, F, spk::HostDevice>;

struct Args {
  std::vector<std::string> matrices;
  std::string space;
  std::string json;
  int repeat = 20;
  int warmup = 3;
  bool serial_loop = true;
  bool sweep = false;  // also time explicit launch shapes (tuning data)
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw spk::Error("perf_spmv: " + s + " needs a value");
      return argv[++i];
    };
    if (s == "--space")
      a.space = next();
    else if (s == "--repeat")
      a.repeat = std::max(1, std::stoi(next()));
    else if (s == "--warmup")
      a.warmup = std::max(0, std::stoi(next()));
    else if (s == "--json")
      a.json = next();
    else if (s == "--no-serial-loop")
      a.serial_loop = false;
    else if (s == "--sweep")
      a.sweep = true;
    else if (s == "-h" || s == "--help") {
      std::cout << "usage: perf_spmv [MATRIX...] [--space serial|openmp|cuda] [--repeat N] "
                   "[--warmup N] [--json FILE] [--no-serial-loop] [--sweep]\n";
      std::exit(0);
    } else if (s.rfind("--kokkos", 0) == 0) {
      continue;
    } else if (s.rfind("--", 0) == 0) {
      throw spk::Error("perf_spmv: unknown option " + s);
    } else {
      a.matrices.push_back(s);
    }
  }
  return a;
}

HostCsr load(const std::string& spec) {
  if (spk::is_generator_spec(spec)) return spk::generate<S, O, F>(spec);
#if defined(SPK_PERF_SPMV_HAVE_MM)
  return spk::load_csr<S, O, F>(spec);
#else
  throw spk::Error("perf_spmv: this build reads generator specs only, not '" + spec + "'");
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Median milliseconds of f() over repeat runs after warmup runs; sync()
/// waits for the device.
double time_ms(const Args& a, const std::function<void()>& f, const std::function<void()>& sync) {
  for (int r = 0; r < a.warmup; ++r) f();
  sync();
  std::vector<double> t;
  for (int r = 0; r < a.repeat; ++r) {
    Kokkos::Timer timer;
    f();
    sync();
    t.push_back(timer.seconds() * 1e3);
  }
  return median(t);
}

struct Record {
  std::string matrix, impl, space, note;
  long long rows, cols, nnz;
  double ms, gbps, gflops, frac, ref_gbps, max_rel_err;
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

void write_json(const std::string& file, const std::vector<Record>& recs,
                const std::string& command, const std::string& ref_kind, double ref_gbps) {
  std::ofstream o(file);
  o << "{\n  \"command\": \"" << json_escape(command) << "\",\n  \"reference\": {\"kind\": \""
    << ref_kind << "\", \"gbps\": " << ref_gbps << "},\n  \"records\": [\n";
  for (size_t i = 0; i < recs.size(); ++i) {
    const auto& r = recs[i];
    o << "    {\"op\": \"spmv\", \"matrix\": \"" << json_escape(r.matrix)
      << "\", \"rows\": " << r.rows << ", \"cols\": " << r.cols << ", \"nnz\": " << r.nnz
      << ", \"impl\": \"" << r.impl << "\", \"space\": \"" << r.space << "\", \"ms\": " << r.ms
      << ", \"gbps\": " << r.gbps << ", \"gflops\": " << r.gflops
      << ", \"frac_of_reference\": " << r.frac << ", \"max_rel_err\": " << r.max_rel_err
      << ", \"note\": \"" << json_escape(r.note) << "\"}" << (i + 1 < recs.size() ? "," : "")
      << "\n";
  }
  o << "  ]\n}\n";
}

template <class ExecSpace>
std::vector<std::string> default_suite() {
  std::vector<std::string> suite;
  if (spk::Impl::is_host_space_v<ExecSpace>)
    suite = {"poisson2d:1000", "poisson3d:100", "random:1000000:1000000:16:1", "rmat:20:16:1"};
  else
    suite = {"poisson2d:2000", "poisson3d:150", "random:2000000:2000000:16:1", "rmat:21:16:1"};
#if defined(SPK_PERF_SPMV_HAVE_MM)
  const char* env = std::getenv("SPK_MATRIX_DIR");
  std::string dir = env && *env ? env : "../shared/matrices";
  if (std::filesystem::is_directory(dir)) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().string().find(".mtx") != std::string::npos) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    suite.insert(suite.end(), files.begin(), files.end());
  }
#endif
  return suite;
}

template <class ExecSpace, class V>
double stream_read_sum(const ExecSpace& space, const V& src) {
  double s = 0;
  Kokkos::parallel_reduce(
      "stream_read", Kokkos::RangePolicy<ExecSpace>(space, 0, src.extent(0)),
      KOKKOS_LAMBDA(const size_t i, double& acc) { acc += src(i); }, s);
  return s;
}

/// Reference bandwidth, GB/s: a device-to-device copy (bytes read + written)
/// on a GPU, a streaming read (parallel sum) on the CPU.
template <class ExecSpace>
double reference_bandwidth(const Args& a, std::string& kind) {
  using MS = typename ExecSpace::memory_space;
  const size_t n = size_t(1) << 26;  // 512 MiB of doubles
  Kokkos::View<S*, MS> src("src", n), dst("dst", n);
  Kokkos::deep_copy(src, 1.0);
  ExecSpace space;
  if (!spk::Impl::is_host_space_v<ExecSpace>) {
    kind = "device_to_device_copy";
    const double ms = time_ms(
        a, [&] { Kokkos::deep_copy(space, dst, src); }, [&] { space.fence(); });
    return 2.0 * n * sizeof(S) / (ms * 1e6);
  }
  kind = "streaming_read";
  double sink = 0;
  const double ms = time_ms(
      a, [&] { sink += stream_read_sum(space, src); }, [&] { space.fence(); });
  if (sink < 0) std::printf("%g\n", sink);
  return double(n) * sizeof(S) / (ms * 1e6);
}

template <class ExecSpace>
int run(const Args& args, const std::string& command) {
  using MS = typename ExecSpace::memory_space;
  using Csr = spk::CsrMatrix<S, O, F, Kokkos::Device<ExecSpace, MS>>;
  ExecSpace space;
  const std::string space_name = spk::Impl::space_name<ExecSpace>();
  std::string ref_kind;
  const double ref_gbps = reference_bandwidth<ExecSpace>(args, ref_kind);
  std::printf("perf_spmv on %s (concurrency %d): reference %s %.1f GB/s\n", space_name.c_str(),
              spk::Impl::concurrency(space), ref_kind.c_str(), ref_gbps);
  auto suite = args.matrices.empty() ? default_suite<ExecSpace>() : args.matrices;
  std::vector<Record> records;
  int failures = 0;
  for (const auto& spec : suite) {
    HostCsr hA;
    try {
      hA = load(spec);
    } catch (const std::exception& e) {
      std::printf("skipping %s: %s\n", spec.c_str(), e.what());
      continue;
    }
    const std::string name = std::filesystem::path(spec).filename().string();
    const long long m = hA.num_rows(), n = hA.num_cols(), nnz = hA.nnz();
    const double bytes = double(m + 1) * sizeof(F) + double(nnz) * (sizeof(O) + sizeof(S)) +
                         double(n + m) * sizeof(S);
    const double flops = 2.0 * nnz;
    Csr A = spk::create_mirror_view_and_copy(space, hA);
    Kokkos::View<S*, Kokkos::HostSpace> hx("hx", n), href("href", m);
    spk::Impl::SplitMix64 rng(42);
    for (long long i = 0; i < n; ++i) hx(i) = 2 * rng.uniform() - 1;
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
    for (long long i = 0; i < m; ++i) ref_norm = std::max(ref_norm, std::abs(href(i)));
    auto add = [&](const std::string& impl, double ms, const std::string& sp, bool check,
                   const std::string& note = "") {
      double err = 0;
      if (check) {
        Kokkos::deep_copy(hy, y);
        for (long long i = 0; i < m; ++i) err = std::max(err, std::abs(hy(i) - href(i)));
        err /= std::max(ref_norm, 1e-300);
        if (!(err <= 1e-10)) {
          ++failures;
          std::printf("MISMATCH %s %s: max relative error %g\n", name.c_str(), impl.c_str(), err);
        }
      }
      const double gbps = bytes / (ms * 1e6);
      records.push_back({name, impl, sp, note, m, n, nnz, ms, gbps, flops / (ms * 1e6),
                         gbps / ref_gbps, ref_gbps, err});
    };
    auto sync = [&] { space.fence(); };
    auto poison = [&] { Kokkos::deep_copy(y, std::numeric_limits<S>::quiet_NaN()); };

    std::string auto_choice;
    for (auto alg : {spk::SpmvAlgorithm::scalar, spk::SpmvAlgorithm::vector,
                     spk::SpmvAlgorithm::merge_path, spk::SpmvAlgorithm::automatic}) {
      spk::SpmvOptions opt;
      opt.algorithm = alg;
      spk::SpmvPlan plan(space, A, opt);
      poison();
      const double ms = time_ms(
          args, [&] { spk::spmv(space, plan, 1.0, A, x, 0.0, y); }, sync);
      const auto& L = plan.launch();
      std::ostringstream note;
      note << spk::to_string(L.algorithm);
      if (L.algorithm == spk::SpmvAlgorithm::vector)
        note << " vl=" << L.vector_length << " ts=" << L.team_size;
      if (L.algorithm == spk::SpmvAlgorithm::merge_path) note << " items=" << L.merge_path_items;
      add(std::string("spk-") + spk::to_string(alg), ms, space_name, true, note.str());
      if (alg == spk::SpmvAlgorithm::automatic) auto_choice = note.str();
    }
    if (args.sweep) {  // explicit launch shapes: the data behind automatic's rules
      std::vector<spk::SpmvOptions> shapes;
      const bool host = spk::Impl::is_host_space_v<ExecSpace>;
      for (int vl : host ? std::vector<int>{1} : std::vector<int>{2, 4, 8, 16, 32})
        for (int threads : host ? std::vector<int>{1, 16} : std::vector<int>{128, 256, 512}) {
          spk::SpmvOptions o;
          o.algorithm = spk::SpmvAlgorithm::vector;
          o.vector_length = vl;
          o.team_size = std::max(1, threads / vl);
          shapes.push_back(o);
        }
      for (int items :
           host ? std::vector<int>{1000, 10000, 100000} : std::vector<int>{4, 8, 16, 32, 64}) {
        spk::SpmvOptions o;
        o.algorithm = spk::SpmvAlgorithm::merge_path;
        o.merge_path_items = items;
        shapes.push_back(o);
      }
      for (const auto& o : shapes) {
        spk::SpmvPlan plan(space, A, o);
        poison();
        const double ms = time_ms(
            args, [&] { spk::spmv(space, plan, 1.0, A, x, 0.0, y); }, sync);
        std::ostringstream label;
        if (o.algorithm == spk::SpmvAlgorithm::vector)
          label << "sweep-vector-vl" << o.vector_length << "-ts" << o.team_size;
        else
          label << "sweep-merge_path-i" << o.merge_path_items;
        add(label.str(), ms, space_name, true);
      }
    }
    {  // automatic without a plan: the mean-only choice.
      poison();
      const double ms = time_ms(
          args, [&] { spk::spmv(space, 1.0, A, x, 0.0, y); }, sync);
      add("spk-automatic-noplan", ms, space_name, true);
    }
#if defined(SPK_HAVE_KOKKOSKERNELS)
    {
      using Device = Kokkos::Device<ExecSpace, MS>;
      KokkosSparse::CrsMatrix<S, O, Device, void, F> kA("kA", m, n, nnz, A.values(), A.row_map(),
                                                        A.col_idx());
      poison();
      double ms = time_ms(
          args, [&] { KokkosSparse::spmv("N", 1.0, kA, x, 0.0, y); }, sync);
      add("kokkoskernels", ms, space_name, true, "KokkosSparse::spmv default dispatch");
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
      poison();
      ms = time_ms(
          args, [&] { spk::Impl::kk_spmv_native(space, 1.0, kA, x, 0.0, y); }, sync);
      add("kokkoskernels-native", ms, space_name, true, "SPMVHandle(SPMV_NATIVE)");
#endif
    }
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      auto ck = [](cusparseStatus_t s, const char* what) {
        if (s != CUSPARSE_STATUS_SUCCESS)
          throw spk::Error(std::string("cuSPARSE ") + what + ": " + cusparseGetErrorString(s));
      };
      cusparseHandle_t h;
      ck(cusparseCreate(&h), "create");
      ck(cusparseSetStream(h, space.cuda_stream()), "set stream");
      cusparseSpMatDescr_t mat;
      ck(cusparseCreateCsr(&mat, m, n, nnz, const_cast<F*>(A.row_map().data()),
                           const_cast<O*>(A.col_idx().data()), const_cast<S*>(A.values().data()),
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                           CUDA_R_64F),
         "create csr");
      cusparseDnVecDescr_t vx, vy;
      ck(cusparseCreateDnVec(&vx, n, x.data(), CUDA_R_64F), "dnvec x");
      ck(cusparseCreateDnVec(&vy, m, y.data(), CUDA_R_64F), "dnvec y");
      const S one = 1, zero = 0;
      for (auto [alg, label] : {std::pair{CUSPARSE_SPMV_CSR_ALG1, "cusparse-alg1"},
                                std::pair{CUSPARSE_SPMV_CSR_ALG2, "cusparse-alg2"}}) {
        size_t buf_size = 0;
        ck(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                   CUDA_R_64F, alg, &buf_size),
           "buffer size");
        Kokkos::View<char*, MS> buf("cusparse_buffer", std::max<size_t>(buf_size, 1));
#if CUSPARSE_VERSION >= 12400
        ck(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                   CUDA_R_64F, alg, buf.data()),
           "preprocess");
#endif
        poison();
        const double ms = time_ms(
            args,
            [&] {
              ck(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                              CUDA_R_64F, alg, buf.data()),
                 "spmv");
            },
            sync);
        add(label, ms, space_name, true);
      }
      cusparseDestroyDnVec(vx);
      cusparseDestroyDnVec(vy);
      cusparseDestroySpMat(mat);
      cusparseDestroy(h);
    }
#endif
    if (args.serial_loop) {
      Args few = args;
      few.repeat = std::min(args.repeat, 5);
      few.warmup = 1;
      const double ms = time_ms(few, serial_loop, [] {});
      add("serial-loop", ms, "host-1-thread", false);
    }
    // The table for this matrix.
    std::printf("\n%s: %lld x %lld, nnz %lld (automatic -> %s)\n", name.c_str(), m, n, nnz,
                auto_choice.c_str());
    std::printf("  %-22s %10s %9s %8s %8s %10s\n", "impl", "ms", "GB/s", "GFLOP/s", "of ref",
                "rel err");
    for (const auto& r : records)
      if (r.matrix == name)
        std::printf("  %-22s %10.4f %9.1f %8.2f %7.0f%% %10.1e\n", r.impl.c_str(), r.ms, r.gbps,
                    r.gflops, 100 * r.frac, r.max_rel_err);
    std::fflush(stdout);
  }
  // Geometric means of the ratios to the baselines over the suite.
  auto geo = [&](const std::string& impl, const std::string& base) {
    double lsum = 0;
    int cnt = 0;
    for (const auto& r : records)
      if (r.impl == impl)
        for (const auto& b : records)
          if (b.impl == base && b.matrix == r.matrix) {
            lsum += std::log(b.ms / r.ms);
            ++cnt;
          }
    if (cnt > 0)
      std::printf("geomean speedup of %s over %s: %.3f (%d matrices)\n", impl.c_str(), base.c_str(),
                  std::exp(lsum / cnt), cnt);
  };
  std::printf("\n");
  for (const char* base :
       {"kokkoskernels", "kokkoskernels-native", "cusparse-alg1", "cusparse-alg2", "serial-loop"})
    geo("spk-automatic", base);
  if (!args.json.empty()) {
    write_json(args.json, records, command, ref_kind, ref_gbps);
    std::printf("wrote %s\n", args.json.c_str());
  }
  if (failures) std::printf("%d MISMATCHES\n", failures);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    const Args args = parse(argc, argv);
    std::string sp = args.space;
    if (sp.empty()) sp = spk::Impl::space_name<Kokkos::DefaultExecutionSpace>();
    if (false) {
    }
#if defined(KOKKOS_ENABLE_CUDA)
    else if (sp == "cuda")
      rc = run<Kokkos::Cuda>(args, command);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    else if (sp == "openmp")
      rc = run<Kokkos::OpenMP>(args, command);
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    else if (sp == "serial")
      rc = run<Kokkos::Serial>(args, command);
#endif
    else
      throw spk::Error("perf_spmv: --space " + sp + " is not enabled in this build");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perf_spmv: %s\n", e.what());
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
