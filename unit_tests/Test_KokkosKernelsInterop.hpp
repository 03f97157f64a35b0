// Zero-copy interoperability with, and cross-checks against, Kokkos Kernels.
#include <gtest/gtest.h>

#include <spk_convert.hpp>
#include <spk_kokkoskernels.hpp>
#include <spk_matrix_market.hpp>
#include <spk_reference_convert.hpp>
#include <spk_spgemm.hpp>

#include "spk_test_utils.hpp"

namespace {
using Space = TEST_EXECSPACE;
using Device = spk::device_t<Space>;
}  // namespace

TEST(TEST_CATEGORY, kokkoskernels_zero_copy_both_ways) {
  const auto h = spk::generate<double>("random:300:200:9:5");
  const auto A = spk::create_mirror_view_and_copy(Device(), h);
  const auto K = spk::to_kokkos_kernels(A);
  EXPECT_EQ(K.numRows(), 300);
  EXPECT_EQ(K.numCols(), 200);
  EXPECT_EQ(K.nnz(), A.nnz());
  EXPECT_EQ(K.values.data(), A.values().data()) << "no copy";
  EXPECT_EQ(K.graph.row_map.data(), A.row_map().data());
  const auto B = spk::from_kokkos_kernels(K);
  EXPECT_EQ(B.col_idx().data(), A.col_idx().data()) << "no copy";
  spk_test::expect_csr_equal(B, h, 0, "round trip");
}

// A const Kokkos Kernels matrix: a read-only spk matrix over its Views,
// no copy and no cast, multiplied like the mutable one.
TEST(TEST_CATEGORY, kokkoskernels_const_matrix_read_only_view) {
  const auto h = spk::generate<double>("random:200:200:7:9");
  const auto A = spk::create_mirror_view_and_copy(Device(), h);
  const KokkosSparse::CrsMatrix<const double, int, Device, void, int> K = spk::to_kokkos_kernels(A);
  const auto R = spk::view_kokkos_kernels(K);
  static_assert(decltype(R)::is_const);
  EXPECT_EQ(R.values().data(), A.values().data()) << "no copy";
  spk_test::expect_csr_equal(R, h, 0, "view");
  spk_test::expect_csr_equal(spk::spgemm(Space(), R, R), spk::spgemm(Space(), A, A), 0,
                             "spgemm of the view");
}

TEST(TEST_CATEGORY, kokkoskernels_transpose_matches) {
  const auto check = [](const spk::CsrMatrix<double, int, int, spk::HostDevice>& h,
                        const std::string& what) {
    const auto A = spk::create_mirror_view_and_copy(Device(), h);
    auto T = spk::transpose(Space(), A);
    auto KT = spk::Impl::kk_transpose_matrix(spk::to_kokkos_kernels(A));
    auto KTs = spk::from_kokkos_kernels(KT);
    spk::sort_rows(Space(), KTs);  // Kokkos Kernels leaves rows unsorted
    spk_test::expect_csr_equal(T, KTs, 0, what);
  };
  check(spk::generate<double>("random:1000:700:12:1"), "random");
  check(spk::generate<double>("rmat:12:8:2"), "rmat");
  if (!spk_test::matrix_dir().empty())
    check(spk::read_csr<double>(spk_test::join(spk_test::matrix_dir(), "cage10.mtx.gz")), "cage10");
}
