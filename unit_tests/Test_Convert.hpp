// Conversions on TEST_EXECSPACE compared with the serial reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <spk_convert.hpp>
#include <spk_matrix_market.hpp>
#include <spk_reference_convert.hpp>

#include "spk_test_utils.hpp"

namespace {

using Space = TEST_EXECSPACE;
using Device = spk::device_t<Space>;
using Csr = spk::CsrMatrix<double, int, int, Device>;
using Coo = spk::CooMatrix<double, int, int, Device>;
using HostCoo = spk::CooMatrix<double, int, int, spk::HostDevice>;

Coo to_device(const HostCoo& A) { return spk::create_mirror_view_and_copy(Device(), A); }

/// COO -> CSR on the backend vs the reference, with and without dropping
/// zeros, then CSR -> CSC -> CSR and CSR -> COO -> CSR round trips.
template <class O = int, class F = int>
void check_all_conversions(const spk::CooMatrix<double, O, F, spk::HostDevice>& host,
                           const std::string& what) {
  const auto dev = spk::create_mirror_view_and_copy(Device(), host);
  for (bool drop : {false, true}) {
    const auto C = spk::coo_to_csr(Space(), dev, spk::CooToCsrOptions{drop});
    const auto R = spk::reference::coo_to_csr(host, drop);
    spk_test::expect_csr_equal(C, R, 0, what + (drop ? " coo_to_csr(drop)" : " coo_to_csr"));
    EXPECT_TRUE(spk::is_sorted_and_unique(Space(), C)) << what;
  }
  const auto C = spk::coo_to_csr(Space(), dev);
  const auto R = spk::reference::coo_to_csr(host);

  const auto csc = spk::csr_to_csc(Space(), C);
  const auto csc_ref = spk::reference::csr_to_csc(R);
  const auto csc_h = spk::create_mirror_view_and_copy_host(csc);
  // A CSC matrix compares like the CSR form of the transpose.
  spk_test::expect_csr_equal(
      spk::CsrMatrix<double, O, F, spk::HostDevice>(
          csc_h.num_cols(), csc_h.num_rows(), csc_h.col_map(), csc_h.row_idx(), csc_h.values()),
      spk::CsrMatrix<double, O, F, spk::HostDevice>(csc_ref.num_cols(), csc_ref.num_rows(),
                                                    csc_ref.col_map(), csc_ref.row_idx(),
                                                    csc_ref.values()),
      0, what + " csr_to_csc");
  spk_test::expect_csr_equal(spk::csc_to_csr(Space(), csc), R, 0, what + " csc_to_csr");
  spk_test::expect_csr_equal(spk::transpose(Space(), spk::transpose(Space(), C)), R, 0,
                             what + " transpose twice");

  const auto coo2 = spk::csr_to_coo(Space(), C);
  spk_test::expect_csr_equal(spk::coo_to_csr(Space(), coo2), R, 0, what + " csr_to_coo");
}

/// A CSR matrix with empty rows, unsorted columns and repeated columns in a
/// row, every value distinct (so that an entry out of its stable place shows).
template <class O, class F>
spk::CsrMatrix<double, O, F, spk::HostDevice> messy_csr(O m, O n, int max_per_row,
                                                        std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  std::vector<F> rm(m + 1, 0);
  std::vector<O> ci;
  std::vector<double> va;
  for (O i = 0; i < m; ++i) {
    const int len = n == 0 || rng.below(5) == 0 ? 0 : static_cast<int>(rng.below(max_per_row + 1));
    for (int t = 0; t < len; ++t) {
      // Now and then the previous column again: duplicates.
      const O c = t > 0 && rng.below(4) == 0 ? ci.back() : static_cast<O>(rng.below(n));
      ci.push_back(c);
      va.push_back(1.0 + static_cast<double>(ci.size()));
    }
    rm[i + 1] = static_cast<F>(ci.size());
  }
  spk::CsrMatrix<double, O, F, spk::HostDevice> A("messy", m, n, static_cast<F>(ci.size()));
  std::copy(rm.begin(), rm.end(), A.row_map().data());
  std::copy(ci.begin(), ci.end(), A.col_idx().data());
  std::copy(va.begin(), va.end(), A.values().data());
  return A;
}

template <class O, class F>
void check_csr_to_csc_messy(O m, O n, int max_per_row, std::uint64_t seed) {
  const std::string what = "messy " + std::to_string(m) + "x" + std::to_string(n);
  const auto h = messy_csr<O, F>(m, n, max_per_row, seed);
  const auto A = spk::create_mirror_view_and_copy(Device(), h);
  const auto csc = spk::create_mirror_view_and_copy_host(spk::csr_to_csc(Space(), A));
  const auto ref = spk::reference::csr_to_csc(h);
  using HostCsr = spk::CsrMatrix<double, O, F, spk::HostDevice>;
  // Same pointers, row indices and values in the same (stable) order.
  spk_test::expect_csr_equal(
      HostCsr(csc.num_cols(), csc.num_rows(), csc.col_map(), csc.row_idx(), csc.values()),
      HostCsr(ref.num_cols(), ref.num_rows(), ref.col_map(), ref.row_idx(), ref.values()), 0,
      what + " csr_to_csc");
  spk_test::expect_csr_equal(spk::transpose(Space(), A), spk::reference::transpose(h), 0,
                             what + " transpose");
}

}  // namespace

