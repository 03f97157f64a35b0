// One call and two-phase products under ASan: A and B from Kokkos allocations
// (no pool: SPK_MEMORY_POOL=0), so a read past A's entries is caught.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <spk.hpp>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for (int a = 1; a < argc; ++a) {
      auto Ah = spk::load_csr<double, int, int>(argv[a]);
      auto Bh = Ah.num_rows() == Ah.num_cols() ? Ah : spk::transpose(Ah);
      for (int sorted = 0; sorted < 2; ++sorted) {
        spk::SpgemmOptions o;
        o.sort = sorted ? spk::SpgemmSort::Sorted : spk::SpgemmSort::Unsorted;
        auto C = spk::spgemm(Kokkos::OpenMP(), Ah, Bh, o);
        spk::SpgemmOptions t = o;
        t.algorithm = spk::SpgemmAlgorithm::ThreadDense;
        spk::SpgemmHandle<int, int, Kokkos::OpenMP> h(t);
        spk::CsrMatrix<double, int, int, Kokkos::OpenMP> C2;
        spk::spgemm_symbolic(Kokkos::OpenMP(), h, Ah, Bh, C2);
        spk::spgemm_numeric(Kokkos::OpenMP(), h, Ah, Bh, C2);
        std::printf("%s sorted=%d nnz %lld %lld\n", argv[a], sorted, (long long)C.nnz(),
                    (long long)C2.nnz());
      }
    }
  }
  Kokkos::finalize();
}
