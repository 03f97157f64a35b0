// perf_dist: distributed SpMV and SpGEMM under mpirun, per phase, with the
// load balance and the bytes sent; side by side with PETSc's MatMult /
// MatMatMult on the same matrix, rank count and row layout when spk is
// built with PETSc (CPU builds).  --op read times reading a Matrix Market
// file: rank 0 reads and scatters against every rank reading its share.
//
//   mpirun -np P perf_dist [MATRIX|SPEC ...] [--op spmv|spgemm|both|read]
//          [--partition rows|nnz] [--petsc 0|1] [--repeat N] [--warmup N]
//          [--space serial|openmp|cuda] [--json FILE] [--check 1] [--gather 1]
//          [--split-interior 0|1]
//
// Times are the maximum over ranks of each repeat (a barrier before each),
// median over repeats.  Phase times are means over the repeats, maximum
// over ranks (SpGEMM: ms is the one-call product spgemm(space, h, A, A),
// fetch_ms / local_ms / assemble_ms split it; symbolic_then_numeric_ms is
// the two-phase sequence, numeric_* the numeric-only reuse;
// gather_to_rank0_ms, with --gather 1, one gather of C to rank 0's host,
// not in the total; the strings steps / host_steps, per step and rank,
// the median of 3 more products with each step fenced / traced on the host
// without fences).  Bytes for SpMV: matrix (values, column indices,
// row pointers) + x + y, once; bytes sent: all ranks' halo messages.
// --split-interior 0 turns DistSpgemmHandle::split_interior off (A/B of the
// interior rows' early product in one binary).
#include <mpi.h>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <spk_dist.hpp>
#include <spk_perf_common.hpp>
#include <sstream>

#if defined(SPK_HAVE_PETSC)
#include <petscmat.h>
#endif

namespace {

// Set when a PETSc result differs from spk's (checked with --check 1).
int g_mismatches = 0;

using S = double;
using O = int;
using F = int;
namespace dist = spk::dist;

template <class Fn>
double dist_median_ms(MPI_Comm comm, int warmup, int repeat, Fn&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    MPI_Barrier(comm);
    const auto b = std::chrono::steady_clock::now();
    f();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b).count();
    t.push_back(dist::Impl::allreduce_max(comm, ms));
  }
  std::sort(t.begin(), t.end());
  return repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
}

struct Balance {
  double max_rows, mean_rows, max_nnz, mean_nnz;
  long long max_ghosts;
};

template <class M>
Balance balance(const M& A) {
  MPI_Comm c = A.comm();
  const int p = A.row_layout().num_ranks();
  const double rows = A.row_layout().local_size(), nnz = A.local_nnz();
  return {dist::Impl::allreduce_max(c, rows), dist::Impl::allreduce_sum(c, rows) / p,
          dist::Impl::allreduce_max(c, nnz), dist::Impl::allreduce_sum(c, nnz) / p,
          dist::Impl::allreduce_max(c, A.num_ghosts())};
}

void add_balance(spk::perf::Record& r, const Balance& b) {
  r.numbers.push_back({"max_rows_per_rank", b.max_rows});
  r.numbers.push_back({"mean_rows_per_rank", b.mean_rows});
  r.numbers.push_back({"max_nnz_per_rank", b.max_nnz});
  r.numbers.push_back({"mean_nnz_per_rank", b.mean_nnz});
  r.numbers.push_back({"nnz_imbalance", b.mean_nnz > 0 ? b.max_nnz / b.mean_nnz : 1});
  r.numbers.push_back({"max_ghosts_per_rank", static_cast<double>(b.max_ghosts)});
}

