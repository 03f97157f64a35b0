// Conjugate gradients on spk::spmv: solves A·u = b for a symmetric positive
// definite A (a generated Poisson problem or a Matrix Market file) with
// b = A·1, so the exact solution is known, to a relative residual tolerance.
//
//   spk_example_cg [MATRIX] [--tol 1e-10] [--max-iter N] [--jacobi] [--algorithm NAME]
//
// MATRIX: poisson2d:N, poisson3d:N (default poisson3d:40) or an .mtx[.gz]
// file.  Exit status 0 when ‖b − A·u‖ / ‖b‖ <= tol, recomputed at the end.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <spk_load.hpp>
#include <spk_mirror.hpp>
#include <spk_spmv.hpp>
#include <string>

using Exec = Kokkos::DefaultExecutionSpace;
using Vec = Kokkos::View<double*, Exec::memory_space>;
using Csr = spk::CsrMatrix<double, int, int, spk::device_t<Exec>>;

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  Kokkos::parallel_reduce(
      "cg.dot", Kokkos::RangePolicy<Exec>(0, a.extent(0)),
      KOKKOS_LAMBDA(const int i, double& acc) { acc += a(i) * b(i); }, s);
  return s;
}

// y := y + a·x
void axpy(double a, const Vec& x, const Vec& y) {
  Kokkos::parallel_for(
      "cg.axpy", Kokkos::RangePolicy<Exec>(0, x.extent(0)),
      KOKKOS_LAMBDA(const int i) { y(i) += a * x(i); });
}

// p := z + b·p
void xpby(const Vec& z, double b, const Vec& p) {
  Kokkos::parallel_for(
      "cg.xpby", Kokkos::RangePolicy<Exec>(0, z.extent(0)),
      KOKKOS_LAMBDA(const int i) { p(i) = z(i) + b * p(i); });
}

// z := r / d (Jacobi) or r
void precondition(const Vec& inv_diag, const Vec& r, const Vec& z) {
  Kokkos::parallel_for(
      "cg.jacobi", Kokkos::RangePolicy<Exec>(0, r.extent(0)),
      KOKKOS_LAMBDA(const int i) { z(i) = inv_diag(i) * r(i); });
}

Vec inverse_diagonal(const Csr& A, bool jacobi) {
  Vec d("inv_diag", A.num_rows());
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  Kokkos::parallel_for(
      "cg.diag", Kokkos::RangePolicy<Exec>(0, A.num_rows()), KOKKOS_LAMBDA(const int i) {
        double a = 0;
        for (int k = rm(i); k < rm(i + 1); ++k)
          if (ci(k) == i) a += va(k);
        d(i) = jacobi && a > 0 ? 1.0 / a : 1.0;
      });
  return d;
}

int solve(const std::string& spec, double tol, int max_iter, bool jacobi,
          spk::SpmvAlgorithm algorithm) {
  const auto hA = spk::load_csr<double, int, int>(spec);
  if (hA.num_rows() != hA.num_cols()) {
    std::fprintf(stderr, "spk_example_cg: %s is %d x %d, not square\n", spec.c_str(), hA.num_rows(),
                 hA.num_cols());
    return 2;
  }
  Exec space;
  Csr A = spk::create_mirror_view_and_copy(space, hA);
  const int n = A.num_rows();
  spk::SpmvOptions opt;
  opt.algorithm = algorithm;
  spk::SpmvPlan plan(space, A, opt);  // statistics once; every product below reuses them

  Vec u("u", n), b("b", n), r("r", n), z("z", n), p("p", n), q("q", n), ones("ones", n);
  Kokkos::deep_copy(ones, 1.0);
  spk::spmv(space, plan, 1.0, A, ones, 0.0, b);  // b = A·1
  const Vec inv_diag = inverse_diagonal(A, jacobi);
  const double norm_b = std::sqrt(dot(b, b));
  if (norm_b == 0) {
    std::printf("%s: b = 0, u = 0 solves it\n", spec.c_str());
    return 0;
  }
  Kokkos::deep_copy(r, b);  // u = 0
  precondition(inv_diag, r, z);
  Kokkos::deep_copy(p, z);
  double rz = dot(r, z);
  double rel = 1;
  int it = 0;
  Kokkos::Timer timer;
  for (; it < max_iter; ++it) {
    spk::spmv(space, plan, 1.0, A, p, 0.0, q);
    const double pq = dot(p, q);
    if (!(pq > 0)) {
      std::fprintf(stderr,
                   "spk_example_cg: p·Ap = %g at iteration %d: A is not positive definite\n", pq,
                   it);
      return 1;
    }
    const double alpha = rz / pq;
    axpy(alpha, p, u);
    axpy(-alpha, q, r);
    rel = std::sqrt(dot(r, r)) / norm_b;
    if (rel <= tol) {
      ++it;
      break;
    }
    precondition(inv_diag, r, z);
    const double rz_new = dot(r, z);
    xpby(z, rz_new / rz, p);
    rz = rz_new;
  }
  const double seconds = timer.seconds();
  // The true residual, not the recurrence's.
  Kokkos::deep_copy(r, b);
  spk::spmv(space, plan, -1.0, A, u, 1.0, r);
  const double true_rel = std::sqrt(dot(r, r)) / norm_b;
  axpy(-1.0, ones, u);
  const double err = std::sqrt(dot(u, u) / n);
  std::printf(
      "%s: n = %d, nnz = %d, spmv %s, %s: %d iterations, %.3f s; "
      "|b - Au|/|b| = %.3e (tolerance %.1e), rms error vs exact solution %.3e\n",
      spec.c_str(), n, A.nnz(), spk::to_string(plan.algorithm()),
      jacobi ? "Jacobi preconditioner" : "no preconditioner", it, seconds, true_rel, tol, err);
  if (!(true_rel <= tol)) {
    std::printf("NOT CONVERGED\n");
    return 1;
  }
  return 0;
}

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  {
    std::string spec = "poisson3d:40";
    double tol = 1e-10;
    int max_iter = 10000;
    bool jacobi = false;
    auto algorithm = spk::SpmvAlgorithm::Auto;
    try {
      for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
          if (i + 1 >= argc) throw spk::Error("spk_example_cg: " + a + " needs a value");
          return argv[++i];
        };
        if (a == "--tol")
          tol = std::stod(next());
        else if (a == "--max-iter")
          max_iter = std::stoi(next());
        else if (a == "--jacobi")
          jacobi = true;
        else if (a == "--algorithm")
          algorithm = spk::spmv_algorithm_from_string(next());
        else if (a.rfind("--kokkos", 0) == 0)
          continue;
        else if (a.rfind("--", 0) == 0)
          throw spk::Error("spk_example_cg: unknown option " + a);
        else
          spec = a;
      }
      rc = solve(spec, tol, max_iter, jacobi, algorithm);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "spk_example_cg: %s\n", e.what());
      rc = 2;
    }
  }
  Kokkos::finalize();
  return rc;
}