TEST(TEST_CATEGORY, coo_to_csr_hand_checked) {
  // [ 1 0 2 ]      entries given out of order, (0,2) twice (1.5 + 0.5),
  // [ 0 0 0 ]      row 1 empty, an explicit zero at (2,0).
  // [ 0 3 4 ]
  HostCoo h("h", 3, 3, 6);
  const int r[] = {2, 0, 0, 2, 0, 2};
  const int c[] = {2, 2, 0, 1, 2, 0};
  const double v[] = {4, 1.5, 1, 3, 0.5, 0};
  for (int k = 0; k < 6; ++k) h.row_idx()(k) = r[k], h.col_idx()(k) = c[k], h.values()(k) = v[k];
  const auto C = spk::create_mirror_view_and_copy_host(spk::coo_to_csr(Space(), to_device(h)));
  ASSERT_EQ(C.nnz(), 5);
  const int rm[] = {0, 2, 2, 5};
  const int ci[] = {0, 2, 0, 1, 2};
  const double cv[] = {1, 2, 0, 3, 4};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(C.row_map()(i), rm[i]);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(C.col_idx()(k), ci[k]);
    EXPECT_EQ(C.values()(k), cv[k]);
  }
  const auto D = spk::create_mirror_view_and_copy_host(
      spk::coo_to_csr(Space(), to_device(h), spk::CooToCsrOptions{true}));
  EXPECT_EQ(D.nnz(), 4);  // the explicit zero is gone
}

TEST(TEST_CATEGORY, coo_to_csr_random) {
  // Larger than a warp and a team; empty rows; duplicates; unsorted; zeros.
  check_all_conversions(spk_test::random_coo(1000, 700, 20000, 11, 900), "random 1000x700");
  check_all_conversions(spk_test::random_coo(257, 3000, 5000, 12), "random 257x3000");
  check_all_conversions(spk_test::random_coo(50, 50, 10000, 13), "many duplicates 50x50");
}

