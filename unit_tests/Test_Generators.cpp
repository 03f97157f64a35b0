// Generator specs (host only: generators.*).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <spk_generators.hpp>
#include <spk_reference_spgemm.hpp>
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
  expect_msg("bandit:4", "unknown generator 'bandit'");
  EXPECT_TRUE(spk::is_generator_spec("rmat:4:4"));
  EXPECT_FALSE(spk::is_generator_spec("matrix.mtx"));
}

namespace {

using HostCsr = spk::CsrMatrix<double, int, int, spk::HostDevice>;

int row_length(const HostCsr& A, int i) { return A.row_map()(i + 1) - A.row_map()(i); }

/// Value of A(i, j), or 0 when the entry is absent.
double entry(const HostCsr& A, int i, int j) {
  for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
    if (A.col_idx()(k) == j) return A.values()(k);
  return 0.0;
}

/// Every stored entry has its mirror entry with the same value.
bool is_symmetric(const HostCsr& A) {
  for (int i = 0; i < A.num_rows(); ++i)
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      if (entry(A, A.col_idx()(k), i) != A.values()(k)) return false;
  return true;
}

void expect_well_formed(const HostCsr& A) {
  spk::validate(Kokkos::DefaultHostExecutionSpace(), A);
  EXPECT_TRUE(spk::is_sorted_and_unique(Kokkos::DefaultHostExecutionSpace(), A));
  for (int k = 0; k < A.nnz(); ++k) ASSERT_NE(A.values()(k), 0.0) << "entry " << k;
}

}  // namespace

TEST(generators, stencil27_counts_and_symmetry) {
  const auto A = spk::generate<double>("stencil27:5");
  EXPECT_EQ(A.num_rows(), 125);
  EXPECT_EQ(A.nnz(), 13 * 13 * 13);  // (3N-2)^3
  expect_well_formed(A);
  EXPECT_TRUE(is_symmetric(A));
  EXPECT_EQ(row_length(A, 62), 27);  // the centre (2, 2, 2)
  EXPECT_EQ(row_length(A, 0), 8);    // a corner
  EXPECT_EQ(entry(A, 62, 62), 26.0);
  EXPECT_EQ(entry(A, 62, 62 - 25 - 5 - 1), -1.0);
  // Rows sum to zero away from the boundary (a Laplacian).
  double sum = 0;
  for (int k = A.row_map()(62); k < A.row_map()(63); ++k) sum += A.values()(k);
  EXPECT_EQ(sum, 0.0);
}

TEST(generators, fem_blocks) {
  for (const int points : {7, 27})
    for (const int k : {1, 3, 8}) {
      const std::string spec = "fem:4:" + std::to_string(k) + ":" + std::to_string(points) + ":5";
      const auto A = spk::generate<double>(spec);
      const long long node_edges = points == 7 ? 7 * 64 - 6 * 16 : 10 * 10 * 10;
      EXPECT_EQ(A.num_rows(), 64 * k) << spec;
      EXPECT_EQ(A.nnz(), node_edges * k * k) << spec;
      expect_well_formed(A);
      EXPECT_TRUE(is_symmetric(A)) << spec;
      // The k rows of a node share one pattern: dense k x k blocks.
      for (int node = 0; node < 64; ++node)
        for (int a = 1; a < k; ++a) {
          ASSERT_EQ(row_length(A, node * k + a), row_length(A, node * k));
          ASSERT_EQ(A.col_idx()(A.row_map()(node * k + a)), A.col_idx()(A.row_map()(node * k)));
        }
      // Diagonally dominant.
      for (int i = 0; i < A.num_rows(); ++i) {
        double off = 0;
        for (int t = A.row_map()(i); t < A.row_map()(i + 1); ++t)
          if (A.col_idx()(t) != i) off += std::abs(A.values()(t));
        ASSERT_GT(entry(A, i, i), off);
      }
    }
  spk_test::expect_csr_equal(spk::generate<double>("fem:3:2:27:9"),
                             spk::generate<double>("fem:3:2:27:9"));
  const auto a = spk::generate<double>("fem:3:2:27:9"), b = spk::generate<double>("fem:3:2:27:10");
  EXPECT_NE(a.values()(1), b.values()(1));
}

