// Matrix Market reading and writing (host only: io.*).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <spk_matrix_market.hpp>
#include <spk_reference_convert.hpp>
#include <sstream>

#include "spk_test_utils.hpp"

namespace {

std::string write_text(const spk_test::TempFile& f, const std::string& text) {
  std::ofstream(f.path(), std::ios::binary) << text;
  return f.path();
}

/// Expects reading `text` to throw a MatrixMarketError at `line` whose
/// message contains `needle`.
void expect_error(const std::string& text, long long line, const std::string& needle,
                  const spk::MatrixMarketReadOptions& options = {}) {
  spk_test::TempFile f;
  write_text(f, text);
  try {
    spk::read_matrix_market<double>(f.path(), options);
    FAIL() << "expected an error containing '" << needle << "' for:\n" << text;
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.file(), f.path());
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(f.path() + ":", 0), 0u) << "message names the file";
  }
}

const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

}  // namespace

TEST(io, mm_hand_checked_general) {
  spk_test::TempFile f;
  write_text(f, kBanner + "% a comment\n\n3 4 4\n1 1 1.5\n3 4 -2e3\n2 2 0\n1 1 0.5\n");
  const auto c = spk::read_matrix_market<double>(f.path());
  EXPECT_EQ(c.header.rows, 3);
  EXPECT_EQ(c.header.cols, 4);
  EXPECT_EQ(c.header.entries, 4);
  ASSERT_EQ(c.coo.nnz(), 4);  // duplicates and explicit zeros kept
  EXPECT_EQ(c.coo.row_idx()(1), 2);
  EXPECT_EQ(c.coo.col_idx()(1), 3);
  EXPECT_EQ(c.coo.values()(1), -2000.0);
  const auto A = spk::read_csr<double>(f.path());
  ASSERT_EQ(A.nnz(), 3);  // (0,0) summed to 2.0, explicit zero at (1,1) kept
  EXPECT_EQ(A.values()(0), 2.0);
  EXPECT_EQ(A.col_idx()(1), 1);
  EXPECT_EQ(A.values()(1), 0.0);
}

TEST(io, mm_symmetric_skew_pattern_integer) {
  spk_test::TempFile f;
  write_text(f, "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n2 1 -1\n3 2 4\n");
  auto A = spk::read_csr<double>(f.path());
  ASSERT_EQ(A.nnz(), 5);
  EXPECT_EQ(A.col_idx()(1), 1);  // (0,1) mirrored from (1,0)
  EXPECT_EQ(A.values()(1), -1.0);
  write_text(f, "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 3\n3 1 -5\n");
  A = spk::read_csr<double>(f.path());
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_EQ(A.values()(0), -3.0);  // (0,1) = -(1,0)
  EXPECT_EQ(A.values()(1), 5.0);   // (0,2) = -(2,0)
  write_text(f, "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n");
  A = spk::read_csr<double>(f.path());
  EXPECT_EQ(A.values()(0), 1.0);
  write_text(f, "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 3.0\n1 2 -4\n");
  A = spk::read_csr<double>(f.path());
  EXPECT_EQ(A.values()(0), 3.0);  // integral value written with decimals is accepted
}

TEST(io, mm_array_general_and_symmetric) {
  spk_test::TempFile f;
  write_text(f, "%%MatrixMarket matrix array real general\n2 3\n1\n0\n2\n3\n0\n4\n");
  const auto d = spk::read_dense<double>(f.path());
  EXPECT_EQ(d(0, 0), 1.0);
  EXPECT_EQ(d(0, 1), 2.0);
  EXPECT_EQ(d(1, 1), 3.0);
  EXPECT_EQ(d(1, 2), 4.0);
  const auto A = spk::read_csr<double>(f.path());
  EXPECT_EQ(A.nnz(), 4);  // array zeros are not entries
  write_text(f, "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  const auto s = spk::read_dense<double>(f.path());
  EXPECT_EQ(s(1, 0), 2.0);
  EXPECT_EQ(s(0, 1), 2.0);
  EXPECT_EQ(s(2, 1), 5.0);
  EXPECT_EQ(s(1, 2), 5.0);
  EXPECT_EQ(s(2, 2), 6.0);
}

TEST(io, mm_bad_banner) {
  expect_error("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "bad banner");
  expect_error("", 1, "empty file");
  expect_error("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
               "unsupported object 'vector'");
}

TEST(io, mm_unknown_format_field_symmetry) {
  expect_error("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format 'sparse'");
  expect_error("%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n", 1,
               "unknown field 'quaternion'");
  expect_error("%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n", 1,
               "unknown symmetry 'diagonal'");
}

TEST(io, mm_complex_and_hermitian_not_supported) {
  expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
               "complex matrices are not supported yet");
  expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1,
               "hermitian matrices are not supported yet");
  try {
    spk::read_matrix_market<double>(
        spk_test::join(spk_test::data_dir(), "c_complex_hermitian.mtx.gz"));
    FAIL();
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("not supported yet"), std::string::npos);
  }
}

