// Matrix Market reading and writing (host only: io.*).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <spk_generators.hpp>
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

std::string data_file(const std::string& name) {
  return spk_test::join(spk_test::data_dir(), name);
}

template <class S>
using Dense = std::vector<std::vector<S>>;

/// A small host CSR matrix as dense rows (duplicates summed by read_csr).
template <class S, class O, class F, class D>
Dense<S> dense_of(const spk::CsrMatrix<S, O, F, D>& A) {
  Dense<S> d(A.num_rows(), std::vector<S>(A.num_cols(), S(0)));
  for (long long i = 0; i < A.num_rows(); ++i)
    for (long long k = A.row_map()(i); k < static_cast<long long>(A.row_map()(i + 1)); ++k)
      d[i][A.col_idx()(k)] += A.values()(k);
  return d;
}

/// expect_error, reading into the scalar S.
template <class S>
void expect_error(const std::string& text, long long line, const std::string& needle) {
  spk_test::TempFile f;
  write_text(f, text);
  try {
    spk::read_matrix_market<S>(f.path());
    FAIL() << "expected an error containing '" << needle << "' for:\n" << text;
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.reason().find(needle), std::string::npos) << e.what();
  }
}

/// A random value of S using every mantissa bit (and a few special ones).
template <class R>
R random_real(spk::Impl::SplitMix64& rng, long long k) {
  if (k % 17 == 3) return R(0);
  if (k % 17 == 5) return -std::numeric_limits<R>::denorm_min();
  if (k % 17 == 7) return std::numeric_limits<R>::max();
  const double mag = std::ldexp(rng.uniform() + 0.5, static_cast<int>(rng.below(80)) - 40);
  return static_cast<R>(rng.below(2) ? mag : -mag);
}
template <class S>
S random_value(spk::Impl::SplitMix64& rng, long long k) {
  if constexpr (spk::Impl::is_mm_complex<S>) {
    using R = typename S::value_type;
    const R re = random_real<R>(rng, k);
    return S(re, random_real<R>(rng, k + 5));
  } else {
    return random_real<S>(rng, k);
  }
}

template <class S>
bool same_bits(const S& a, const S& b) {
  return std::memcmp(&a, &b, sizeof(S)) == 0;
}

/// Writes a random S matrix (plain and gzip) and a dense S array, and
/// expects to read back the same bits.
template <class S>
void round_trip() {
  const auto pattern = spk::generate<double>("random:60:40:5:11");
  spk::CsrMatrix<S, int, int, spk::HostDevice> A("A", pattern.num_rows(), pattern.num_cols(),
                                                 pattern.nnz());
  Kokkos::deep_copy(A.row_map(), pattern.row_map());
  Kokkos::deep_copy(A.col_idx(), pattern.col_idx());
  spk::Impl::SplitMix64 rng(42);
  for (long long k = 0; k < A.nnz(); ++k) A.values()(k) = random_value<S>(rng, k);
  const bool complex = spk::Impl::is_mm_complex<S>;
  for (const char* suffix : {".mtx", ".mtx.gz"}) {
    spk_test::TempFile f(suffix);
    spk::write_matrix_market(f.path(), A);
    EXPECT_EQ(spk::read_matrix_market_header(f.path()).field,
              complex ? spk::MatrixMarketField::Complex : spk::MatrixMarketField::Real);
    const auto B = spk::read_csr<S>(f.path());
    ASSERT_EQ(B.nnz(), A.nnz()) << suffix;
    for (long long k = 0; k < A.nnz(); ++k) {
      ASSERT_EQ(B.col_idx()(k), A.col_idx()(k));
      ASSERT_TRUE(same_bits(B.values()(k), A.values()(k))) << suffix << " value " << k;
    }
  }
  Kokkos::View<S**, Kokkos::LayoutLeft, Kokkos::HostSpace> d("d", 7, 3);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j) d(i, j) = random_value<S>(rng, i + 7 * j);
  spk_test::TempFile f(".mtx");
  spk::write_matrix_market_array(f.path(), d);
  const auto back = spk::read_dense<S>(f.path());
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j) {
      // (array zeros are not entries: a negative zero reads back as +0)
      if (spk::Impl::is_zero_value(d(i, j))) continue;
      EXPECT_TRUE(same_bits(back(i, j), d(i, j))) << i << ", " << j;
    }
}

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