TEST(generators, banded_stays_in_its_band) {
  const auto A = spk::generate<double>("banded:2000:40:13:3");
  EXPECT_EQ(A.num_rows(), 2000);
  EXPECT_EQ(A.nnz(), 2000 * 13);
  expect_well_formed(A);
  for (int i = 0; i < A.num_rows(); ++i) {
    ASSERT_NE(entry(A, i, i), 0.0) << "row " << i << " lacks its diagonal";
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      ASSERT_LE(std::abs(A.col_idx()(k) - i), 40);
  }
  // A band narrower than PER_ROW: the whole band (the Fisher-Yates path).
  const auto B = spk::generate<double>("banded:50:3:13");
  EXPECT_EQ(B.nnz(), 50 * 7 - 2 * (3 + 2 + 1));
  spk_test::expect_csr_equal(A, spk::generate<double>("banded:2000:40:13:3"));
  EXPECT_FALSE(A.col_idx()(100) == spk::generate<double>("banded:2000:40:13:4").col_idx()(100) &&
               A.col_idx()(200) == spk::generate<double>("banded:2000:40:13:4").col_idx()(200) &&
               A.col_idx()(300) == spk::generate<double>("banded:2000:40:13:4").col_idx()(300));
}

TEST(generators, blockdiag_product_keeps_the_pattern) {
  const auto A = spk::generate<double>("blockdiag:100:16:2");
  EXPECT_EQ(A.nnz(), 6 * 16 * 16 + 4 * 4);  // the last block is 4 wide
  expect_well_formed(A);
  const auto C = spk::reference::spgemm(A, A);
  EXPECT_EQ(C.nnz(), A.nnz());
  EXPECT_EQ(spk::reference::spgemm_products(A, A), 6ull * 16 * 16 * 16 + 4 * 4 * 4);
  for (int i = 0; i <= A.num_rows(); ++i) ASSERT_EQ(C.row_map()(i), A.row_map()(i));
}

TEST(generators, powerlaw_rows_and_hub_columns) {
  const auto A = spk::generate<double>("powerlaw:20000:8:1.5:1.0:4");
  EXPECT_EQ(A.num_rows(), 20000);
  expect_well_formed(A);
  const double mean = double(A.nnz()) / A.num_rows();
  EXPECT_GT(mean, 5.0);
  EXPECT_LT(mean, 12.0);
  int longest = 0;
  for (int i = 0; i < A.num_rows(); ++i) longest = std::max(longest, row_length(A, i));
  EXPECT_GT(longest, 40 * mean);  // Pareto tail
  EXPECT_LE(longest, 20000 / 2);  // capped at N/2
  std::vector<int> per_col(A.num_cols(), 0);
  for (int k = 0; k < A.nnz(); ++k) ++per_col[A.col_idx()(k)];
  const int hub = *std::max_element(per_col.begin(), per_col.end());
  EXPECT_GT(hub, A.num_rows() / 20);  // a Zipf hub column: > 5% of the rows
  spk_test::expect_csr_equal(A, spk::generate<double>("powerlaw:20000:8:1.5:1.0:4"));
  EXPECT_NE(A.nnz(), spk::generate<double>("powerlaw:20000:8:1.5:1.0:5").nnz());
  // Without the Zipf skew no column is a hub.
  const auto U = spk::generate<double>("powerlaw:20000:8:3:0:4");
  std::fill(per_col.begin(), per_col.end(), 0);
  for (int k = 0; k < U.nnz(); ++k) ++per_col[U.col_idx()(k)];
  EXPECT_LT(*std::max_element(per_col.begin(), per_col.end()), 60);
}

