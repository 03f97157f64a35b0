// Distributed `spk spmv` / `spk spgemm` (see spk_dist_cli.hpp).  MPI is
// started here on first use and finalised at exit, so the tool's main needs
// no MPI code.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <spk_commands.hpp>
#include <spk_dist.hpp>
#include <spk_dist_cli.hpp>
#include <spk_settings.hpp>

namespace spk::cli {

namespace {

void ensure_mpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (init) return;
  MPI_Init(nullptr, nullptr);
  std::atexit([] {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
  });
}

struct DistArgs {
  std::vector<std::string> inputs;
  std::string out, x, space = "default";
  spk::dist::Partition partition = spk::dist::Partition::Rows;
  int repeat = 10;
};

DistArgs parse(const std::vector<std::string>& args) {
  DistArgs a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError("option " + s + " needs a value");
      return args[++i];
    };
    if (s == "-o" || s == "--output")
      a.out = value();
    else if (s == "-x")
      a.x = value();
    else if (s == "--space")
      a.space = value();
    else if (s == "--repeat")
      a.repeat = parse_positive_int(s, value());
    else if (s == "--partition") {
      const std::string p = value();
      if (p != "rows" && p != "nnz") throw UsageError("--partition takes rows or nnz");
      a.partition = p == "nnz" ? spk::dist::Partition::Nnz : spk::dist::Partition::Rows;
    } else if (s.rfind("--kokkos", 0) == 0)
      continue;
    else if (s.rfind("-", 0) == 0)
      throw UsageError("unknown option " + s);
    else
      a.inputs.push_back(s);
  }
  return a;
}

using Host = CsrMatrix<double, int, int, HostDevice>;

/// Rank 0 loads a file or generator spec; errors reach every rank.
Host load_on_root(MPI_Comm comm, const std::string& what) {
  Host A;
  spk::dist::Impl::RankError err;
  if (spk::dist::Impl::comm_rank(comm) == 0) try {
      A = load_csr<double, int, int>(what);
    } catch (const std::exception& e) {
      err = {spk::dist::Impl::RankError::Other, 0, e.what()};
    }
  spk::dist::Impl::throw_on_every_rank(comm, err, what);
  return A;
}

double max_over_ranks(MPI_Comm comm, double v) { return spk::dist::Impl::allreduce_max(comm, v); }

/// A matrix file is read by every rank at once (read_matrix_market_parallel,
/// which leaves gzip files to rank 0); a generator spec is built on rank 0
/// and scattered.
template <class DM>
DM load_distributed(MPI_Comm comm, const std::string& what, spk::dist::Partition partition) {
  if (!is_generator_spec(what)) return DM::read_matrix_market_parallel(comm, what, partition);
  return DM::scatter(comm, load_on_root(comm, what), partition);
}

}  // namespace

bool dist_requested() {
  if (const char* f = spk::environment_variable("SPK_DIST"); f && *f) return std::string(f) != "0";
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* s = spk::environment_variable(v); s && std::atoi(s) > 1) return true;
  return false;
}