TEST(io, mm_missing_size_line) {
  expect_error(kBanner + "% only comments\n", 3, "missing size line");
}

TEST(io, mm_bad_size_line) {
  expect_error(kBanner + "3 x 4\n", 2, "size line: 'x' is not an integer");
  expect_error(kBanner + "3 3\n", 2, "size line has too few numbers");
  expect_error(kBanner + "3 3 1 7\n", 2, "size line has too many numbers");
  expect_error(kBanner + "-3 3 1\n", 2, "negative size");
  expect_error(kBanner + "2 2 5\n", 2, "declares 5 entries for a 2 x 2 matrix");
  expect_error(kBanner + "99999999999999999999 3 1\n", 2, "not an integer (or is out of range)");
}

TEST(io, mm_sizes_overflow_types) {
  expect_error(kBanner + "3000000000 2 1\n1 1 1\n", 2, "does not fit the ordinal type int");
  spk_test::TempFile f;
  write_text(f, kBanner + "70000 70000 40000\n1 1 1\n");
  try {
    spk::read_matrix_market<double, short, int>(f.path());
    FAIL();
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit the ordinal type short"), std::string::npos)
        << e.what();
  }
  write_text(f, kBanner + "70000 70000 40000\n1 1 1\n");
  try {
    spk::read_matrix_market<double, int, short>(f.path());
    FAIL();
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("40000 entries do not fit the offset type short"),
              std::string::npos)
        << e.what();
  }
  // Symmetric expansion past the offset type.
  write_text(f, "%%MatrixMarket matrix coordinate real symmetric\n300 300 20000\n");
  {
    std::ofstream out(f.path(), std::ios::app);
    for (int i = 0, n = 0; n < 20000; ++i)
      for (int j = 0; j < i && n < 20000; ++j, ++n) out << i + 1 << ' ' << j + 1 << " 1\n";
  }
  try {
    spk::read_matrix_market<double, int, short>(f.path());
    FAIL();
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("gives 40000 entries"), std::string::npos) << e.what();
  }
}

TEST(io, mm_non_numeric_tokens) {
  expect_error(kBanner + "2 2 2\n1 1 1.0\n1 x 2.0\n", 4, "column index 'x' is not an integer");
  expect_error(kBanner + "2 2 1\n1 1 abc\n", 3, "value 'abc' is not a number");
  expect_error(kBanner + "2 2 1\n1.5 1 1\n", 3, "row index '1.5' is not an integer");
  expect_error(kBanner + "2 2 1\n1 1\n", 3, "missing value");
  expect_error(kBanner + "2 2 1\n1 1 1 9\n", 3, "unexpected text '9' after the entry");
  expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
               "integer field but value '1.5' has a fractional part");
}

TEST(io, mm_entry_count_mismatch) {
  expect_error(kBanner + "3 3 3\n1 1 1\n2 2 1\n", 5, "file ends after 2 of the 3 declared entries");
  expect_error(kBanner + "3 3 1\n1 1 1\n2 2 1\n", 4, "more entries than the 1 declared");
}

TEST(io, mm_index_out_of_range) {
  expect_error(kBanner + "3 3 2\n1 1 1\n4 1 1\n", 4,
               "entry (4, 1) is outside the 3 x 3 matrix (indices are 1-based)");
  expect_error(kBanner + "3 3 2\n1 1 1\n0 1 1\n", 4, "entry (0, 1) is outside");
  expect_error(kBanner + "3 3 1\n1 -1 1\n", 3, "entry (1, -1) is outside");
}

TEST(io, mm_drop_out_of_range_option) {
  // The serial program of the background report dropped its generator's bad
  // indices; spk does so only when asked, and says how many.
  spk_test::TempFile f;
  write_text(f, kBanner + "3 3 4\n1 0 1\n1 1 2\n3 4 1\n3 3 5\n");
  spk::MatrixMarketReadOptions opt;
  opt.drop_out_of_range = true;
  const auto c = spk::read_matrix_market<double>(f.path(), opt);
  EXPECT_EQ(c.dropped_entries, 2);
  ASSERT_EQ(c.coo.nnz(), 2);
  EXPECT_EQ(c.coo.values()(0), 2.0);
  EXPECT_EQ(c.coo.values()(1), 5.0);
}

TEST(io, mm_skew_diagonal_rejected) {
  expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n", 3,
               "nonzero diagonal entry");
}

TEST(io, mm_write_read_round_trip) {
  const auto A = spk::generate<double>("random:300:200:7:3");
  for (const char* suffix : {".mtx", ".mtx.gz"}) {
    spk_test::TempFile f(suffix);
    spk::write_matrix_market(f.path(), A);
    spk_test::expect_csr_equal(spk::read_csr<double>(f.path()), A, 0, suffix);
  }
  // Dense array round trip.
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> d("d", 3, 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) d(i, j) = 0.1 * (i + 1) - j;
  spk_test::TempFile f(".mtx");
  spk::write_matrix_market_array(f.path(), d);
  const auto back = spk::read_dense<double>(f.path());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(back(i, j), d(i, j));
}

