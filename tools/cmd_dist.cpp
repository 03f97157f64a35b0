// Distributed `spk spmv` / `spk spgemm` (see spk_dist_cli.hpp).  MPI is
// started here on first use and finalised at exit, so the tool's main needs
// no MPI code.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
  Precision precision = Precision::Double;
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
    else if (s == "--precision")
      a.precision = parse_precision(value());
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

using spk::dist::Impl::RankError;

/// Runs f() on rank 0; its error is every rank's (a MatrixMarketError keeps
/// its file and line, anything else names `what`).
template <class F>
void on_root(MPI_Comm comm, const std::string& what, F&& f) {
  RankError err;
  if (spk::dist::Impl::comm_rank(comm) == 0) try {
      f();
    } catch (const MatrixMarketError& e) {
      err = {RankError::File, e.line(), e.reason()};
    } catch (const std::exception& e) {
      err = {RankError::Other, 0, e.what()};
    }
  spk::dist::Impl::throw_on_every_rank(comm, err, what);
}

/// Whether a file or generator spec holds complex values: a file's field
/// (its header), a spec's values=.  The header is read apart from the
/// entries, so a file must be read twice: a pipe is refused by name.
bool input_is_complex(const std::string& what) {
  if (is_generator_spec(what)) return generator_values(what) == GeneratedValues::Complex;
  if (std::filesystem::exists(what) && !std::filesystem::is_regular_file(what))
    throw MatrixMarketError(what, 0,
                            "the distributed commands read a file's header before its entries "
                            "(to pick the scalar type): pass a regular file, not a pipe");
  return read_matrix_market_header(what).field == MatrixMarketField::Complex;
}

/// Whether any input is complex, decided on rank 0.  Collective.
bool any_complex(MPI_Comm comm, const std::vector<std::string>& inputs) {
  int complex = 0;
  for (const std::string& what : inputs)
    on_root(comm, what, [&] { complex |= input_is_complex(what) ? 1 : 0; });
  SPK_MPI(MPI_Bcast(&complex, 1, MPI_INT, 0, comm));
  return complex != 0;
}

template <class S>
using Host = CsrMatrix<S, int, int, HostDevice>;

/// Rank 0 loads a file or generator spec; errors reach every rank.
template <class S>
Host<S> load_on_root(MPI_Comm comm, const std::string& what) {
  Host<S> A;
  on_root(comm, what, [&] { A = load_csr<S, int, int>(what); });
  return A;
}

double max_over_ranks(MPI_Comm comm, double v) { return spk::dist::Impl::allreduce_max(comm, v); }

/// A matrix file is read by every rank at once (read_matrix_market_parallel,
/// which leaves gzip files to rank 0); a generator spec is built on rank 0
/// and scattered.
template <class DM>
DM load_distributed(MPI_Comm comm, const std::string& what, spk::dist::Partition partition) {
  if (!is_generator_spec(what)) return DM::read_matrix_market_parallel(comm, what, partition);
  return DM::scatter(comm, load_on_root<typename DM::scalar_type>(comm, what), partition);
}

/// B with its rows laid out like A's columns.  Read by every rank, B's rows
/// are balanced by count (and a square B's columns like its rows): that
/// fits when A's columns are balanced too, else rank 0 reads B and scatters
/// it to A's column layout.
template <class DM>
DM load_b(MPI_Comm comm, const DM& A, const std::string& what) {
  using S = typename DM::scalar_type;
  const bool b_balanced = !is_generator_spec(what) &&
                          A.col_layout() == spk::dist::RowLayout::balanced(comm, A.num_cols());
  DM B;
  if (b_balanced) B = DM::read_matrix_market_parallel(comm, what);
  long long bshape[2] = {B.num_rows(), B.num_cols()};
  Host<S> Bh;
  if (!b_balanced) {
    Bh = load_on_root<S>(comm, what);
    bshape[0] = Bh.num_rows();
    bshape[1] = Bh.num_cols();
    SPK_MPI(MPI_Bcast(bshape, 2, MPI_LONG_LONG, 0, comm));
  }
  if (bshape[0] != A.num_cols())
    throw ShapeMismatch("A is " + std::to_string(A.num_rows()) + "x" +
                        std::to_string(A.num_cols()) + ", B is " + std::to_string(bshape[0]) + "x" +
                        std::to_string(bshape[1]));
  if (b_balanced) return B;
  const auto bcols =
      bshape[0] == bshape[1] ? A.col_layout() : spk::dist::RowLayout::balanced(comm, bshape[1]);
  return DM::scatter(Bh, A.col_layout(), bcols);
}

