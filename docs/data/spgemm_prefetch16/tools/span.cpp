#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <spk.hpp>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for (int a = 1; a < argc; ++a) {
      auto A = spk::load_csr<double, int, int>(argv[a]);
      auto arm = A.row_map();
      auto aci = A.col_idx();
      long m = A.num_rows();
      double span = 0, dist = 0;
      long n = 0;
      for (long i = 0; i < m; ++i) {
        if (arm(i) == arm(i + 1)) continue;
        int lo = 1 << 30, hi = -1;
        for (int k = arm(i); k < arm(i + 1); ++k) {
          lo = std::min(lo, aci(k));
          hi = std::max(hi, aci(k));
          dist += std::fabs(double(aci(k)) - i);
        }
        span += hi - lo;
        ++n;
      }
      std::printf(
          "%-28s m %8ld nnz %9ld bytesB %6.1f MB  mean span %10.1f (%.4f of m)  mean |c-i| "
          "%10.1f\n",
          argv[a], m, (long)A.nnz(), A.nnz() * 12.0 / 1e6, span / n, span / n / m, dist / A.nnz());
    }
  }
  Kokkos::finalize();
}