TEST(io, mm_repository_files) {
  // name -> (rows, cols, entries after symmetric expansion), from MANIFEST.tsv
  const std::map<std::string, std::array<long long, 3>> expected = {
      {"LFAT5.mtx", {14, 14, 46}},
      {"skew_fp64.mtx", {6, 6, 20}},
      {"rza_integer_skew.mtx", {3, 3, 6}},
      {"karate.mtx", {34, 34, 156}},
      {"matrix_int32.mtx", {7, 7, 12}},
      {"west0067_jumbled.mtx", {67, 67, 294}},
      {"empty_3x4.mtx", {3, 4, 0}},
      {"synthetic_symmetric_dup.mtx", {3, 3, 6}},
      {"b1_ss.mtx", {7, 7, 15}},
      {"lp_afiro.mtx.gz", {27, 51, 102}},
      {"ash219.mtx.gz", {219, 85, 438}},
      {"football_riscv.mtx.gz", {115, 115, 1226}},
      {"west0067_with_nan.mtx.gz", {67, 67, 295}},
      {"bcsstk03.mtx.gz", {112, 112, 640}},
  };
  for (const auto& [name, e] : expected) {
    const auto c = spk::read_matrix_market<double>(spk_test::join(spk_test::data_dir(), name));
    EXPECT_EQ(c.coo.num_rows(), e[0]) << name;
    EXPECT_EQ(c.coo.num_cols(), e[1]) << name;
    EXPECT_EQ(c.coo.nnz(), e[2]) << name;
  }
  const auto i32 =
      spk::read_matrix_market<double>(spk_test::join(spk_test::data_dir(), "matrix_int32.mtx"));
  EXPECT_EQ(i32.coo.values()(0), -2147483648.0);
  EXPECT_EQ(i32.coo.values()(1), 2147483647.0);
  const auto nan =
      spk::read_csr<double>(spk_test::join(spk_test::data_dir(), "west0067_with_nan.mtx.gz"));
  bool has_nan = false;
  for (int k = 0; k < nan.nnz(); ++k) has_nan |= std::isnan(nan.values()(k));
  EXPECT_TRUE(has_nan) << "NaN entries are kept";
}

TEST(io, mm_shared_small_files) {
  SPK_TEST_REQUIRE_MATRIX_DIR();
  // Every file in small/: the real/integer/pattern ones read with the
  // manifest's sizes; complex and hermitian ones are refused by name.
  std::ifstream manifest(spk_test::join(spk_test::matrix_dir(), "MANIFEST.tsv"));
  std::string line;
  std::getline(manifest, line);
  int read = 0, refused = 0;
  while (std::getline(manifest, line)) {
    std::vector<std::string> col;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) col.push_back(c);
    if (col.size() < 11) continue;
    const std::string path = spk_test::join(spk_test::matrix_dir(), col[0] + ".gz");
    if (col[9] == "complex") {
      EXPECT_THROW(spk::read_matrix_market<double>(path), spk::MatrixMarketError) << col[0];
      ++refused;
      continue;
    }
    if (col[0].rfind("small/", 0) != 0) continue;
    const auto c = spk::read_matrix_market<double>(path);
    EXPECT_EQ(c.coo.num_rows(), std::stoll(col[4])) << col[0];
    EXPECT_EQ(c.coo.num_cols(), std::stoll(col[5])) << col[0];
    if (!col[7].empty()) {
      EXPECT_EQ(c.coo.nnz(), std::stoll(col[7])) << col[0];
    }
    ++read;
  }
  EXPECT_GT(read, 30);
  EXPECT_GT(refused, 3);
}

TEST(io, mm_shared_large_files) {
  SPK_TEST_REQUIRE_MATRIX_DIR();
  const std::map<std::string, std::array<long long, 3>> expected = {
      {"cage10.mtx.gz", {11397, 11397, 150645}}, {"delaunay_n16.mtx.gz", {65536, 65536, 393150}},
      {"ct2010.mtx.gz", {67578, 67578, 336352}}, {"Maragal_6.mtx.gz", {21255, 10152, 537694}},
      {"cavity21.mtx.gz", {4562, 4562, 138187}},
  };
  for (const auto& [name, e] : expected) {
    const auto A = spk::read_csr<double>(spk_test::join(spk_test::matrix_dir(), name));
    EXPECT_EQ(A.num_rows(), e[0]) << name;
    EXPECT_EQ(A.num_cols(), e[1]) << name;
    EXPECT_EQ(A.nnz(), e[2]) << name;  // no duplicates in these files
    // Round trip through spk's writer (gzip) and reader.
    spk_test::TempFile f(".mtx.gz");
    spk::write_matrix_market(f.path(), A);
    spk_test::expect_csr_equal(spk::read_csr<double>(f.path()), A, 0, name + " round trip");
  }
}