TEST(io, mm_hermitian_needs_complex_field) {
  expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1,
               "hermitian symmetry needs the field 'complex', not 'real'");
  expect_error("%%MatrixMarket matrix coordinate pattern hermitian\n1 1 1\n1 1\n", 1,
               "needs the field 'complex', not 'pattern'");
}

TEST(io, mm_complex_into_real_refused_unless_real_part_asked) {
  const std::string path = data_file("complex_general.mtx");
  for (int precision = 0; precision < 2; ++precision) {
    try {
      if (precision == 0)
        spk::read_csr<float>(path);
      else
        spk::read_csr<double>(path);
      FAIL() << "a complex file read into a real matrix";
    } catch (const spk::MatrixMarketError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), 1);  // the banner, which names the field
      EXPECT_NE(e.reason().find("the field is 'complex' but the matrix's scalar type is real"),
                std::string::npos)
          << e.what();
      EXPECT_NE(e.reason().find("complex_to_real"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(spk::read_dense<double>(path), spk::MatrixMarketError);
  spk::MatrixMarketReadOptions real_part;
  real_part.complex_to_real = spk::ComplexPart::Real;
  const auto A = spk::read_csr<double>(path, real_part);
  const auto C = spk::read_csr<Kokkos::complex<double>>(path);
  ASSERT_EQ(A.nnz(), C.nnz());
  for (int k = 0; k < A.nnz(); ++k) EXPECT_EQ(A.values()(k), C.values()(k).real()) << k;
  const auto d = spk::read_dense<double>(data_file("complex_array.mtx"), real_part);
  EXPECT_EQ(d(0, 1), 2.0);
  EXPECT_EQ(d(1, 0), 2.0);
  EXPECT_EQ(d(1, 1), -3.0);
  // The real part of a hermitian matrix is symmetric.
  const auto D = dense_of(spk::read_csr<float>(data_file("complex_hermitian.mtx"), real_part));
  EXPECT_EQ(D[1][0], 1.0f);
  for (size_t i = 0; i < D.size(); ++i)
    for (size_t j = 0; j < D.size(); ++j) EXPECT_EQ(D[i][j], D[j][i]);
}

TEST(io, mm_complex_general_hand_checked) {
  using C = Kokkos::complex<double>;
  const std::string path = data_file("complex_general.mtx");
  const auto contents = spk::read_matrix_market<C>(path);
  EXPECT_EQ(contents.header.field, spk::MatrixMarketField::Complex);
  ASSERT_EQ(contents.coo.nnz(), 6);  // duplicates kept in COO
  EXPECT_EQ(contents.coo.values()(2), C(4, -1));
  const Dense<C> expected = {
      {C(1, 2), C(0), C(0, -3)}, {C(0), C(0.5), C(0)}, {C(4, -1), C(0), C(2.25, 0.75)}};
  EXPECT_EQ(dense_of(spk::read_csr<C>(path)), expected);
  using CF = Kokkos::complex<float>;
  const Dense<CF> expected_f = {
      {CF(1, 2), CF(0), CF(0, -3)}, {CF(0), CF(0.5f), CF(0)}, {CF(4, -1), CF(0), CF(2.25f, 0.75f)}};
  EXPECT_EQ(dense_of(spk::read_csr<CF>(path)), expected_f);
  // A real file reads into a complex matrix with zero imaginary parts.
  const auto R = spk::read_csr<C>(spk_test::join(spk_test::data_dir(), "LFAT5.mtx"));
  const auto Rd = spk::read_csr<double>(spk_test::join(spk_test::data_dir(), "LFAT5.mtx"));
  ASSERT_EQ(R.nnz(), Rd.nnz());
  for (int k = 0; k < R.nnz(); ++k) EXPECT_EQ(R.values()(k), C(Rd.values()(k), 0.0)) << k;
}

TEST(io, mm_complex_hermitian_and_skew_expanded) {
  using C = Kokkos::complex<double>;
  const Dense<C> hermitian = {
      {C(2), C(1, -1), C(0)}, {C(1, 1), C(3), C(0, -2)}, {C(0), C(0, 2), C(4)}};
  EXPECT_EQ(dense_of(spk::read_csr<C>(data_file("complex_hermitian.mtx"))), hermitian);
  const auto H = spk::read_csr<C>(data_file("complex_hermitian.mtx"));
  EXPECT_EQ(H.nnz(), 7);
  const Dense<C> skew = {{C(0), C(-1, -2), C(0, 3)}, {C(1, 2), C(0), C(0)}, {C(0, -3), C(0), C(0)}};
  EXPECT_EQ(dense_of(spk::read_csr<C>(data_file("complex_skew.mtx"))), skew);
  // SuiteSparse's CHOLMOD/Demo/Matrix/c.mtx: A(3, 1) = 2 - i is stored.
  const auto c = dense_of(spk::read_csr<C>(data_file("c_complex_hermitian.mtx.gz")));
  EXPECT_EQ(c[2][0], C(2, -1));
  EXPECT_EQ(c[0][2], C(2, 1));
  EXPECT_EQ(c[2][2], C(42));
  // Array storage: the lower triangle by columns, mirrored with the conjugate.
  const auto a = spk::read_dense<C>(data_file("complex_array.mtx"));
  EXPECT_EQ(a(0, 0), C(1));
  EXPECT_EQ(a(1, 0), C(2, 1));
  EXPECT_EQ(a(0, 1), C(2, -1));
  EXPECT_EQ(a(1, 1), C(-3));
  EXPECT_EQ(spk::read_csr<C>(data_file("complex_array.mtx")).nnz(), 4);
  expect_error("%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 2 0 1\n", 3,
               "skew-symmetric matrix has a nonzero diagonal entry (2, 2)", [] {
                 spk::MatrixMarketReadOptions o;
                 o.complex_to_real = spk::ComplexPart::Real;
                 return o;
               }());
}

TEST(io, mm_complex_tokens) {
  using C = Kokkos::complex<double>;
  const std::string banner = "%%MatrixMarket matrix coordinate complex general\n";
  expect_error<C>(banner + "2 2 1\n1 1 1\n", 3,
                  "complex entry has one number: expected the real and the imaginary part");
  expect_error<C>(banner + "2 2 1\n1 1 1 x\n", 3, "imaginary part: value 'x' is not a number");
  expect_error<C>(banner + "2 2 1\n1 1 1 2 3\n", 3, "unexpected text '3' after the entry");
  expect_error<C>(banner + "2 2 1\n1 1\n", 3, "missing value");
  expect_error<C>("%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 1\n3 -1e-300\n", 5,
                  "hermitian matrix has a diagonal entry (2, 2) with a nonzero imaginary part");
  // nan and inf parts are kept.
  spk_test::TempFile f;
  write_text(f, banner + "1 2 2\n1 1 nan 1\n1 2 2 -inf\n");
  const auto c = spk::read_matrix_market<C>(f.path());
  EXPECT_TRUE(std::isnan(c.coo.values()(0).real()));
  EXPECT_EQ(c.coo.values()(0).imag(), 1.0);
  EXPECT_EQ(c.coo.values()(1).imag(), -std::numeric_limits<double>::infinity());
}

TEST(io, mm_integer_and_pattern_into_every_scalar) {
  using C = Kokkos::complex<double>;
  using CF = Kokkos::complex<float>;
  const std::string integer = data_file("integer_general.mtx");
  EXPECT_EQ(dense_of(spk::read_csr<double>(integer)), (Dense<double>{{7, 0}, {-2, 16777217}}));
  // 2^24 + 1 rounds to 2^24 in float (to even), once, from the integer.
  EXPECT_EQ(dense_of(spk::read_csr<float>(integer)), (Dense<float>{{7, 0}, {-2, 16777216}}));
  EXPECT_EQ(dense_of(spk::read_csr<C>(integer)), (Dense<C>{{C(7), C(0)}, {C(-2), C(16777217)}}));
  EXPECT_EQ(dense_of(spk::read_csr<CF>(integer)),
            (Dense<CF>{{CF(7), CF(0)}, {CF(-2), CF(16777216)}}));
  const std::string pattern = data_file("pattern_symmetric.mtx");
  const Dense<double> ones = {{1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
  EXPECT_EQ(dense_of(spk::read_csr<double>(pattern)), ones);
  EXPECT_EQ(dense_of(spk::read_csr<float>(pattern)),
            (Dense<float>{{1, 1, 0}, {1, 0, 1}, {0, 1, 1}}));
  EXPECT_EQ(dense_of(spk::read_csr<C>(pattern)),
            (Dense<C>{{C(1), C(1), C(0)}, {C(1), C(0), C(1)}, {C(0), C(1), C(1)}}));
  EXPECT_EQ(spk::read_csr<CF>(pattern).nnz(), 6);
  EXPECT_EQ(spk::read_csr<CF>(pattern).values()(4), CF(1));
}

TEST(io, mm_float_values_rounded_once_from_the_text) {
  // 1 + 2^-24 + 1.1e-20: the double nearest is 1 + 2^-24, the midpoint of
  // two floats, which rounds (to even) to 1; the text is above the midpoint,
  // so its float is 1 + 2^-23.
  spk_test::TempFile f;
  write_text(f, kBanner + "1 2 2\n1 1 1.00000005960464477550\n1 2 3.5e38\n");
  const auto c = spk::read_matrix_market<float>(f.path());
  EXPECT_EQ(c.coo.values()(0), 1.0f + 0x1.0p-23f);
  // Beyond float's range but within double's: inf, as strtof reads it.
  EXPECT_EQ(c.coo.values()(1), std::numeric_limits<float>::infinity());
  const auto cf = spk::read_matrix_market<Kokkos::complex<float>>(f.path());
  EXPECT_EQ(cf.coo.values()(0).real(), 1.0f + 0x1.0p-23f);
  EXPECT_EQ(spk::read_matrix_market<double>(f.path()).coo.values()(0), 1.0 + 0x1.0p-24);
}

TEST(io, mm_write_read_round_trip_every_scalar) {
  // Random values with every mantissa bit in use: the text must read back
  // to the same bits in the matrix's own type.
  round_trip<float>();
  round_trip<double>();
  round_trip<Kokkos::complex<float>>();
  round_trip<Kokkos::complex<double>>();
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
  // Every file in small/ reads with the manifest's sizes; the complex ones
  // into complex scalars, and are refused in a real matrix.
  std::ifstream manifest(spk_test::join(spk_test::matrix_dir(), "MANIFEST.tsv"));
  std::string line;
  std::getline(manifest, line);
  int read = 0, complex = 0;
  while (std::getline(manifest, line)) {
    std::vector<std::string> col;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) col.push_back(c);
    if (col.size() < 11) continue;
    const std::string path = spk_test::join(spk_test::matrix_dir(), col[0] + ".gz");
    if (col[0].rfind("small/", 0) != 0) continue;
    auto check = [&](const auto& c) {
      EXPECT_EQ(c.coo.num_rows(), std::stoll(col[4])) << col[0];
      EXPECT_EQ(c.coo.num_cols(), std::stoll(col[5])) << col[0];
      if (!col[7].empty()) {
        EXPECT_EQ(c.coo.nnz(), std::stoll(col[7])) << col[0];
      }
    };
    if (col[0] == "small/cha_complex_hermitian.mtx") {
      // CHOLMOD's test file stores a diagonal entry 1.707 - 1i.
      try {
        spk::read_matrix_market<Kokkos::complex<double>>(path);
        ADD_FAILURE() << col[0] << ": a hermitian diagonal entry with an imaginary part";
      } catch (const spk::MatrixMarketError& e) {
        EXPECT_EQ(e.line(), 6) << e.what();
        EXPECT_NE(e.reason().find("nonzero imaginary part"), std::string::npos) << e.what();
      }
      continue;
    }
    if (col[9] == "complex") {
      EXPECT_THROW(spk::read_matrix_market<double>(path), spk::MatrixMarketError) << col[0];
      check(spk::read_matrix_market<Kokkos::complex<double>>(path));
      check(spk::read_matrix_market<Kokkos::complex<float>>(path));
      ++complex;
    } else {
      check(spk::read_matrix_market<double>(path));
    }
    ++read;
  }
  EXPECT_GT(read, 30);
  EXPECT_GT(complex, 3);
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