// Rows longer than the wide length are merged a thread per (row, column)
// run instead of a thread per row (and sorted by the whole device): force
// both with small wide lengths on a matrix with a long row holding repeated
// columns, runs that sum to zero, empty rows first and last, and long
// duplicate runs.
TEST(TEST_CATEGORY, coo_to_csr_long_rows_every_path) {
  std::mt19937 gen(21);
  std::vector<int> r, c;
  std::vector<double> v;
  const auto add = [&](int i, int j, double x) { r.push_back(i), c.push_back(j), v.push_back(x); };
  for (int k = 0; k < 3000; ++k) add(3, std::uniform_int_distribution<int>(0, 899)(gen), k + 1.0);
  for (int k = 0; k < 40; ++k) add(5, 7, 0.25);  // one run of 40 duplicates
  add(6, 1, 2.0), add(6, 1, -2.0);               // a run summing to zero
  for (int i = 7; i < 60; ++i)
    for (int k = 0; k < i % 5; ++k) add(i, (i * 7 + k * 13) % 900, -0.5 * k + i);
  add(58, 899, 0.0);  // an explicit zero
  std::vector<std::size_t> order(r.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), gen);
  HostCoo h("h", 62, 900, static_cast<long long>(r.size()));  // rows 0-2, 4, 60, 61 empty
  for (std::size_t k = 0; k < order.size(); ++k) {
    h.row_idx()(k) = r[order[k]];
    h.col_idx()(k) = c[order[k]];
    h.values()(k) = v[order[k]];
  }
  const auto dev = to_device(h);
  for (const bool drop : {false, true}) {
    const auto R = spk::reference::coo_to_csr(h, drop);
    for (const long long wide_len : {16LL, 1000LL, spk::Impl::wide_segment_length<Space>()}) {
      const auto C = spk::Impl::coo_to_csr(Space(), dev, drop, wide_len);
      spk_test::expect_csr_equal(C, R, 0,
                                 "wide_len " + std::to_string(wide_len) + (drop ? " drop" : ""));
    }
  }
}

TEST(TEST_CATEGORY, coo_to_csr_edge_shapes) {
  check_all_conversions(spk_test::random_coo(0, 0, 0, 1), "0x0");
  check_all_conversions(spk_test::random_coo(5, 0, 0, 1), "5x0");
  check_all_conversions(spk_test::random_coo(0, 7, 0, 1), "0x7");
  check_all_conversions(spk_test::random_coo(40, 40, 0, 1), "40x40 nnz=0");
  check_all_conversions(spk_test::random_coo(1, 5000, 3000, 2), "1xN");
  check_all_conversions(spk_test::random_coo(5000, 1, 3000, 3), "Nx1");
  // All entries in one row, long enough for the team sort (> 10 000 entries).
  check_all_conversions(spk_test::random_coo(300, 20000, 15000, 4, 1), "one long row");
}

TEST(TEST_CATEGORY, coo_to_csr_64bit_offsets) {
  check_all_conversions<int, long long>(
      spk_test::random_coo<double, int, long long>(600, 800, 9000, 5), "int64 offsets");
  check_all_conversions<long long, long long>(
      spk_test::random_coo<double, long long, long long>(600, 800, 9000, 6), "int64 ordinals");
}

TEST(TEST_CATEGORY, coo_to_csr_rejects_bad_indices) {
  HostCoo h("h", 4, 4, 3);
  h.row_idx()(0) = 0, h.col_idx()(0) = 1, h.values()(0) = 1;
  h.row_idx()(1) = 2, h.col_idx()(1) = 4, h.values()(1) = 1;  // column 4 of 4
  h.row_idx()(2) = -1, h.col_idx()(2) = 0, h.values()(2) = 1;
  try {
    spk::coo_to_csr(Space(), to_device(h));
    FAIL() << "expected spk::InvalidMatrix";
  } catch (const spk::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find("entry 1 at (2, 4)"), std::string::npos) << e.what();
  }
}

TEST(TEST_CATEGORY, dense_to_csr_hand_checked) {
  Kokkos::View<double**, Kokkos::LayoutRight, Device> d("d", 2, 3);
  auto h = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(h, 0.0);
  h(0, 1) = 5, h(1, 0) = -1, h(1, 2) = 2;
  Kokkos::deep_copy(d, h);
  const auto C = spk::create_mirror_view_and_copy_host(spk::dense_to_csr(Space(), d));
  ASSERT_EQ(C.nnz(), 3);
  EXPECT_EQ(C.row_map()(1), 1);
  EXPECT_EQ(C.col_idx()(0), 1);
  EXPECT_EQ(C.col_idx()(1), 0);
  EXPECT_EQ(C.col_idx()(2), 2);
  EXPECT_EQ(C.values()(2), 2.0);
}

