// Biconjugate gradients in complex arithmetic on spk::spmv: solves A·u = b
// for a complex non-Hermitian A, the shifted Laplacian of frequency-domain
// wave problems, A = L + (σ + iτ)·I with L a generated Poisson matrix, with
// b = A·1 (so the exact solution is known).  BiCG multiplies by A and by
// its conjugate transpose Aᴴ (spk::Mode::ConjugateTranspose) every step.
//
//   spk_example_complex_bicg [poisson2d:N|poisson3d:N] [--shift RE IM] [--tol 1e-10]
//                            [--max-iter N] [--single]
//
// --single runs in Kokkos::complex<float> (with a tolerance of at least
// 1e-4).  Exit status 0 when ‖b − A·u‖ / ‖b‖ <= tol, recomputed at the end.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <spk_generators.hpp>
#include <spk_mirror.hpp>
#include <spk_spmv.hpp>
#include <string>

using Exec = Kokkos::DefaultExecutionSpace;

template <class Z>
struct Solver {
  using R = typename Z::value_type;
  using Vec = Kokkos::View<Z*, Exec::memory_space>;
  using Csr = spk::CsrMatrix<Z, int, int, spk::device_t<Exec>>;

  /// ⟨a, b⟩ = Σ conj(a_i)·b_i.
  static Z dot(const Vec& a, const Vec& b) {
    Z s = 0;
    Kokkos::parallel_reduce(
        "bicg.dot", Kokkos::RangePolicy<Exec>(0, a.extent(0)),
        KOKKOS_LAMBDA(const int i, Z& acc) { acc += Kokkos::conj(a(i)) * b(i); }, s);
    return s;
  }

  static double norm(const Vec& a) { return std::sqrt(static_cast<double>(dot(a, a).real())); }

  /// y := y + a·x
  static void axpy(Z a, const Vec& x, const Vec& y) {
    Kokkos::parallel_for(
        "bicg.axpy", Kokkos::RangePolicy<Exec>(0, x.extent(0)),
        KOKKOS_LAMBDA(const int i) { y(i) += a * x(i); });
  }

  /// p := r + b·p
  static void xpby(const Vec& r, Z b, const Vec& p) {
    Kokkos::parallel_for(
        "bicg.xpby", Kokkos::RangePolicy<Exec>(0, r.extent(0)),
        KOKKOS_LAMBDA(const int i) { p(i) = r(i) + b * p(i); });
  }

  /// L + shift·I for a generated Poisson matrix L (its diagonal is stored).
  static Csr shifted_laplacian(const std::string& spec, Z shift) {
    const auto L = spk::generate<double>(spec);
    spk::CsrMatrix<Z, int, int, spk::HostDevice> H("A", L.num_rows(), L.num_cols(), L.nnz());
    Kokkos::deep_copy(H.row_map(), L.row_map());
    Kokkos::deep_copy(H.col_idx(), L.col_idx());
    for (int i = 0; i < L.num_rows(); ++i)
      for (int k = L.row_map()(i); k < L.row_map()(i + 1); ++k)
        H.values()(k) = Z(static_cast<R>(L.values()(k))) + (L.col_idx()(k) == i ? shift : Z(0));
    return spk::create_mirror_view_and_copy(Exec(), H);
  }

  static int run(const std::string& spec, Z shift, double tol, int max_iter) {
    const Csr A = shifted_laplacian(spec, shift);
    const int n = A.num_rows();
    Vec u("u", n), b("b", n), r("r", n), rh("r_hat", n), p("p", n), ph("p_hat", n), q("q", n),
        qh("q_hat", n), ones("ones", n);
    Kokkos::deep_copy(ones, Z(1));
    spk::SpmvOptions normal, herm;
    herm.mode = spk::Mode::ConjugateTranspose;
    spk::spmv(Exec(), A, ones, b, normal);  // b = A·1
    Kokkos::deep_copy(r, b);                // u = 0: r = b
    Kokkos::deep_copy(rh, b);               // the shadow residual
    Kokkos::deep_copy(p, r);
    Kokkos::deep_copy(ph, rh);
    const double bnorm = norm(b);
    Z rho = dot(rh, r);
    int it = 0;
    double res = norm(r) / bnorm;
    for (; it < max_iter && res > tol; ++it) {
      spk::spmv(Exec(), A, p, q, normal);  // q = A·p
      spk::spmv(Exec(), A, ph, qh, herm);  // q̂ = Aᴴ·p̂
      const Z alpha = rho / dot(ph, q);
      axpy(alpha, p, u);
      axpy(-alpha, q, r);
      axpy(-Kokkos::conj(alpha), qh, rh);
      const Z rho_next = dot(rh, r);
      const Z beta = rho_next / rho;
      rho = rho_next;
      xpby(r, beta, p);
      xpby(rh, Kokkos::conj(beta), ph);
      res = norm(r) / bnorm;
    }
    // The true residual, recomputed.
    spk::spmv(Exec(), Z(-1), A, u, Z(0), q, normal);
    axpy(Z(1), b, q);
    const double true_res = norm(q) / bnorm;
    std::printf("%s, shift (%g, %g), %s: %d iterations, recursive residual %.3e, true %.3e\n",
                spec.c_str(), double(shift.real()), double(shift.imag()),
                sizeof(R) == 4 ? "complex<float>" : "complex<double>", it, res, true_res);
    return true_res <= tol ? 0 : 1;
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string spec = "poisson2d:64";
  double shift_re = -0.5, shift_im = 0.5, tol = 1e-10;
  int max_iter = 5000;
  bool single = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "complex_bicg: %s needs a value\n", what);
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--tol")
      tol = std::stod(value("--tol"));
    else if (a == "--max-iter")
      max_iter = std::stoi(value("--max-iter"));
    else if (a == "--shift")
      shift_re = std::stod(value("--shift")), shift_im = std::stod(value("--shift"));
    else if (a == "--single")
      single = true;
    else if (!a.empty() && a[0] != '-')
      spec = a;
    else {
      std::fprintf(stderr, "complex_bicg: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  try {
    if (single)
      return Solver<Kokkos::complex<float>>::run(
          spec, Kokkos::complex<float>(float(shift_re), float(shift_im)), std::max(tol, 1e-4),
          max_iter);
    return Solver<Kokkos::complex<double>>::run(spec, Kokkos::complex<double>(shift_re, shift_im),
                                                tol, max_iter);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "complex_bicg: error: %s\n", e.what());
    return 1;
  }
}
