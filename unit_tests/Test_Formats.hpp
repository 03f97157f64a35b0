// Matrix types: construction, validation, moving between memory spaces.
#include <gtest/gtest.h>

#include <spk_mirror.hpp>
#include <spk_reference_convert.hpp>
#include <spk_validate.hpp>

#include "spk_test_utils.hpp"

namespace {

using Space = TEST_EXECSPACE;
using Device = spk::device_t<Space>;
using HostCsr = spk::CsrMatrix<double, int, int, spk::HostDevice>;

HostCsr small_host_matrix() {
  // [ 1 0 2 ]
  // [ 0 0 0 ]
  // [ 0 3 4 ]
  return spk::reference::csr_from_rows<double, int, int>(
      3, 3, {{{0, 1.0}, {2, 2.0}}, {}, {{1, 3.0}, {2, 4.0}}});
}

template <class Fn>
void expect_invalid(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected spk::InvalidMatrix containing '" << needle << "'";
  } catch (const spk::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(TEST_CATEGORY, formats_mirror_round_trip) {
  const auto h = small_host_matrix();
  const auto d = spk::create_mirror_view_and_copy(Device(), h);
  static_assert(std::is_same_v<typename decltype(d)::memory_space, typename Device::memory_space>);
  EXPECT_EQ(d.num_rows(), 3);
  EXPECT_EQ(d.nnz(), 4);
  spk::validate(Space(), d);
  EXPECT_TRUE(spk::is_sorted_and_unique(Space(), d));
  spk_test::expect_csr_equal(spk::clone(Device(), d), h, 0, "clone");
  const auto back = spk::create_mirror_view_and_copy_host(d);
  spk_test::expect_csr_equal(back, h, 0, "round trip");
}

TEST(TEST_CATEGORY, formats_validate_reports_bad_rows) {
  auto h = spk::clone(spk::HostDevice(), small_host_matrix());
  h.col_idx()(3) = 3;  // row 2, entry 3: column 3 of a 3-column matrix
  expect_invalid([&] { spk::validate(Space(), spk::create_mirror_view_and_copy(Device(), h)); },
                 "entry 3 in row 2 has column index 3");
  h = spk::clone(spk::HostDevice(), small_host_matrix());
  h.row_map()(1) = 3;  // row pointers 0 3 2 4: decrease at row 1
  expect_invalid([&] { spk::validate(Space(), spk::create_mirror_view_and_copy(Device(), h)); },
                 "row pointers decrease at row 1");
  h = spk::clone(spk::HostDevice(), small_host_matrix());
  h.row_map()(3) = 3;
  expect_invalid([&] { spk::validate(Space(), spk::create_mirror_view_and_copy(Device(), h)); },
                 "last row pointer is 3 but the matrix has 4 entries");
  h = spk::clone(spk::HostDevice(), small_host_matrix());
  h.row_map()(0) = 1;
  expect_invalid([&] { spk::validate(Space(), spk::create_mirror_view_and_copy(Device(), h)); },
                 "row pointer 0 is 1");
}

TEST(TEST_CATEGORY, formats_is_sorted) {
  auto h = spk::clone(spk::HostDevice(), small_host_matrix());
  std::swap(h.col_idx()(2), h.col_idx()(3));
  const auto d = spk::create_mirror_view_and_copy(Device(), h);
  EXPECT_FALSE(spk::is_sorted(Space(), d));
  h.col_idx()(2) = h.col_idx()(3) = 2;  // duplicate: sorted, not unique
  const auto d2 = spk::create_mirror_view_and_copy(Device(), h);
  EXPECT_TRUE(spk::is_sorted(Space(), d2));
  EXPECT_FALSE(spk::is_sorted_and_unique(Space(), d2));
}

TEST(TEST_CATEGORY, formats_constructor_checks) {
  using Csr = spk::CsrMatrix<double, int, int, Device>;
  typename Csr::row_map_type rm("rm", 3);
  typename Csr::index_type ci("ci", 4);
  typename Csr::values_type va("va", 5);
  EXPECT_THROW(Csr(3, 3, rm, ci, va), spk::InvalidMatrix);  // row_map too short
  typename Csr::row_map_type rm4("rm", 4);
  EXPECT_THROW(Csr(3, 3, rm4, ci, va), spk::InvalidMatrix);  // col_idx / values disagree
  EXPECT_THROW(Csr("neg", -1, 3, 0), spk::InvalidMatrix);
  EXPECT_THROW((spk::CsrMatrix<double, int, int, Device>("negative nnz", 1, 1, -1)), spk::Overflow);
  EXPECT_THROW((spk::CooMatrix<double, int, int, Device>(3, 3, typename Csr::index_type("a", 2),
                                                         typename Csr::index_type("b", 3),
                                                         typename Csr::values_type("c", 2))),
               spk::InvalidMatrix);
  // 64-bit offsets: nnz() is 64-bit, so > 2^31 - 1 entries are representable.
  static_assert(std::is_same_v<
                decltype(std::declval<spk::CsrMatrix<double, int, std::int64_t, Device>>().nnz()),
                std::int64_t>);
}

TEST(TEST_CATEGORY, formats_coo_validate) {
  spk::CooMatrix<double, int, int, spk::HostDevice> h("h", 2, 2, 2);
  h.row_idx()(0) = 0, h.col_idx()(0) = 0, h.values()(0) = 1;
  h.row_idx()(1) = 1, h.col_idx()(1) = 2, h.values()(1) = 1;
  expect_invalid([&] { spk::validate(Space(), spk::create_mirror_view_and_copy(Device(), h)); },
                 "entry 1 at (1, 2) is outside the 2 x 2 matrix");
}
