// perf_convert: Matrix Market reading and format conversions, spk against
// the serial reference (and Kokkos Kernels' transpose), side by side.
//
// Ops: read (spk's parallel reader vs `gzip -dc | scanf` loop), coo_to_csr,
// csr_to_csc, dense_to_csr.  Effective GB/s counts each input read once and
// each output written once; on every space the copy bandwidth measured in the
// same run is reported, and each spk kernel's fraction of it (copy_frac).
// Each spk result is compared with the serial loop's; one that differs is a
// failed record naming where.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <spk_perf_common.hpp>
#include <spk_reference_convert.hpp>
#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <spk_kokkoskernels.hpp>
#endif

namespace {

using namespace spk;
using S = double;
using O = int;
using F = int;
using HostCsr = CsrMatrix<S, O, F, HostDevice>;

/// A serial reference whose first run takes this long is timed once
/// (perf::median_ms_within).
constexpr double serial_budget_ms = 1000;

/// The naive baseline: decompress with gzip in a pipe, fscanf each entry.
long long naive_read(const std::string& path) {
  const bool gz = Impl::has_suffix(path, ".gz");
  const std::string cmd = (gz ? "gzip -dc '" : "cat '") + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw Error("cannot run " + cmd);
  char line[1024];
  long long rows = 0, cols = 0, nnz = 0;
  bool pattern = false;
  while (std::fgets(line, sizeof line, p)) {
    if (line[0] == '%') {
      pattern |= std::string(line).find("pattern") != std::string::npos && line[1] == '%';
      continue;
    }
    std::sscanf(line, "%lld %lld %lld", &rows, &cols, &nnz);
    break;
  }
  std::vector<int> r(nnz), c(nnz);
  std::vector<double> v(nnz, 1.0);
  long long k = 0;
  for (; k < nnz; ++k) {
    int got = pattern ? std::fscanf(p, "%d %d", &r[k], &c[k])
                      : std::fscanf(p, "%d %d %lf", &r[k], &c[k], &v[k]);
    if (got < 2) break;
  }
  pclose(p);
  return k;
}

/// Where spk's compressed result (CSR: row pointers, column indices,
/// values; CSC: the same by columns) differs from the serial loop's, or ""
/// if they agree: the structure exactly, values to 1e-12 relative (entries
/// summed from duplicates may be added in another order).
template <class Map, class Idx, class Val, class RMap, class RIdx, class RVal>
std::string first_difference(const Map& map, const Idx& idx, const Val& val, const RMap& rmap,
                             const RIdx& ridx, const RVal& rval) {
  const auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), map);
  const auto i = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), val);
  if (m.extent(0) != rmap.extent(0) || i.extent(0) != ridx.extent(0))
    return "shape: " + std::to_string(m.extent(0)) + " pointers and " +
           std::to_string(i.extent(0)) + " entries, the serial loop " +
           std::to_string(rmap.extent(0)) + " and " + std::to_string(ridx.extent(0));
  for (std::size_t r = 0; r < m.extent(0); ++r)
    if (m(r) != rmap(r)) return "pointer " + std::to_string(r);
  for (std::size_t k = 0; k < i.extent(0); ++k) {
    if (i(k) != ridx(k)) return "index of entry " + std::to_string(k);
    if (!(std::abs(v(k) - rval(k)) <= 1e-12 * std::max(1.0, std::abs(rval(k)))))
      return "value of entry " + std::to_string(k);
  }
  return "";
}

