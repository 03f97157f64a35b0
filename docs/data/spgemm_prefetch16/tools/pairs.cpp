#include <Kokkos_Core.hpp>
#include <cstdio>
#include <spk.hpp>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  for (int a = 1; a < argc; ++a) {
    auto A = spk::load_csr<double, int, int>(argv[a]);
    auto B = A.num_rows() == A.num_cols() ? A : spk::transpose(A);
    long pairs = 0;
    auto rm = B.row_map();
    auto ci = B.col_idx();
    for (int r = 0; r < B.num_rows(); ++r) {
      long prev = -1;
      for (int k = rm(r); k < rm(r + 1); ++k) {
        long w = ci(k) >> 6;
        pairs += w != prev;
        prev = w;
      }
    }
    std::printf("%-28s pairs %5.1f %%  B %.1f MB\n", argv[a], 100.0 * pairs / B.nnz(),
                B.nnz() * 12e-6);
  }
  Kokkos::finalize();
}
