// SpGEMM cross-checked against Kokkos Kernels' spgemm_symbolic /
// spgemm_numeric (SPGEMM_KK) on the same backend.
#define SPK_COMPAT_KK_SPGEMM 1
#include <gtest/gtest.h>

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm.hpp>
#include <spk_convert.hpp>
#include <spk_kokkoskernels.hpp>
#include <spk_reference_convert.hpp>
#include <spk_spgemm.hpp>

#include "spk_test_utils.hpp"

namespace {

using Space = TEST_EXECSPACE;
using Device = spk::device_t<Space>;
using Csr = spk::CsrMatrix<double, int, int, Device>;

/// C = A·B by Kokkos Kernels' two-phase SpGEMM, rows sorted afterwards.
Csr kk_spgemm(const Csr& A, const Csr& B) {
  using MS = typename Space::memory_space;
  using KH = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, Space, MS, MS>;
  KH kh;
  kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  Kokkos::View<int*, Device> rm("kk.row_map", A.num_rows() + 1);
  spk::Impl::kk_spgemm::spgemm_symbolic(&kh, A.num_rows(), B.num_rows(), B.num_cols(), A.row_map(),
                                        A.col_idx(), false, B.row_map(), B.col_idx(), false, rm);
  const int nnz = kh.get_spgemm_handle()->get_c_nnz();
  Kokkos::View<int*, Device> ci("kk.col_idx", nnz);
  Kokkos::View<double*, Device> cv("kk.values", nnz);
  spk::Impl::kk_spgemm::spgemm_numeric(&kh, A.num_rows(), B.num_rows(), B.num_cols(), A.row_map(),
                                       A.col_idx(), A.values(), false, B.row_map(), B.col_idx(),
                                       B.values(), false, rm, ci, cv);
  kh.destroy_spgemm_handle();
  Csr C(A.num_rows(), B.num_cols(), rm, ci, cv);
  spk::sort_rows(Space(), C);
  return C;
}

void check_against_kk(const spk::CsrMatrix<double, int, int, spk::HostDevice>& A_h,
                      const spk::CsrMatrix<double, int, int, spk::HostDevice>& B_h,
                      const std::string& what) {
  const auto A = spk::create_mirror_view_and_copy(Device(), A_h);
  const auto B = spk::create_mirror_view_and_copy(Device(), B_h);
  const auto C = spk::spgemm(Space(), A, B);
  spk_test::expect_csr_equal(C, kk_spgemm(A, B), 1e-12, what);
}

}  // namespace

TEST(TEST_CATEGORY, spgemm_matches_kokkoskernels) {
  const auto P = spk::generate<double>("poisson2d:40");
  check_against_kk(P, P, "poisson2d:40 squared");
  const auto G = spk::generate<double>("rmat:12:8:2");
  check_against_kk(G, G, "rmat:12:8 squared");
  const auto R = spk::generate<double>("random:900:700:11:4");
  check_against_kk(R, spk::transpose(R), "random A * A^T");
}
