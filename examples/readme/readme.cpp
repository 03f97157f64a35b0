// README.md's example (SpMV with a plan, two-phase SpGEMM), followed by a
// check of both results against spk's serial references.
#include <cstdio>
#include <spk.hpp>
#include <spk_reference_spgemm.hpp>
#include <spk_reference_spmv.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  Space space;
  auto A = spk::create_mirror_view_and_copy(space, spk::load_csr<double>("poisson3d:64"));
  Kokkos::View<double*, Space::memory_space> x("x", A.num_cols()), y("y", A.num_rows());
  Kokkos::deep_copy(space, x, 1.0);
  spk::SpmvPlan plan(space, A);               // row statistics once
  spk::spmv(space, plan, 1.0, A, x, 0.0, y);  // y = A·x
  spk::SpgemmHandle<int, int, Space> h;
  spk::CsrMatrix<double, int, int, Space> C;
  spk::spgemm_symbolic(space, h, A, A, C);  // C's pattern
  spk::spgemm_numeric(space, h, A, A, C);   // C's values; re-run when A's values change

  // The check: y against the serial SpMV, C against the serial SpGEMM.
  const auto hA = spk::create_mirror_view_and_copy_host(A);
  Kokkos::View<double*, Kokkos::HostSpace> hx("hx", A.num_cols()), ref_y("ref_y", A.num_rows());
  Kokkos::deep_copy(hx, 1.0);
  spk::reference::spmv(1.0, hA, hx, 0.0, ref_y);
  const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  long long bad = 0;
  for (int i = 0; i < A.num_rows(); ++i) bad += std::abs(hy(i) - ref_y(i)) > 1e-12 * 12;
  const auto ref_C = spk::reference::spgemm(hA, hA);
  const auto hC = spk::create_mirror_view_and_copy_host(C);
  bad += hC.nnz() != ref_C.nnz();
  for (long long k = 0; bad == 0 && k < ref_C.nnz(); ++k)
    bad += hC.col_idx()(k) != ref_C.col_idx()(k) ||
           std::abs(hC.values()(k) - ref_C.values()(k)) > 1e-12 * 100;
  std::printf("y = A·x and C = A·A on %s: %lld rows, nnz(C) = %lld, %s\n", Space::name(),
              static_cast<long long>(A.num_rows()), static_cast<long long>(hC.nnz()),
              bad == 0 ? "both match the serial references" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
