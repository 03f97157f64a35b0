// Walk counting with repeated sparse products: P_1 = A (the 0/1 adjacency
// matrix of a graph), P_{j+1} = P_j · A, so P_k(u, v) is the number of walks
// of length k from u to v.  The pattern of P_{j+1} depends only on the
// patterns of P_j and A: once two consecutive powers have the same pattern
// (the walks have reached everything they will reach), every later product
// has that pattern too, and the symbolic phase is reused, numeric only.
//
//   spk_example_path_counting [GRAPH.mtx[.gz] | SPEC] [K]
//   (default: rmat:10:4, K = 8)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <spk.hpp>
#include <spk_spgemm.hpp>
#include <vector>

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = spk::CsrMatrix<double, int, long long, spk::device_t<Space>>;

/// Whether two matrices have the same row pointers and columns.
bool same_pattern(const Matrix& X, const Matrix& Y) {
  if (X.num_rows() != Y.num_rows() || X.nnz() != Y.nnz()) return false;
  int diff = 0;
  const auto xr = X.row_map(), yr = Y.row_map();
  const auto xc = X.col_idx(), yc = Y.col_idx();
  Kokkos::parallel_reduce(
      "same_pattern", Kokkos::RangePolicy<Space>(0, X.num_rows()),
      KOKKOS_LAMBDA(const int i, int& d) {
        if (xr(i + 1) != yr(i + 1)) {
          d += 1;
          return;
        }
        for (long long k = xr(i); k < xr(i + 1); ++k) d += xc(k) != yc(k) ? 1 : 0;
      },
      diff);
  return diff == 0;
}

/// Sum of all entries: the number of walks of the current length.
double total(const Matrix& X) {
  double s = 0;
  const auto v = X.values();
  Kokkos::parallel_reduce(
      "total", Kokkos::RangePolicy<Space>(0, v.extent(0)),
      KOKKOS_LAMBDA(const long long k, double& t) { t += v(k); }, s);
  return s;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::string what = argc > 1 ? argv[1] : "rmat:10:4";
  const int K = argc > 2 ? std::atoi(argv[2]) : 8;
  try {
    // The 0/1 adjacency matrix.
    auto host = spk::load_csr<double, int, long long>(what);
    SPK_REQUIRE(host.num_rows() == host.num_cols(), spk::ShapeMismatch, what,
                " is not square: walks need a square adjacency matrix");
    for (long long k = 0; k < host.nnz(); ++k) host.values()(k) = 1.0;
    const Matrix A = spk::create_mirror_view_and_copy(Space(), host);

    // Walk counts by repeated products of a vector: 1ᵀ A^k 1, the check.
    std::vector<double> ones(host.num_rows(), 1.0), next(host.num_rows());
    auto apply_A = [&]() {  // ones <- A * ones
      for (int i = 0; i < host.num_rows(); ++i) {
        double s = 0;
        for (long long q = host.row_map()(i); q < host.row_map()(i + 1); ++q)
          s += ones[host.col_idx()(q)];
        next[i] = s;
      }
      ones.swap(next);
    };
    apply_A();  // walks of length 1

    spk::SpgemmHandle<int, long long, Space> handle;
    Matrix P = A, C, spare;  // spare: C's twin (same row pointers) for reuse
    bool reusing = false;
    int failures = 0;
    std::printf("%s: %d vertices, %lld edges on %s\n", what.c_str(), A.num_rows(),
                static_cast<long long>(A.nnz()), Space::name());
    std::printf("%3s %12s %14s %10s %10s %22s %s\n", "k", "nnz(A^k)", "products", "sym_ms",
                "num_ms", "walks", "");
    for (int k = 2; k <= K; ++k) {
      Kokkos::Timer timer;
      double sym_ms = 0;
      Matrix out;
      if (!reusing) {
        spk::spgemm_symbolic(Space(), handle, P, A, C);
        sym_ms = timer.seconds() * 1e3;
        timer.reset();
        out = C;
      } else {
        // Same patterns as the last product: numeric only, into whichever of
        // C and its twin does not hold P.
        out = P.values().data() == C.values().data() ? spare : C;
      }
      spk::spgemm_numeric(Space(), handle, P, A, out);
      const double num_ms = timer.seconds() * 1e3;

      // Check: the sum of A^k's entries is 1ᵀ A^k 1.
      apply_A();
      double expect = 0;
      for (double x : ones) expect += x;
      const double got = total(out);
      const bool ok = std::abs(got - expect) <= 1e-12 * expect;
      failures += !ok;
      std::printf("%3d %12lld %14llu %10.3f %10.3f %22.0f %s%s\n", k,
                  static_cast<long long>(out.nnz()),
                  static_cast<unsigned long long>(handle.products()), sym_ms, num_ms, got,
                  reusing ? "(symbolic reused) " : "", ok ? "" : "WRONG");

      // From now on the pattern repeats: keep the handle, alternate buffers.
      if (!reusing && same_pattern(out, P)) {
        reusing = true;
        spare = Matrix(C.num_rows(), C.num_cols(), C.row_map(),
                       typename Matrix::index_type("spare.col_idx", C.nnz()),
                       typename Matrix::values_type("spare.values", C.nnz()));
        if (P.values().data() != A.values().data()) {
          // P (the previous power) becomes the spare: same row pointers.
          spare = Matrix(C.num_rows(), C.num_cols(), C.row_map(), P.col_idx(), P.values());
        }
      }
      P = out;
      if (!reusing) C = Matrix();  // a fresh C for the next symbolic
    }
    return failures == 0 ? 0 : 1;
  } catch (const spk::Error& e) {
    std::fprintf(stderr, "spk_example_path_counting: %s\n", e.what());
    return 1;
  }
}