template <class ExecSpace>
void run(const perf::Options& opt, perf::Report& report) {
  const ExecSpace space;
  const std::string sp = Impl::space_name<ExecSpace>();
  using Device = device_t<ExecSpace>;
  const double copy = perf::copy_gbps(space);
  report.note("space " + sp + ": copy bandwidth " + perf::json_number(copy) +
              " GB/s (read + write), concurrency " + std::to_string(space.concurrency()));
  report.print_header();
  perf::MatrixLoop matrices("convert", sp, opt.matrices, report);
  // spk's record, or a failed one where its result differs from the serial
  // loop's: a fast wrong conversion is not a measurement.
  auto add_checked = [&](perf::Record& r, const std::string& difference) {
    if (difference.empty()) {
      r.strings.push_back({"check", "same as the serial loop"});
      return false;
    }
    report.add_status(r, "failed", "differs from the serial loop's result at the " + difference);
    matrices.step(r.op + " " + r.impl + " failed its check: " + difference);
    return true;
  };
  auto add = [&](perf::Record r) {
    r.space = sp;
    if (r.impl.rfind("spk", 0) == 0 && r.gbps > 0)
      r.numbers.push_back({"copy_frac", r.gbps / copy});
    const std::string step = r.op + " " + r.impl;
    report.add(std::move(r));
    matrices.step(step);
  };
  const int reps = opt.repeat, warm = opt.warmup;

  matrices.run([&](const std::string& name) {
    const std::string display = matrix_display_name(name);
    HostCsr A;
    if (!is_generator_spec(name)) {
      // --- read ---------------------------------------------------------
      const int rr = std::max(1, std::min(reps, 3));
      MatrixMarketContents<S, O, F> contents;
      const double ms_read = perf::median_ms(std::min(warm, 1), rr,
                                             [&] { contents = read_matrix_market<S, O, F>(name); });
      const double text_bytes = static_cast<double>(Impl::read_file(name).size());
      const long long stored = contents.header.entries;
      perf::Record r{"read",
                     display,
                     "spk",
                     sp,
                     contents.header.rows,
                     contents.header.cols,
                     stored,
                     ms_read,
                     text_bytes / (ms_read * 1e6)};
      r.strings.push_back({"note", "text bytes/s, to COO"});
      add(r);
      const double ms_base = perf::median_ms(std::min(warm, 1), rr, [&] { naive_read(name); });
      perf::Record b{"read",
                     display,
                     "gzip|scanf",
                     sp,
                     contents.header.rows,
                     contents.header.cols,
                     stored,
                     ms_base,
                     text_bytes / (ms_base * 1e6)};
      b.numbers.push_back({"spk_speedup", ms_base / ms_read});
      add(b);
      A = coo_to_csr(Kokkos::DefaultHostExecutionSpace(), contents.coo);
    } else {
      A = generate<S, O, F>(name);
    }
    const long long m = A.num_rows(), n = A.num_cols(), nnz = A.nnz();
    // A on the host and in the space, a shuffled COO copy on both, and the
    // largest result (CSR or CSC) with the serial reference's and, for the
    // check, a host copy of spk's.
    const double csr = (m + 1.0) * sizeof(F) + nnz * (sizeof(O) + sizeof(S));
    const double coo = nnz * (2.0 * sizeof(O) + sizeof(S));
    const bool host = Impl::is_host_space_v<ExecSpace>;
    std::string reason;
    if (!(host ? perf::fits_memory(5 * csr + 2 * coo, perf::host_available_bytes(), "host", reason)
               : perf::fits_memory(3 * csr + coo, perf::space_memory_bytes<ExecSpace>().first,
                                   "device", reason) &&
                     perf::fits_memory(4 * csr + coo, perf::host_available_bytes(), "host",
                                       reason))) {
      report.add_status({"convert", display, "all", sp, m, n, nnz}, "skipped", reason);
      return;
    }
    const auto Ad = create_mirror_view_and_copy(Device(), A);

    // --- coo_to_csr: entries in random order ---------------------------
    {
      auto coo_h = reference::csr_to_coo(A);
      std::mt19937_64 rng(42);
      for (long long k = nnz - 1; k > 0; --k) {
        const long long j = static_cast<long long>(rng() % static_cast<unsigned long long>(k + 1));
        std::swap(coo_h.row_idx()(k), coo_h.row_idx()(j));
        std::swap(coo_h.col_idx()(k), coo_h.col_idx()(j));
        std::swap(coo_h.values()(k), coo_h.values()(j));
      }
      const auto coo_d = create_mirror_view_and_copy(Device(), coo_h);
      const double bytes = nnz * (2.0 * sizeof(O) + sizeof(S)) + nnz * (sizeof(O) + sizeof(S)) +
                           (m + 1.0) * sizeof(F);
      decltype(coo_to_csr(space, coo_d)) C;
      const double ms = perf::median_ms(warm, reps, [&] {
        C = coo_to_csr(space, coo_d);
        space.fence();
      });
      HostCsr R;
      const double ms_ref = perf::median_ms_within(serial_budget_ms, std::min(warm, 1),
                                                   std::max(1, std::min(reps, 3)),
                                                   [&] { R = reference::coo_to_csr(coo_h); });
      perf::Record r{"coo_to_csr", display, "spk", sp, m, n, nnz, ms, bytes / (ms * 1e6)};
      if (!add_checked(r, first_difference(C.row_map(), C.col_idx(), C.values(), R.row_map(),
                                           R.col_idx(), R.values())))
        add(r);
      add({"coo_to_csr", display, "serial", "host", m, n, nnz, ms_ref, bytes / (ms_ref * 1e6)});
    }

    // --- csr_to_csc -----------------------------------------------------
    {
      const double bytes = 2.0 * nnz * (sizeof(O) + sizeof(S)) + (m + n + 2.0) * sizeof(F);
      decltype(csr_to_csc(space, Ad)) C;
      const double ms = perf::median_ms(warm, reps, [&] {
        C = csr_to_csc(space, Ad);
        space.fence();
      });
      {
        const auto R = reference::csr_to_csc(A);
        perf::Record r{"csr_to_csc", display, "spk", sp, m, n, nnz, ms, bytes / (ms * 1e6)};
        if (!add_checked(r, first_difference(C.col_map(), C.row_idx(), C.values(), R.col_map(),
                                             R.row_idx(), R.values())))
          add(r);
      }
      C = decltype(C)();
#if defined(SPK_HAVE_KOKKOSKERNELS)
      const auto kk = to_kokkos_kernels(Ad);
      const double ms_kk = perf::median_ms(warm, reps, [&] {
        auto T = Impl::kk_transpose_matrix(kk);
        space.fence();
      });
      add({"csr_to_csc", display, "kokkos-kernels", sp, m, n, nnz, ms_kk, bytes / (ms_kk * 1e6)});
#endif
      const double ms_ref =
          perf::median_ms_within(serial_budget_ms, std::min(warm, 1),
                                 std::max(1, std::min(reps, 3)), [&] { reference::csr_to_csc(A); });
      add({"csr_to_csc", display, "serial", "host", m, n, nnz, ms_ref, bytes / (ms_ref * 1e6)});
    }

    // --- dense_to_csr (when the dense form fits: 256 MB on host, 2 GB on devices)
    const double dense_cap = (Impl::is_host_space_v<ExecSpace> ? 256.0 : 2048.0) * (1 << 20);
    if (static_cast<double>(m) * n * sizeof(S) <= dense_cap) {
      const auto dense = csr_to_dense(space, Ad);
      const auto dense_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense);
      const double bytes = static_cast<double>(m) * n * sizeof(S) + nnz * (sizeof(O) + sizeof(S)) +
                           (m + 1.0) * sizeof(F);
      decltype(dense_to_csr<O, F>(space, dense)) C;
      const double ms = perf::median_ms(warm, reps, [&] {
        C = dense_to_csr<O, F>(space, dense);
        space.fence();
      });
      decltype(reference::dense_to_csr<O, F>(dense_h)) R;
      const double ms_ref = perf::median_ms_within(
          serial_budget_ms, std::min(warm, 1), std::max(1, std::min(reps, 3)),
          [&] { R = reference::dense_to_csr<O, F>(dense_h); });
      perf::Record r{"dense_to_csr", display, "spk", sp, m, n, nnz, ms, bytes / (ms * 1e6)};
      if (!add_checked(r, first_difference(C.row_map(), C.col_idx(), C.values(), R.row_map(),
                                           R.col_idx(), R.values())))
        add(r);
      add({"dense_to_csr", display, "serial", "host", m, n, nnz, ms_ref, bytes / (ms_ref * 1e6)});
    }
  });
}

}  // namespace