int run_dist_spgemm(const std::vector<std::string>& args) {
  const DistArgs a = parse(args);
  if (a.inputs.size() != 2) throw UsageError("expected two matrices A and B");
  ensure_mpi();
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = spk::dist::Impl::comm_rank(comm), np = spk::dist::Impl::comm_size(comm);
  return with_space(a.space, [&](auto space) {
    using Dev = device_t<decltype(space)>;
    using DM = spk::dist::DistCsrMatrix<double, int, int, Dev>;
    DM A = load_distributed<DM>(comm, a.inputs[0], a.partition);
    // B's rows must be laid out like A's columns.  Read by every rank, B's
    // rows are balanced by count (and a square B's columns like its rows):
    // that fits when A's columns are balanced too, else rank 0 reads B and
    // scatters it to A's column layout.
    const bool b_balanced = !is_generator_spec(a.inputs[1]) &&
                            A.col_layout() == spk::dist::RowLayout::balanced(comm, A.num_cols());
    DM B;
    if (b_balanced) B = DM::read_matrix_market_parallel(comm, a.inputs[1]);
    long long bshape[2] = {B.num_rows(), B.num_cols()};
    Host Bh;
    if (!b_balanced) {
      Bh = load_on_root(comm, a.inputs[1]);
      bshape[0] = Bh.num_rows();
      bshape[1] = Bh.num_cols();
      MPI_Bcast(bshape, 2, MPI_LONG_LONG, 0, comm);
    }
    if (bshape[0] != A.num_cols())
      throw ShapeMismatch("A is " + std::to_string(A.num_rows()) + "x" +
                          std::to_string(A.num_cols()) + ", B is " + std::to_string(bshape[0]) +
                          "x" + std::to_string(bshape[1]));
    if (!b_balanced) {
      const auto bcols =
          bshape[0] == bshape[1] ? A.col_layout() : spk::dist::RowLayout::balanced(comm, bshape[1]);
      B = DM::scatter(Bh, A.col_layout(), bcols);
    }
    MPI_Barrier(comm);
    const auto t0 = std::chrono::steady_clock::now();
    DM C = spk::dist::spgemm(space, A, B);  // one call: the local product runs once
    const double ms = max_over_ranks(
        comm,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const auto Cg = C.gather();
    if (me == 0) {
      std::printf("C = A·B: %lld x %lld, %lld nonzeros, %.3f ms on %d ranks (%s)\n", C.num_rows(),
                  C.num_cols(), C.global_nnz(), ms, np, decltype(space)::name());
      if (!a.out.empty()) {
        write_matrix_market(a.out, Cg);
        std::printf("wrote %s\n", a.out.c_str());
      }
    }
    return 0;
  });
}

int run_dist_spmv(const std::vector<std::string>& args) {
  const DistArgs a = parse(args);
  if (a.inputs.size() != 1) throw UsageError("expected one matrix A");
  ensure_mpi();
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = spk::dist::Impl::comm_rank(comm), np = spk::dist::Impl::comm_size(comm);
  return with_space(a.space, [&](auto space) {
    using Dev = device_t<decltype(space)>;
    using DM = spk::dist::DistCsrMatrix<double, int, int, Dev>;
    DM A = load_distributed<DM>(comm, a.inputs[0], a.partition);
    std::vector<double> xg;
    if (me == 0) {
      if (a.x.empty()) {
        xg.assign(A.num_cols(), 1.0);
      } else {
        MatrixMarketReadOptions x_options;  // x's size line is checked before its entries
        x_options.required_rows = A.num_cols();
        auto d = read_dense<double>(a.x, x_options);
        SPK_REQUIRE(static_cast<long long>(d.extent(0)) == A.num_cols() && d.extent(1) == 1,
                    ShapeMismatch, "x in ", a.x, " is ", d.extent(0), "x", d.extent(1), ", A has ",
                    A.num_cols(), " columns");
        xg.assign(d.data(), d.data() + d.extent(0));
      }
    }
    const auto xl = spk::dist::scatter_vector(A.col_layout(), xg);
    Kokkos::View<double*, Dev> x("x", xl.size()), y("y", A.row_layout().local_size());
    Kokkos::deep_copy(x, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                             xl.data(), xl.size()));
    spk::dist::spmv(space, 1.0, A, x, 0.0, y);  // warm-up
    spk::dist::SpmvTimes t;
    for (int i = 0; i < a.repeat; ++i) spk::dist::spmv(space, 1.0, A, x, 0.0, y, &t);
    auto per = [&](double s) { return max_over_ranks(comm, 1e3 * s / t.calls); };
    const double total = per(t.total()), exch = per(t.pack_and_post + t.wait), loc = per(t.local),
                 gh = per(t.ghost);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto yg = spk::dist::gather_vector(
        A.row_layout(), std::vector<double>(yh.data(), yh.data() + yh.extent(0)));
    if (me == 0) {
      std::printf(
          "y = A·x: %lld x %lld, %lld nonzeros on %d ranks (%s): %.4f ms per product "
          "(exchange %.4f, local %.4f, ghost %.4f; max over ranks, mean of %d)\n",
          A.num_rows(), A.num_cols(), A.global_nnz(), np, decltype(space)::name(), total, exch, loc,
          gh, a.repeat);
      if (!a.out.empty()) {
        Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> yv(yg.data(),
                                                                                   yg.size());
        write_matrix_market_array(a.out, yv);
        std::printf("wrote %s\n", a.out.c_str());
      }
    }
    return 0;
  });
}

}  // namespace spk::cli