namespace {

template <class Layout>
void check_dense_random(int m, int n, double density, std::uint64_t seed) {
  Kokkos::View<double**, Layout, Device> d("d", m, n);
  auto h = Kokkos::create_mirror_view(d);
  spk::Impl::SplitMix64 rng(seed);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) h(i, j) = rng.uniform() < density ? rng.uniform() + 0.5 : 0.0;
  Kokkos::deep_copy(d, h);
  const auto C = spk::dense_to_csr(Space(), d);
  spk_test::expect_csr_equal(C, spk::reference::dense_to_csr(h), 0, "dense_to_csr");
  // And back.
  const auto back =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), spk::csr_to_dense(Space(), C));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) ASSERT_EQ(back(i, j), h(i, j)) << i << "," << j;
}

}  // namespace

TEST(TEST_CATEGORY, dense_to_csr_random) {
  check_dense_random<Kokkos::LayoutRight>(300, 257, 0.1, 1);
  check_dense_random<Kokkos::LayoutLeft>(129, 1000, 0.02, 2);
  check_dense_random<Kokkos::LayoutRight>(1, 5000, 0.5, 3);
  check_dense_random<Kokkos::LayoutRight>(3000, 1, 0.5, 4);
  check_dense_random<Kokkos::LayoutRight>(0, 0, 0.5, 5);
  check_dense_random<Kokkos::LayoutRight>(64, 64, 0.0, 6);  // all zero: empty CSR
}

TEST(TEST_CATEGORY, sort_rows_random) {
  // Shuffle the columns of a sorted CSR matrix in place, then sort back.
  const auto R = spk::reference::coo_to_csr(spk_test::random_coo(700, 5000, 40000, 7, 650));
  auto A = spk::clone(Device(), R);
  auto h = spk::create_mirror_view_and_copy_host(spk::clone(spk::HostDevice(), R));
  spk::Impl::SplitMix64 rng(3);
  for (int i = 0; i < h.num_rows(); ++i)
    for (int k = h.row_map()(i + 1) - 1; k > h.row_map()(i); --k) {
      const int j = h.row_map()(i) + static_cast<int>(rng.below(k - h.row_map()(i) + 1));
      std::swap(h.col_idx()(k), h.col_idx()(j));
      std::swap(h.values()(k), h.values()(j));
    }
  spk::deep_copy(A, h);
  EXPECT_FALSE(spk::is_sorted(Space(), A));
  spk::sort_rows(Space(), A);
  EXPECT_TRUE(spk::is_sorted(Space(), A));
  spk_test::expect_csr_equal(A, R, 0, "sort_rows");
}

TEST(TEST_CATEGORY, csr_to_csc_unsorted_duplicates) {
  // The host path cuts the rows into blocks per thread: many more rows than
  // threads, a wide hypersparse shape (one block: the per-thread counts
  // would outweigh the entries) and degenerate shapes.
  check_csr_to_csc_messy<int, int>(3000, 500, 12, 1);
  check_csr_to_csc_messy<int, long long>(1000, 3000, 40, 2);
  check_csr_to_csc_messy<int, int>(6, 2000000, 3, 3);
  check_csr_to_csc_messy<int, int>(2000, 1, 3, 4);
  check_csr_to_csc_messy<int, int>(0, 7, 3, 5);
  check_csr_to_csc_messy<int, int>(7, 0, 3, 6);
}

TEST(TEST_CATEGORY, conversions_real_matrices) {
  SPK_TEST_REQUIRE_MATRIX_DIR();
  const auto found = spk_test::present_matrices(spk_test::real_matrix_names());
  if (found.empty()) GTEST_SKIP() << "none of the real matrices in " << spk_test::matrix_dir();
  for (const auto& [name, path] : found)
    check_all_conversions(spk::read_matrix_market<double>(path).coo, name);
}

TEST(TEST_CATEGORY, conversions_small_files) {
  // Every small file in the repository, as read, through every conversion.
  for (const auto& entry : std::filesystem::directory_iterator(spk_test::data_dir())) {
    if (!entry.is_regular_file()) continue;  // bad/: the bad-input reproducers
    const std::string path = entry.path().string();
    if (path.find("complex") != std::string::npos) continue;  // not supported yet
    const auto contents = spk::read_matrix_market<double>(path);
    check_all_conversions(contents.coo, entry.path().filename().string());
  }
}