template <class S>
int dist_spgemm_in(const DistArgs& a, MPI_Comm comm) {
  const int me = spk::dist::Impl::comm_rank(comm), np = spk::dist::Impl::comm_size(comm);
  return with_space(a.space, [&](auto space) {
    using DM = spk::dist::DistCsrMatrix<S, int, int, device_t<decltype(space)>>;
    const DM A = load_distributed<DM>(comm, a.inputs[0], a.partition);
    const DM B = load_b(comm, A, a.inputs[1]);
    MPI_Barrier(comm);
    const auto t0 = std::chrono::steady_clock::now();
    DM C = spk::dist::spgemm(space, A, B);  // one call: the local product runs once
    const double ms = max_over_ranks(
        comm,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const auto Cg = C.gather();
    if (me != 0) return 0;
    std::printf("C = A·B: %lld x %lld, %lld nonzeros, %.3f ms on %d ranks (%s, %s)\n", C.num_rows(),
                C.num_cols(), C.global_nnz(), ms, np, scalar_name<S>(), decltype(space)::name());
    if (!a.out.empty()) {
      write_matrix_market(a.out, Cg);
      std::printf("wrote %s\n", a.out.c_str());
    }
    return 0;
  });
}

/// x on rank 0: all ones, or the file -x names (checked against A's
/// columns); empty on the other ranks.
template <class S>
std::vector<S> read_x_on_root(MPI_Comm comm, const std::string& path, long long cols) {
  std::vector<S> xg;
  if (path.empty()) {
    if (spk::dist::Impl::comm_rank(comm) == 0) xg.assign(cols, S(1));
    return xg;
  }
  on_root(comm, path, [&] {
    MatrixMarketReadOptions x_options;  // x's size line is checked before its entries
    x_options.required_rows = cols;
    auto d = read_dense<S>(path, x_options);
    SPK_REQUIRE(static_cast<long long>(d.extent(0)) == cols && d.extent(1) == 1, ShapeMismatch,
                "x in ", path, " is ", d.extent(0), "x", d.extent(1), ", A has ", cols, " columns");
    xg.assign(d.data(), d.data() + d.extent(0));
  });
  return xg;
}

template <class S>
int dist_spmv_in(const DistArgs& a, MPI_Comm comm) {
  const int me = spk::dist::Impl::comm_rank(comm), np = spk::dist::Impl::comm_size(comm);
  return with_space(a.space, [&](auto space) {
    using Dev = device_t<decltype(space)>;
    using DM = spk::dist::DistCsrMatrix<S, int, int, Dev>;
    const DM A = load_distributed<DM>(comm, a.inputs[0], a.partition);
    const auto xl =
        spk::dist::scatter_vector(A.col_layout(), read_x_on_root<S>(comm, a.x, A.num_cols()));
    Kokkos::View<S*, Dev> x("x", xl.size()), y("y", A.row_layout().local_size());
    Kokkos::deep_copy(x, Kokkos::View<const S*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                             xl.data(), xl.size()));
    spk::dist::spmv(space, S(1), A, x, S(0), y);  // warm-up
    spk::dist::SpmvTimes t;
    for (int i = 0; i < a.repeat; ++i) spk::dist::spmv(space, S(1), A, x, S(0), y, &t);
    auto per = [&](double s) { return max_over_ranks(comm, 1e3 * s / t.calls); };
    const double total = per(t.total()), exch = per(t.pack_and_post + t.wait), loc = per(t.local),
                 gh = per(t.ghost);
    auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto yg = spk::dist::gather_vector(A.row_layout(),
                                             std::vector<S>(yh.data(), yh.data() + yh.extent(0)));
    if (me != 0) return 0;
    std::printf(
        "y = A·x: %lld x %lld, %lld nonzeros on %d ranks (%s, %s): %.4f ms per product "
        "(exchange %.4f, local %.4f, ghost %.4f; max over ranks, mean of %d)\n",
        A.num_rows(), A.num_cols(), A.global_nnz(), np, scalar_name<S>(), decltype(space)::name(),
        total, exch, loc, gh, a.repeat);
    if (!a.out.empty()) {
      write_matrix_market_array(
          a.out,
          Kokkos::View<const S*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(yg.data(), yg.size()));
      std::printf("wrote %s\n", a.out.c_str());
    }
    return 0;
  });
}

}  // namespace

bool dist_requested() {
  if (const char* f = spk::environment_variable("SPK_DIST"); f && *f) return std::string(f) != "0";
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* s = spk::environment_variable(v); s && std::atoi(s) > 1) return true;
  return false;
}

// Each command computes in the scalar of its inputs, as the single-process
// commands do (dispatch_scalar): complex when a file's field or a spec's
// values= is complex, float or complex<float> with --precision single.

int run_dist_spgemm(const std::vector<std::string>& args) {
  const DistArgs a = parse(args);
  if (a.inputs.size() != 2) throw UsageError("expected two matrices A and B");
  ensure_mpi();
  MPI_Comm comm = MPI_COMM_WORLD;
  return dispatch_scalar(any_complex(comm, a.inputs), a.precision,
                         [&](auto zero) { return dist_spgemm_in<decltype(zero)>(a, comm); });
}

int run_dist_spmv(const std::vector<std::string>& args) {
  const DistArgs a = parse(args);
  if (a.inputs.size() != 1) throw UsageError("expected one matrix A");
  ensure_mpi();
  MPI_Comm comm = MPI_COMM_WORLD;
  std::vector<std::string> inputs = a.inputs;
  if (!a.x.empty()) inputs.push_back(a.x);
  return dispatch_scalar(any_complex(comm, inputs), a.precision,
                         [&](auto zero) { return dist_spmv_in<decltype(zero)>(a, comm); });
}

}  // namespace spk::cli
