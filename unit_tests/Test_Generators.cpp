// Generator specs (host only: generators.*).
#include <gtest/gtest.h>

#include <spk_generators.hpp>
#include <spk_validate.hpp>

#include "spk_test_utils.hpp"

TEST(generators, poisson_hand_checked) {
  const auto A = spk::generate<double>("poisson2d:3");
  EXPECT_EQ(A.num_rows(), 9);
  EXPECT_EQ(A.nnz(), 5 * 9 - 4 * 3);
  // Centre point 4 has neighbours 1, 3, 5, 7.
  EXPECT_EQ(A.row_map()(5) - A.row_map()(4), 5);
  EXPECT_EQ(A.col_idx()(A.row_map()(4)), 1);
  EXPECT_EQ(A.values()(A.row_map()(4) + 2), 4.0);
  const auto B = spk::generate<double>("poisson3d:4");
  EXPECT_EQ(B.num_rows(), 64);
  EXPECT_EQ(B.nnz(), 7 * 64 - 6 * 16);
  spk::validate(Kokkos::DefaultHostExecutionSpace(), B);
  EXPECT_TRUE(spk::is_sorted_and_unique(Kokkos::DefaultHostExecutionSpace(), B));
}

TEST(generators, random_and_rmat_are_deterministic) {
  const auto A = spk::generate<double>("random:500:300:9:7");
  EXPECT_EQ(A.nnz(), 500 * 9);
  spk_test::expect_csr_equal(A, spk::generate<double>("random:500:300:9:7"));
  EXPECT_TRUE(spk::is_sorted_and_unique(Kokkos::DefaultHostExecutionSpace(), A));
  const auto B = spk::generate<double>("random:500:300:9:8");
  EXPECT_NE(B.col_idx()(0) * 1000 + B.col_idx()(1), A.col_idx()(0) * 1000 + A.col_idx()(1));
  const auto R = spk::generate<double>("rmat:10:8");
  EXPECT_EQ(R.num_rows(), 1024);
  EXPECT_LE(R.nnz(), 8 * 1024);
  EXPECT_GT(R.nnz(), 4 * 1024);
  spk_test::expect_csr_equal(R, spk::generate<double>("rmat:10:8:1"));
  EXPECT_TRUE(spk::is_sorted_and_unique(Kokkos::DefaultHostExecutionSpace(), R));
  // Power law: the longest row is far above the mean.
  int longest = 0;
  for (int i = 0; i < R.num_rows(); ++i)
    longest = std::max(longest, R.row_map()(i + 1) - R.row_map()(i));
  EXPECT_GT(longest, 10 * R.nnz() / R.num_rows());
}

TEST(generators, bad_specs) {
  auto expect_msg = [](const std::string& spec, const std::string& needle) {
    try {
      spk::generate<double>(spec);
      FAIL() << spec;
    } catch (const spk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg("poisson2d:x", "N = 'x' is not an integer");
  expect_msg("random:10:10", "expected random:ROWS:COLS:PER_ROW[:SEED]");
  expect_msg("rmat:-2:4", "is negative");
  expect_msg("poisson3d:2000", "does not fit the ordinal type");
  expect_msg("banded:4", "unknown generator 'banded'");
  EXPECT_TRUE(spk::is_generator_spec("rmat:4:4"));
  EXPECT_FALSE(spk::is_generator_spec("matrix.mtx"));
}
