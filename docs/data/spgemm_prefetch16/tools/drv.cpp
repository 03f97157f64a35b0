// One-call spk::spgemm timing: per matrix, min and median of R products after W warm-ups.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <spk.hpp>
#include <vector>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    int R = getenv("R") ? atoi(getenv("R")) : 15;
    for (int a = 1; a < argc; ++a) {
      std::string spec = argv[a];
      auto Ah = spk::load_csr<double, int, int>(spec);
      auto Bh = Ah.num_rows() == Ah.num_cols() ? Ah : spk::transpose(Ah);
      auto A = spk::create_mirror_view_and_copy(Kokkos::OpenMP(), Ah);
      auto B = spk::create_mirror_view_and_copy(Kokkos::OpenMP(), Bh);
      std::vector<double> t;
      long long nnz = 0;
      for (int r = 0; r < R + 3; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        {
          spk::SpgemmOptions o;
          if (getenv("UNSORTED")) o.sort = spk::SpgemmSort::Unsorted;
          auto C = spk::spgemm(Kokkos::OpenMP(), A, B, o);
          nnz = C.nnz();
          if (getenv("CHECK") && r == 0) {
            auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.col_idx());
            auto cv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.values());
            double s = 0, q = 0;
            for (size_t j = 0; j < ci.extent(0); ++j) {
              s += (j % 7 + 1) * double(ci(j));
              q += (j % 5 + 1) * cv(j);
            }
            std::printf("check %.17g %.17g\n", s, q);
          }
        }
        auto t1 = std::chrono::steady_clock::now();
        if (r >= 3) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      std::sort(t.begin(), t.end());
      std::printf("%-26s nnz_c %10lld min %8.3f med %8.3f\n", spec.c_str(), nnz, t[0],
                  t[t.size() / 2]);
    }
  }
  Kokkos::finalize();
}
