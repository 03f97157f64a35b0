// Distributed conjugate gradients with spk::dist on the 7-point Poisson
// matrix of an N×N×N grid.  Each rank builds only its own rows (no global
// matrix anywhere), the right-hand side is b = A·1, so the solution is all
// ones and the error can be checked.
//
//   mpirun -np P spk_example_dist_cg [N] [--space serial|openmp|cuda] [--tol T] [--maxit K]
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <spk.hpp>
#include <spk_dist.hpp>
#include <string>

namespace {

using Host = spk::CsrMatrix<double, int, int, spk::HostDevice>;

/// Rows [begin, end) of the N³ Poisson matrix (6 on the diagonal, -1 to
/// each grid neighbour), global column indices.
Host poisson_rows(long long n, long long begin, long long end) {
  Host R("poisson_rows", static_cast<int>(end - begin), static_cast<int>(n * n * n),
         static_cast<int>(7 * (end - begin)));
  long long q = 0;
  for (long long g = begin; g < end; ++g) {
    const long long i = g / (n * n), j = g / n % n, k = g % n;
    auto add = [&](long long c, double v) {
      R.col_idx()(q) = static_cast<int>(c), R.values()(q++) = v;
    };
    if (i > 0) add(g - n * n, -1);
    if (j > 0) add(g - n, -1);
    if (k > 0) add(g - 1, -1);
    add(g, 6);
    if (k < n - 1) add(g + 1, -1);
    if (j < n - 1) add(g + n, -1);
    if (i < n - 1) add(g + n * n, -1);
    R.row_map()(g - begin + 1) = static_cast<int>(q);
  }
  // Fewer entries on the boundary: shrink the arrays to what was written.
  return Host(R.num_rows(), R.num_cols(), R.row_map(),
              Kokkos::subview(R.col_idx(), Kokkos::make_pair(0LL, q)),
              Kokkos::subview(R.values(), Kokkos::make_pair(0LL, q)));
}

template <class Space>
int solve(const Space& space, long long n, double tol, int maxit) {
  using Dev = spk::device_t<Space>;
  using View = Kokkos::View<double*, Dev>;
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = spk::dist::Impl::comm_rank(comm);
  const auto layout = spk::dist::RowLayout::balanced(comm, n * n * n);
  spk::dist::DistCsrMatrix<double, int, int, Dev> A(layout, layout,
                                                    poisson_rows(n, layout.begin(), layout.end()));
  const long long m = layout.local_size();
  View x("x", m), b("b", m), r("r", m), p("p", m), Ap("Ap", m), ones("ones", m);
  Kokkos::deep_copy(ones, 1.0);
  spk::dist::spmv(space, 1.0, A, ones, 0.0, b);  // b = A·1
  // x = 0, r = p = b.
  Kokkos::deep_copy(r, b);
  Kokkos::deep_copy(p, b);
  const double bb = spk::dist::dot(space, comm, b, b);
  double rr = bb;
  int it = 0;
  space.fence();
  MPI_Barrier(comm);
  const auto t0 = std::chrono::steady_clock::now();
  for (; it < maxit && std::sqrt(rr / bb) > tol; ++it) {
    spk::dist::spmv(space, 1.0, A, p, 0.0, Ap);
    const double alpha = rr / spk::dist::dot(space, comm, p, Ap);
    Kokkos::parallel_for(
        "cg::update", Kokkos::RangePolicy<Space>(space, 0, m), KOKKOS_LAMBDA(const long long i) {
          x(i) += alpha * p(i);
          r(i) -= alpha * Ap(i);
        });
    const double rr_new = spk::dist::dot(space, comm, r, r);
    const double beta = rr_new / rr;
    rr = rr_new;
    Kokkos::parallel_for(
        "cg::direction", Kokkos::RangePolicy<Space>(space, 0, m),
        KOKKOS_LAMBDA(const long long i) { p(i) = r(i) + beta * p(i); });
  }
  space.fence();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The SpMV's phases, from products of their own: timing them fences after
  // each phase, which would slow the solve above.
  spk::dist::SpmvTimes times;
  for (int k = 0; k < 20; ++k) spk::dist::spmv(space, 1.0, A, p, 0.0, Ap, &times);
  // Check: the true residual and the error against the known solution.
  spk::dist::spmv(space, 1.0, A, x, 0.0, Ap);
  double res2 = 0, err = 0;
  Kokkos::parallel_reduce(
      "cg::check", Kokkos::RangePolicy<Space>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, double& s) { s += (b(i) - Ap(i)) * (b(i) - Ap(i)); }, res2);
  Kokkos::parallel_reduce(
      "cg::error", Kokkos::RangePolicy<Space>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, double& e) {
        const double d = x(i) > 1.0 ? x(i) - 1.0 : 1.0 - x(i);
        if (d > e) e = d;
      },
      Kokkos::Max<double>(err));
  res2 = spk::dist::Impl::allreduce_sum(comm, res2);
  err = spk::dist::Impl::allreduce_max(comm, err);
  const double rel = std::sqrt(res2 / bb);
  if (me == 0) {
    const double per = 1e3 / std::max<long long>(1, times.calls);
    std::printf("dist_cg: poisson3d n=%lld (%lld rows, %lld nnz) on %d ranks, %s, halo %s\n", n,
                A.num_rows(), A.global_nnz(), layout.num_ranks(), Space::name(),
                spk::dist::to_string(A.plan().path()));
    std::printf("  time to solution %.3f s: %d iterations, %.3f ms per iteration\n", secs, it,
                1e3 * secs / std::max(it, 1));
    std::printf("  SpMV alone %.3f ms (phases fenced: exchange %.3f, local %.3f, ghost %.3f)\n",
                per * times.total(), per * (times.pack_and_post + times.wait), per * times.local,
                per * times.ghost);
    std::printf("  relative residual %.3e (tolerance %.1e), max |x - 1| = %.3e\n", rel, tol, err);
  }
  return rel <= 10 * tol && err < 1e-4 ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    long long n = 32;
    double tol = 1e-8;
    int maxit = 1000;
    std::string space = "default";
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--space" && i + 1 < argc)
        space = argv[++i];
      else if (a == "--tol" && i + 1 < argc)
        tol = std::stod(argv[++i]);
      else if (a == "--maxit" && i + 1 < argc)
        maxit = std::stoi(argv[++i]);
      else if (a.rfind("--kokkos", 0) == 0)
        continue;
      else
        n = std::stoll(a);
    }
    try {
      if (space == "default") rc = solve(Kokkos::DefaultExecutionSpace(), n, tol, maxit);
#if defined(KOKKOS_ENABLE_SERIAL)
      else if (space == "serial")
        rc = solve(Kokkos::Serial(), n, tol, maxit);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
      else if (space == "openmp")
        rc = solve(Kokkos::OpenMP(), n, tol, maxit);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
      else if (space == "cuda")
        rc = solve(Kokkos::Cuda(), n, tol, maxit);
#endif
      else {
        std::fprintf(stderr, "dist_cg: space '%s' is not enabled\n", space.c_str());
        rc = 2;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dist_cg: %s\n", e.what());
      rc = 1;
    }
  }
  MPI_Finalize();
  return rc;
}