#if defined(SPK_HAVE_PETSC)
#define SPK_PETSC(call)                                             \
  do {                                                              \
    if ((call) != 0) throw spk::Error("PETSc call failed: " #call); \
  } while (0)

/// The same rows in a PETSc MPIAIJ matrix (same row and column layout).
template <class M>
Mat petsc_matrix(const M& A) {
  auto R = A.local_rows_global();
  std::vector<PetscInt> i(R.num_rows() + 1), j(R.nnz());
  for (size_t k = 0; k < i.size(); ++k) i[k] = R.row_map()(k);
  for (size_t k = 0; k < j.size(); ++k) j[k] = R.col_idx()(k);
  Mat P;
  SPK_PETSC(MatCreateMPIAIJWithArrays(A.comm(), A.row_layout().local_size(),
                                      A.col_layout().local_size(), A.num_rows(), A.num_cols(),
                                      i.data(), j.data(), R.values().data(), &P));
  return P;
}
#endif

template <class Space>
void run_matrix(const Space& space, const spk::perf::Options& opt, spk::perf::Report& report,
                const std::string& spec, MPI_Comm comm) {
  using Dev = spk::device_t<Space>;
  using DM = dist::DistCsrMatrix<S, O, F, Dev>;
  const int me = dist::Impl::comm_rank(comm), np = dist::Impl::comm_size(comm);
  const std::string part_name = opt.extra.count("partition") ? opt.extra.at("partition") : "rows";
  const auto part = part_name == "nnz" ? dist::Partition::Nnz : dist::Partition::Rows;
  const std::string op = opt.extra.count("op") ? opt.extra.at("op") : "both";
  const bool petsc = !opt.extra.count("petsc") || opt.extra.at("petsc") != "0";
  (void)petsc;

  if (op == "read") {
    // Reading a Matrix Market file into a distributed matrix: rank 0 reads
    // and scatters (read_matrix_market) against every rank reading its
    // share (read_matrix_market_parallel).  The warm-ups leave the file in
    // the page cache: parsing and distribution are timed, not the disk.
    // GB/s: the file's bytes over the time.
    long long file_bytes = me == 0 ? static_cast<long long>(std::filesystem::file_size(spec)) : 0;
    SPK_MPI(MPI_Bcast(&file_bytes, 1, MPI_LONG_LONG, 0, comm));
    DM R;
    auto record = [&](const char* how, double ms) {
      spk::perf::Record r;
      r.op = "dist_read";
      r.matrix = spk::matrix_display_name(spec);
      r.rows = R.num_rows();
      r.cols = R.num_cols();
      r.nnz = R.global_nnz();
      r.impl = std::string(how) + " np=" + std::to_string(np);
      r.space = Space::name();
      r.ms = ms;
      r.gbps = file_bytes / (ms * 1e6);
      r.numbers = {{"ranks", double(np)}, {"file_bytes", double(file_bytes)}};
      add_balance(r, balance(R));
      r.strings = {{"partition", part_name}};
      if (me == 0) report.add(r);
    };
    record("root-reads", dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
             R = DM();
             R = DM::read_matrix_market(comm, spec, part);
           }));
    record("every-rank-reads", dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
             R = DM();
             R = DM::read_matrix_market_parallel(comm, spec, part);
           }));
    return;
  }

  DM A;
  if (spec.rfind("local:", 0) == 0) {
    // local:poisson2d:N / local:poisson3d:N: every rank generates its own
    // rows (balanced by rows) where they live: sizes no single host could
    // build and scatter, for weak scaling.
    const std::string g = spec.substr(6);
    const int dims = g.rfind("poisson2d:", 0) == 0 ? 2 : g.rfind("poisson3d:", 0) == 0 ? 3 : 0;
    SPK_REQUIRE(dims > 0, spk::Error, "perf_dist: local: takes poisson2d:N or poisson3d:N, not '",
                g, "'");
    const long long n = std::stoll(g.substr(10));
    const long long rows = dims == 2 ? n * n : n * n * n;
    const auto layout = dist::RowLayout::balanced(comm, rows);
    A = DM(layout, layout,
           spk::Impl::stencil<S, O, F>(g, n, dims, layout.begin(),
                                       layout.begin() + layout.local_size()));
  } else {
    spk::CsrMatrix<S, O, F, spk::HostDevice> G;
    if (me == 0) G = spk::load_csr<S, O, F>(spec);
    A = DM::scatter(comm, G, part);
  }
  const std::string name = spk::matrix_display_name(spec);
  const Balance bal = balance(A);
  const std::string impl = "spk np=" + std::to_string(np);
  const std::string space_name = Space::name();

  if (op == "spmv" || op == "both") {
    Kokkos::View<S*, Dev> x("x", A.col_layout().local_size()), y("y", A.row_layout().local_size());
    Kokkos::deep_copy(x, 1.0);
    {
      auto xh = Kokkos::create_mirror_view(x);
      for (size_t i = 0; i < xh.extent(0); ++i)
        xh(i) = 1.0 + 1e-3 * ((A.col_layout().begin() + i) % 17);
      Kokkos::deep_copy(x, xh);
    }
    const double ms =
        dist_median_ms(comm, opt.warmup, opt.repeat, [&] { dist::spmv(space, 1.0, A, x, 0.0, y); });
    dist::SpmvTimes t;
    for (int i = 0; i < opt.repeat; ++i) dist::spmv(space, 1.0, A, x, 0.0, y, &t);
    auto phase = [&](double s) { return dist::Impl::allreduce_max(comm, 1e3 * s / t.calls); };
    const double post = phase(t.pack_and_post), loc = phase(t.local), wait = phase(t.wait),
                 gh = phase(t.ghost);
    const double sent = dist::Impl::allreduce_sum(comm, A.plan().num_sent() * double(sizeof(S)));
    const double bytes = A.global_nnz() * double(sizeof(S) + sizeof(O)) +
                         (A.num_rows() + np) * double(sizeof(F)) +
                         (A.num_cols() + A.num_rows()) * double(sizeof(S));
    spk::perf::Record r;
    r.op = "dist_spmv";
    r.matrix = name;
    r.rows = A.num_rows();
    r.cols = A.num_cols();
    r.nnz = A.global_nnz();
    r.impl = impl;
    r.space = space_name;
    r.ms = ms;
    r.gbps = bytes / (ms * 1e6);
    r.gflops = 2.0 * A.global_nnz() / (ms * 1e6);
    r.numbers = {{"ranks", double(np)}, {"pack_post_ms", post}, {"local_ms", loc},
                 {"wait_ms", wait},     {"ghost_ms", gh},       {"bytes_sent", sent}};
    add_balance(r, bal);
    r.strings = {{"partition", part_name}, {"halo", dist::to_string(A.plan().path())}};
    if (me == 0) report.add(r);

#if defined(SPK_HAVE_PETSC)
    if (petsc && std::is_same_v<typename Dev::memory_space, Kokkos::HostSpace>) {
      Mat P = petsc_matrix(A);
      Vec px, py;
      SPK_PETSC(MatCreateVecs(P, &px, &py));
      {
        auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
        PetscScalar* a;
        SPK_PETSC(VecGetArray(px, &a));
        for (size_t i = 0; i < xh.extent(0); ++i) a[i] = xh(i);
        SPK_PETSC(VecRestoreArray(px, &a));
      }
      const double pms =
          dist_median_ms(comm, opt.warmup, opt.repeat, [&] { SPK_PETSC(MatMult(P, px, py)); });
      // Same answer?  Largest relative difference to spk's y.
      auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      const PetscScalar* b;
      SPK_PETSC(VecGetArrayRead(py, &b));
      double diff = 0;
      for (size_t i = 0; i < yh.extent(0); ++i)
        diff = std::max(diff, std::abs(yh(i) - b[i]) / std::max(1.0, std::abs(b[i])));
      SPK_PETSC(VecRestoreArrayRead(py, &b));
      diff = dist::Impl::allreduce_max(comm, diff);
      spk::perf::Record q = r;
      q.impl = "petsc np=" + std::to_string(np);
      q.ms = pms;
      q.gbps = bytes / (pms * 1e6);
      q.gflops = 2.0 * A.global_nnz() / (pms * 1e6);
      q.numbers = {{"ranks", double(np)}, {"max_rel_diff_vs_spk", diff}};
      if (!(diff <= 1e-12)) ++g_mismatches;
      if (me == 0) report.add(q);
      VecDestroy(&px);
      VecDestroy(&py);
      MatDestroy(&P);
    }
#endif
  }

  if ((op == "spgemm" || op == "both") && A.num_rows() == A.num_cols()) {
    const bool split = !opt.extra.count("split-interior") || opt.extra.at("split-interior") != "0";
    auto new_handle = [&] {
      dist::DistSpgemmHandle<S, O, F, Dev> fresh;
      fresh.split_interior = split;
      return fresh;
    };
    dist::DistSpgemmHandle<S, O, F, Dev> h = new_handle();
    DM C;
    dist::SpgemmTimes full;       // phases of the one-call products, summed over calls
    std::vector<double> release;  // per call: freeing the last handle and C (fenced)
    const double full_ms = dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
      const auto r0 = std::chrono::steady_clock::now();
      h = new_handle();
      C = DM();
      space.fence();
      release.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count());
      C = dist::spgemm(space, h, A, A);
      full.fetch += h.times.fetch;
      full.local += h.times.local;
      full.assemble += h.times.assemble;
    });
    // The two-phase sequence a user with changing values starts with.
    const double two_phase_ms = dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
      h = new_handle();
      C = DM();
      C = dist::spgemm_symbolic(space, h, A, A);
      dist::spgemm_numeric(space, h, A, A, C);
    });
    h.times = dist::SpgemmTimes();
    const double num_ms = dist_median_ms(comm, opt.warmup, opt.repeat,
                                         [&] { dist::spgemm_numeric(space, h, A, A, C); });
    const int calls = opt.warmup + opt.repeat;
    // Median over the timed calls of freeing the last product (part of ms).
    std::vector<double> timed_release(release.end() - opt.repeat, release.end());
    std::sort(timed_release.begin(), timed_release.end());
    const double release_ms = dist::Impl::allreduce_max(
        comm, timed_release.empty() ? 0.0 : timed_release[opt.repeat / 2]);
    auto phase = [&](double s) { return dist::Impl::allreduce_max(comm, 1e3 * s / calls); };
    const double products = dist::Impl::allreduce_sum(comm, double(h.local_products()));
    const double numeric_fetch = phase(h.times.fetch), numeric_local = phase(h.times.local),
                 numeric_assemble = phase(h.times.assemble);
    const double numeric_bytes =
        dist::Impl::allreduce_sum(comm, double(h.times.bytes_sent)) / calls;
    const double fetched_rows = dist::Impl::allreduce_sum(comm, double(h.fetched_rows()));
    // More one-call products with their steps timed, per rank: where the
    // critical path runs.  Fenced: each step's own time (freeing the last
    // handle and C is a step of its own; local.* are the local product's
    // phases, inside local_product).  Host: when the host got past each step
    // with nothing fenced (where it waits for the device or other ranks).
    auto time_steps = [&](dist::StepTiming timing, const char* label) {
      // Three products (the first may still grow the pool); each step's
      // median over them, per rank.
      constexpr int step_runs = 3;
      std::vector<std::string> names;
      std::vector<std::vector<double>> runs;  // per run: free_last, then the steps
      for (int run = 0; run < step_runs; ++run) {
        // The measurement's handle gives its pooled memory back first, as in
        // the timed loop (otherwise the pool would grow for this product).
        dist::DistSpgemmHandle<S, O, F, Dev> hs = new_handle();
        hs.step_timing = timing;
        MPI_Barrier(comm);
        auto t0 = std::chrono::steady_clock::now();
        h = dist::DistSpgemmHandle<S, O, F, Dev>();  // free the last handle and C here,
        { DM old = std::move(C); }                   // as the timed loop does
        space.fence();
        const double free_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        C = dist::spgemm(space, hs, A, A);
        h = std::move(hs);
        std::vector<double> mine{free_ms};
        names = {"free_last"};
        for (const auto& st : h.times.steps) {
          names.push_back(st.first);
          mine.push_back(1e3 * st.second);
        }
        runs.push_back(std::move(mine));
      }
      std::vector<double> mine(names.size());
      for (std::size_t k = 0; k < names.size(); ++k) {
        std::vector<double> v;
        for (const auto& r : runs)
          if (k < r.size()) v.push_back(r[k]);
        std::sort(v.begin(), v.end());
        mine[k] = v.empty() ? 0.0 : v[v.size() / 2];
      }
      // Ranks may take different steps (a rank without products has no
      // local.* phases): then only rank 0's are reported.
      const int count = static_cast<int>(mine.size());
      const bool same = dist::Impl::allreduce_max(comm, double(count)) ==
                        -dist::Impl::allreduce_max(comm, -double(count));
      const int shown = same ? np : 1;
      std::vector<double> all(mine.size() * np);
      if (same)
        MPI_Gather(mine.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, comm);
      else
        all = mine;
      std::string note;
      if (me == 0) {
        std::ostringstream os;
        os << label << "(ms, median of " << step_runs << ", rank " << (same ? "0..np-1" : "0 only")
           << "):";
        for (std::size_t k = 0; k < mine.size(); ++k) {
          os << " " << names[k] << "=";
          for (int q = 0; q < shown; ++q)
            os << (q ? "/" : "") << std::fixed << std::setprecision(2) << all[q * mine.size() + k];
        }
        note = os.str();
        std::printf("# %s\n", note.c_str());
      }
      return note;
    };
    const std::string steps_note = time_steps(dist::StepTiming::Fenced, "steps");
    const std::string host_steps_note = time_steps(dist::StepTiming::Host, "host_steps");
    // Gathering C to rank 0's host memory (--gather 1; once, not part of
    // the product).
    double gather_ms = -1;
    if (opt.extra.count("gather") && opt.extra.at("gather") == "1") {
      MPI_Barrier(comm);
      const auto g0 = std::chrono::steady_clock::now();
      const auto Cg = C.gather(0);
      (void)Cg;
      gather_ms = dist::Impl::allreduce_max(
          comm,
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g0).count());
    }
    spk::perf::Record r;
    r.op = "dist_spgemm";
    r.matrix = name + "^2";
    r.rows = A.num_rows();
    r.cols = A.num_cols();
    r.nnz = A.global_nnz();
    r.impl = impl;
    r.space = space_name;
    r.ms = full_ms;
    r.gflops = 2.0 * products / (full_ms * 1e6);
    r.numbers = {{"ranks", double(np)},
                 {"release_ms", release_ms},
                 {"fetch_ms", phase(full.fetch)},
                 {"local_ms", phase(full.local)},
                 {"assemble_ms", phase(full.assemble)},
                 {"gather_to_rank0_ms", gather_ms},
                 {"symbolic_then_numeric_ms", two_phase_ms},
                 {"numeric_ms", num_ms},
                 {"numeric_fetch_ms", numeric_fetch},
                 {"numeric_local_ms", numeric_local},
                 {"numeric_assemble_ms", numeric_assemble},
                 {"numeric_bytes_sent", numeric_bytes},
                 {"fetched_rows", fetched_rows},
                 {"interior_rows", dist::Impl::allreduce_sum(comm, double(h.interior_rows()))},
                 {"split_interior", split ? 1.0 : 0.0},
                 {"nnz_c", double(C.global_nnz())},
                 {"products", products}};
    add_balance(r, bal);
    r.strings = {{"partition", part_name}, {"steps", steps_note}, {"host_steps", host_steps_note}};
    if (me == 0) report.add(r);