int main(int argc, char* argv[]) {
  spk::perf::set_thread_placement();
  Kokkos::ScopeGuard kokkos(argc, argv);
  auto opt = spk::perf::parse_args(
      argc, argv,
      "[MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick] [--repeat N] [--warmup N] "
      "[--space S] [--json FILE]");
  spk::perf::Report report(opt);
  try {
    spk::perf::with_space(opt.space, [&](auto space) {
      using E = decltype(space);
      spk::perf::MemTracker::install(spk::Impl::is_host_space_v<E>);
      if (opt.matrices.empty()) opt.matrices = spk::perf::default_matrices<E>(opt, false);
      const auto memory = spk::perf::space_memory_bytes<E>();
      report.set_memory(memory.first, memory.second);
      report.set_comparison("spk", {"serial", "kokkos-kernels", "gzip|scanf"});
      report.note(std::string("corpus ") + spk::perf::to_string(opt.corpus) + ", " +
                  std::to_string(opt.matrices.size()) + " matrices; memory available " +
                  spk::perf::gib(memory.first) + " of " + spk::perf::gib(memory.second));
      run<E>(opt, report);
    });
  } catch (const std::exception& e) {
    std::cerr << "perf_convert: error: " << e.what() << "\n";
    return 1;
  }
  report.finish();
  return 0;
}