TEST(generators, arrow_dense_rows_and_columns) {
  const auto A = spk::generate<double>("arrow:400:3:1");
  expect_well_formed(A);
  int dense_rows = 0;
  for (int i = 0; i < A.num_rows(); ++i) dense_rows += row_length(A, i) == 400;
  EXPECT_EQ(dense_rows, 3);
  std::vector<int> per_col(400, 0);
  for (int k = 0; k < A.nnz(); ++k) ++per_col[A.col_idx()(k)];
  int dense_cols = 0;
  for (int c : per_col) dense_cols += c == 400;
  EXPECT_EQ(dense_cols, 3);
  // A·A stays sparse: about 3 dense rows per dense row of A, not dense.
  const auto C = spk::reference::spgemm(A, A);
  EXPECT_LT(C.nnz(), 400 * 40);
  for (int i = 0; i < A.num_rows(); ++i) ASSERT_NE(entry(A, i, i), 0.0);
}

TEST(generators, prolongators) {
  const auto A = spk::generate<double>("poisson3d:8");
  const auto P = spk::generate<double>("prolongator:agg:poisson3d:8");
  EXPECT_EQ(P.num_rows(), A.num_rows());
  EXPECT_LT(P.num_cols(), A.num_rows() / 3);  // aggregates of several nodes
  EXPECT_EQ(P.nnz(), A.num_rows());
  expect_well_formed(P);
  // Each aggregate is non-empty and connected to its root through A.
  std::vector<int> size(P.num_cols(), 0);
  for (int i = 0; i < P.num_rows(); ++i) ++size[P.col_idx()(P.row_map()(i))];
  for (int s : size) ASSERT_GT(s, 0);
  const auto Ps = spk::generate<double>("prolongator:sa:poisson3d:8");
  EXPECT_EQ(Ps.num_cols(), P.num_cols());
  expect_well_formed(Ps);
  EXPECT_GT(Ps.nnz(), P.nnz());
  // P_sa = (I - w D^-1 A) P_agg with w = 4/(3 rho), rho = 12/6 = 2.
  auto AP = spk::reference::spgemm(A, P);
  const double w = 4.0 / 6.0;
  for (int i = 0; i < A.num_rows(); ++i)
    for (int j = 0; j < P.num_cols(); ++j) {
      const double expect = entry(P, i, j) - w / 6.0 * entry(AP, i, j);
      ASSERT_NEAR(entry(Ps, i, j), expect, 1e-14) << i << " " << j;
    }
  // The rows of a smoothed prolongator of a Laplacian sum to 1 - w (rho ...)
  // away from the boundary: the constant is preserved where A's rows sum to 0.
  double interior_sum = 0;
  const int centre = 4 * 64 + 4 * 8 + 4;
  for (int k = Ps.row_map()(centre); k < Ps.row_map()(centre + 1); ++k)
    interior_sum += Ps.values()(k);
  EXPECT_NEAR(interior_sum, 1.0, 1e-14);
}