#if defined(SPK_HAVE_PETSC)
    if (petsc && std::is_same_v<typename Dev::memory_space, Kokkos::HostSpace>) {
      Mat P = petsc_matrix(A), PC = nullptr;
      const double pfull = dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
        if (PC) MatDestroy(&PC);
        SPK_PETSC(MatMatMult(P, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PC));
      });
      const double pnum = dist_median_ms(comm, opt.warmup, opt.repeat, [&] {
        SPK_PETSC(MatMatMult(P, P, MAT_REUSE_MATRIX, PETSC_DEFAULT, &PC));
      });
      MatInfo info;
      SPK_PETSC(MatGetInfo(PC, MAT_GLOBAL_SUM, &info));
      // Compare values: spk's C against PETSc's, row by row on each rank.
      auto R = C.local_rows_global();
      double diff = 0;
      long long mismatched_rows = 0;
      for (long long i = 0; i < R.num_rows(); ++i) {
        PetscInt ncols;
        const PetscInt* cols;
        const PetscScalar* vals;
        const PetscInt gi = static_cast<PetscInt>(C.row_layout().begin() + i);
        SPK_PETSC(MatGetRow(PC, gi, &ncols, &cols, &vals));
        const long long b = R.row_map()(i), e = R.row_map()(i + 1);
        if (ncols != e - b) ++mismatched_rows;
        for (long long k = b; k < e && ncols == e - b; ++k) {
          if (cols[k - b] != R.col_idx()(k)) {
            ++mismatched_rows;
            break;
          }
          diff = std::max(
              diff, std::abs(vals[k - b] - R.values()(k)) / std::max(1.0, std::abs(vals[k - b])));
        }
        SPK_PETSC(MatRestoreRow(PC, gi, &ncols, &cols, &vals));
      }
      diff = dist::Impl::allreduce_max(comm, diff);
      mismatched_rows = dist::Impl::allreduce_sum(comm, mismatched_rows);
      spk::perf::Record q = r;
      q.impl = "petsc np=" + std::to_string(np);
      q.ms = pfull;
      q.gflops = 2.0 * products / (pfull * 1e6);
      q.numbers = {{"ranks", double(np)},
                   {"numeric_ms", pnum},
                   {"nnz_c", info.nz_used},
                   {"max_rel_diff_vs_spk", diff},
                   {"rows_with_other_pattern", double(mismatched_rows)}};
      if (!(diff <= 1e-12) || mismatched_rows != 0 || C.global_nnz() != info.nz_used)
        ++g_mismatches;
      q.strings = {{"partition", part_name}};
      if (me == 0) report.add(q);
      MatDestroy(&PC);
      MatDestroy(&P);
    }
#endif
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  spk::perf::set_thread_placement();
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
#if defined(SPK_HAVE_PETSC)
    PetscInitializeNoArguments();
#endif
    const int me = dist::Impl::comm_rank(MPI_COMM_WORLD);
    auto opt = spk::perf::parse_args(
        argc, argv,
        "[MATRIX|SPEC ...] [--op spmv|spgemm|both|read] [--partition rows|nnz] [--petsc 0|1] "
        "[--gather 0|1] [--split-interior 0|1] [--repeat N] [--warmup N] [--space S] [--json FILE] "
        "[--quick] [--corpus small|default|full]",
        {"op", "partition", "petsc", "check", "gather", "split-interior"});
    // --corpus full: every family of the corpus, sized from the host's
    // memory (rank 0 builds each matrix and scatters it).
    if (opt.matrices.empty() && opt.corpus == spk::perf::Corpus::full)
      opt.matrices = spk::perf::corpus_matrices(spk::perf::Corpus::full, true,
                                                spk::perf::host_available_bytes(), false);
    if (opt.matrices.empty())
      opt.matrices = opt.quick
                         ? std::vector<std::string>{"poisson3d:40", "random:100000:100000:8"}
                         : std::vector<std::string>{"poisson3d:100", "poisson2d:1000",
                                                    "random:1000000:1000000:10", "rmat:18:16"};
    if (me != 0) opt.json.clear();
    spk::perf::Report report(opt);
    try {
      spk::perf::with_space(opt.space, [&](auto space) {
        if (me == 0) {
          report.note("ranks " + std::to_string(dist::Impl::comm_size(MPI_COMM_WORLD)) +
                      ", CUDA-aware MPI " + (dist::Impl::cuda_aware_mpi() ? "yes" : "no") +
                      ", local kernels: " + dist::Impl::local_kernels());
          report.print_header();
        }
        for (const auto& m : opt.matrices) run_matrix(space, opt, report, m, MPI_COMM_WORLD);
      });
      if (me == 0) report.write_json();
      // --check 1: fail when PETSc's results differ from spk's (ctest).
      if (opt.extra.count("check") && opt.extra.at("check") != "0" && g_mismatches > 0) {
        if (me == 0)
          std::fprintf(stderr, "perf_dist: %d results differ from PETSc's\n", g_mismatches);
        rc = 1;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "perf_dist [rank %d]: %s\n", me, e.what());
      rc = 1;
    }
#if defined(SPK_HAVE_PETSC)
    PetscFinalize();
#endif
  }
  MPI_Finalize();
  return rc;
}