TEST(generators, new_bad_specs) {
  auto expect_msg = [](const std::string& spec, const std::string& needle) {
    try {
      spk::generate<double>(spec);
      FAIL() << spec;
    } catch (const spk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg("stencil27:2000", "does not fit the ordinal type");
  expect_msg("stencil27:4:4", "expected stencil27:N");
  expect_msg("stencil27:1200", "do not fit the offset type");
  expect_msg("fem:4:9:27", "K = 9 must be in 1..8");
  expect_msg("fem:4:3:9", "POINTS = 9 must be 7 or 27");
  expect_msg("fem:1000:8:27", "does not fit the ordinal type");
  expect_msg("fem:3000000:8:27", "overflows");
  expect_msg("banded:10:3", "expected banded:N:BANDWIDTH:PER_ROW[:SEED]");
  expect_msg("banded:10:3:0", "PER_ROW must be at least 1");
  expect_msg("blockdiag:10:0", "BLOCK must be at least 1");
  expect_msg("blockdiag:2000000000:2000", "do not fit the offset type");
  expect_msg("blockdiag:3000000000:3000000000", "does not fit the ordinal type");
  expect_msg("powerlaw:100:8:1:1", "ALPHA = 1 must exceed 1");
  expect_msg("powerlaw:100:8:x:1", "ALPHA = 'x' is not a number");
  expect_msg("powerlaw:100:8:1.5:-1", "is negative");
  expect_msg("powerlaw:100:0.5:1.5:1", "MEAN = 0.5 must be at least 1");
  expect_msg("arrow:10:4", "N >= 8");
  // Found by fuzz_generator_spec: 1.5·10⁸ dense rows were placed before any
  // size check; now the K·N dense-row entries are checked first.
  expect_msg("arrow:022294294483406642:148672969", "overflows 64-bit integers");
  expect_msg("arrow:2000000000:100", "do not fit the offset type");
  expect_msg("arrow:222929429:4834062097140526311", "N >= 8");  // 8·K overflowed
  // Found by fuzz_generator_spec: a Pareto draw past 2^63 was cast to long
  // long (undefined); lengths are clamped in double, and the means finite.
  EXPECT_EQ(spk::generate<double>("powerlaw:7:30218446744073709551616050:52:20").nnz(), 7 * 3);
  EXPECT_THROW(spk::powerlaw<double>(100, HUGE_VAL, 1.5, 1.0), spk::Error);
  expect_msg("prolongator:foo:poisson2d:4", "expected prolongator:agg:SPEC");
  expect_msg("prolongator:sa:random:10:5:2", "not square");
  expect_msg("nosuch:4", "stencil27:N");  // the list of known specs
  for (const char* s : {"stencil27:3", "fem:2:2:7", "banded:9:1:2", "blockdiag:9:3", "arrow:64:2",
                        "powerlaw:9:2:2:1", "prolongator:agg:poisson2d:3"})
    EXPECT_TRUE(spk::is_generator_spec(s)) << s;
}

// 64-bit unsigned offsets: a count is compared with their maximum unsigned
// (a size_t maximum is no negative long long).
TEST(generators, unsigned_64_bit_offsets) {
  const auto A = spk::generate<double, int, size_t>("poisson2d:6");
  EXPECT_EQ(A.nnz(), size_t(5 * 36 - 4 * 6));
  const auto B = spk::generate<float, long long, size_t>("stencil27:3");
  EXPECT_EQ(B.nnz(), size_t(343));
}

namespace {

/// FNV-1a over the bytes of an array: a digest of a generated matrix's
/// row map, columns and values, to compare bit for bit with recorded ones.
template <class T>
std::uint64_t fnv1a(std::uint64_t h, const T* p, size_t n) {
  const unsigned char* b = reinterpret_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n * sizeof(T); ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

template <class S>
std::uint64_t digest(const std::string& spec) {
  const auto A = spk::generate<S>(spec);
  std::uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, A.row_map().data(), A.row_map().extent(0));
  h = fnv1a(h, A.col_idx().data(), A.col_idx().extent(0));
  return fnv1a(h, A.values().data(), A.values().extent(0));
}

/// Every family, with their digests in double and float as generated
/// before values= existed (int ordinals and offsets).
struct Recorded {
  const char* spec;
  std::uint64_t in_double, in_float;
};
const Recorded recorded[] = {
    {"poisson2d:7", 0xdd6404364d98c84cull, 0x11cb6c9201feed3cull},
    {"poisson3d:4", 0x575ef51f1dd5b552ull, 0x8714f8662fd6a052ull},
    {"stencil27:4", 0xcc5e9a8ed1c0361dull, 0xbc39340f909316fdull},
    {"random:200:150:7:3", 0x132a8712c1656f2cull, 0x344b624762d5aa26ull},
    {"rmat:8:4:2", 0x0f1507afea6c55a4ull, 0x4c997b79695e2280ull},
    {"fem:3:2:27:9", 0x0efff4342c12fd6aull, 0x7dd0d04a57cd30a1ull},
    {"banded:300:20:7:3", 0x2b02785ed40977d3ull, 0xb5be4fbd38bad085ull},
    {"blockdiag:50:7:2", 0x1a295116a6647354ull, 0x438edf5b97ea16b6ull},
    {"powerlaw:500:6:1.5:1.0:4", 0x69e5d42a5a6552e7ull, 0x55366488df3cc587ull},
    {"arrow:80:2:5", 0xac55cc60de66b338ull, 0x0946acc6e3312cd0ull},
    {"prolongator:agg:poisson3d:5", 0x0bf5cefcef9cec7full, 0x4530e32e62c47bafull},
    {"prolongator:sa:poisson3d:5", 0x748be93d646e220dull, 0x1353b56116d393e0ull},
};

using Z = Kokkos::complex<double>;
using ComplexCsr = spk::CsrMatrix<Z, int, int, spk::HostDevice>;

/// Value of A(i, j), or nothing when the entry is absent.
std::optional<Z> complex_entry(const ComplexCsr& A, int i, int j) {
  for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
    if (A.col_idx()(k) == j) return A.values()(k);
  return std::nullopt;
}

/// C is R with complex values by the rule of spk_generators.hpp: the same
/// pattern and moduli, both parts nonzero, phases that vary; Hermitian with
/// a real diagonal when `hermitian`.
void expect_complex_of(const ComplexCsr& C, const HostCsr& R, bool hermitian,
                       const std::string& spec) {
  spk_test::expect_csr_equal(HostCsr(R.num_rows(), R.num_cols(), C.row_map(), C.col_idx(),
                                     HostCsr::values_type("v", C.nnz())),
                             HostCsr(R.num_rows(), R.num_cols(), R.row_map(), R.col_idx(),
                                     HostCsr::values_type("v", R.nnz())),
                             0, spec + " pattern");
  std::set<double> ratios;  // tan θ, one per distinct phase
  for (int i = 0; i < R.num_rows(); ++i)
    for (int k = R.row_map()(i); k < R.row_map()(i + 1); ++k) {
      const Z z = C.values()(k);
      const double v = R.values()(k);
      const int j = R.col_idx()(k);
      ASSERT_NEAR(Kokkos::abs(z), std::abs(v), 1e-15 * std::abs(v)) << spec << " " << i << " " << j;
      if (hermitian && i == j) {
        ASSERT_EQ(z.imag(), 0.0) << spec << " diagonal " << i;
        ASSERT_EQ(z.real(), v) << spec << " diagonal " << i;
        continue;
      }
      ASSERT_GE(std::abs(z.imag()), 0.25 * std::abs(v)) << spec << " " << i << " " << j;
      ASSERT_GE(std::abs(z.real()), 0.25 * std::abs(v)) << spec << " " << i << " " << j;
      if (hermitian) {
        const auto mirror = complex_entry(C, j, i);
        ASSERT_TRUE(mirror && mirror->real() == z.real() && mirror->imag() == -z.imag())
            << spec << ": (" << i << ", " << j << ") and its mirror are not conjugates";
      }
      ratios.insert(z.imag() / z.real());
    }
  // Hermitian pairs share a |phase|; otherwise nearly every entry has its own.
  EXPECT_GT(static_cast<long long>(ratios.size()), R.nnz() / (hermitian ? 4 : 2)) << spec;
}

bool is_hermitian_family(const std::string& spec) {
  for (const char* p : {"poisson", "stencil27", "fem"})
    if (spec.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

// A real request gives the values it gave before values= existed, bit for
// bit, with or without ":values=real"; a complex scalar without
// values=complex gets them with zero imaginary parts.
TEST(generators, real_values_unchanged) {
  for (const Recorded& r : recorded) {
    const std::string spec = r.spec;
    EXPECT_EQ(digest<double>(spec), r.in_double) << spec;
    EXPECT_EQ(digest<float>(spec), r.in_float) << spec;
    EXPECT_EQ(digest<double>(spec + ":values=real"), r.in_double) << spec;
    EXPECT_EQ(spk::generator_values(spec), spk::GeneratedValues::Real);
    const auto R = spk::generate<double>(spec);
    const auto C = spk::generate<Z>(spec);
    ASSERT_EQ(C.nnz(), R.nnz()) << spec;
    for (int k = 0; k < R.nnz(); ++k)
      ASSERT_TRUE(C.values()(k).real() == R.values()(k) && C.values()(k).imag() == 0.0) << spec;
  }
}

TEST(generators, complex_values) {
  for (const Recorded& r : recorded) {
    const std::string spec = std::string(r.spec) + ":values=complex";
    EXPECT_EQ(spk::generator_values(spec), spk::GeneratedValues::Complex);
    const auto C = spk::generate<Z>(spec);
    expect_complex_of(C, spk::generate<double>(r.spec), is_hermitian_family(r.spec), spec);
    // Deterministic: the same bits again; float rounds the same values.
    spk_test::expect_csr_equal(C, spk::generate<Z>(spec), 0, spec);
    const auto Cf = spk::generate<Kokkos::complex<float>>(spec);
    ASSERT_EQ(Cf.nnz(), C.nnz());
    for (int k = 0; k < C.nnz(); ++k)
      ASSERT_NEAR(Kokkos::abs(Z(Cf.values()(k)) - C.values()(k)), 0.0,
                  1e-6 * Kokkos::abs(C.values()(k)))
          << spec;
  }
}

// The phases follow the seed: the same pattern and real matrix under two
// seeds (blockdiag's pattern does not depend on it) differ in their phases.
TEST(generators, complex_values_follow_the_seed) {
  const auto a = spk::generate<Z>("blockdiag:40:5:2:values=complex");
  const auto b = spk::generate<Z>("blockdiag:40:5:3:values=complex");
  ASSERT_EQ(a.nnz(), b.nnz());
  int same = 0;
  for (int k = 0; k < a.nnz(); ++k)  // tan θ of each entry
    same +=
        a.values()(k).imag() / a.values()(k).real() == b.values()(k).imag() / b.values()(k).real();
  EXPECT_LT(same, a.nnz() / 10);
  // The seed defaults to 1, as for the real values.
  spk_test::expect_csr_equal(spk::generate<Z>("arrow:80:2:values=complex"),
                             spk::generate<Z>("arrow:80:2:1:values=complex"));
}

TEST(generators, bad_values_specs) {
  auto expect_msg = [](auto make, const std::string& needle) {
    try {
      make();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const spk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg([] { spk::generate<Z>("poisson2d:4:values=imaginary"); },
             "generator spec 'poisson2d:4:values=imaginary': values = 'imaginary' must be real or "
             "complex");
  expect_msg([] { spk::generator_values("random:9:9:2:values="); }, "values = '' must be real");
  expect_msg([] { spk::generate<Z>("random:9:9:2:values=complex:4"); },
             "values = 'complex:4' must be real or complex");
  expect_msg([] { spk::generate<double>("poisson2d:4:values=complex"); },
             "generator spec 'poisson2d:4:values=complex': values=complex needs a complex scalar "
             "type");
  expect_msg([] { spk::generate<float>("fem:2:2:7:values=complex"); }, "not float");
  // The spec's own errors still name it, without the suffix.
  expect_msg([] { spk::generate<Z>("poisson2d:x:values=complex"); }, "N = 'x' is not an integer");
}
