// Scalar-type helpers shared by the scalar tests (Test_Scalars.hpp,
// Test_ScalarsSpgemm.hpp): the type combinations, conversions to and from
// std::complex<double> (the references' type), random values with both
// parts nonzero, and random CSR matrices with empty, long and dense rows.
// Nothing here depends on a backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <spk_csr_matrix.hpp>
#include <spk_generators.hpp>
#include <spk_scalar_traits.hpp>
#include <vector>

// A test body split over several translation units (unit_tests/CMakeLists.txt
// compiles it SPK_TEST_PARTS times, with SPK_TEST_PART = 0, 1, ...) compiles
// its k-th piece in part k % SPK_TEST_PARTS; unsplit, every piece.
#if defined(SPK_TEST_PARTS)
#define SPK_TEST_IN_PART(k) ((k) % SPK_TEST_PARTS == SPK_TEST_PART)
#else
#define SPK_TEST_IN_PART(k) 1
#endif

namespace spk_test {

using Z = std::complex<double>;

/// A type combination of the scalar tests (spk_test_scalar_combinations.inc
/// lists them).
template <class S, class O, class F>
struct Types {
  using scalar = S;
  using ordinal = O;
  using offset = F;
};

template <class S>
Z to_z(const S& v) {
  if constexpr (spk::is_complex_v<S>)
    return Z(v.real(), v.imag());
  else
    return Z(static_cast<double>(v), 0.0);
}

template <class S>
S from_z(const Z& z) {
  if constexpr (spk::is_complex_v<S>)
    return S(static_cast<spk::real_type_t<S>>(z.real()),
             static_cast<spk::real_type_t<S>>(z.imag()));
  else
    return static_cast<S>(z.real());
}

/// A value with both parts in ±[0.1, 1] (real types: the real part), never
/// zero, so that a kernel dropping the imaginary part or a conjugation
/// shows.
template <class S>
S random_value(spk::Impl::SplitMix64& g) {
  auto part = [&] {
    const double u = g.uniform();
    return u < 0.5 ? -0.1 - 1.8 * u : 0.1 + 1.8 * (u - 0.5);
  };
  const double re = part(), im = part();
  return from_z<S>(Z(re, im));
}

template <class S>
double epsilon() {
  return std::numeric_limits<spk::real_type_t<S>>::epsilon();
}

template <class S, class O, class F>
using HostCsr = spk::CsrMatrix<S, O, F, spk::HostDevice>;

/// rows × cols whose row i has length_of(i, g) entries (at most cols):
/// sorted distinct columns and random_value values, all drawn from g.
template <class S, class O, class F, class LengthOf>
HostCsr<S, O, F> random_csr_of_lengths(long long rows, long long cols, spk::Impl::SplitMix64& g,
                                       const LengthOf& length_of) {
  std::vector<std::vector<long long>> pattern(rows);
  for (long long i = 0; i < rows; ++i) {
    const long long len = std::min<long long>(length_of(i, g), cols);
    std::vector<char> used(cols, 0);
    while (static_cast<long long>(pattern[i].size()) < len) {
      const long long c = static_cast<long long>(g.below(cols));
      if (!used[c]) used[c] = 1, pattern[i].push_back(c);
    }
    std::sort(pattern[i].begin(), pattern[i].end());
  }
  long long nnz = 0;
  for (const auto& r : pattern) nnz += static_cast<long long>(r.size());
  HostCsr<S, O, F> A("A", static_cast<O>(rows), static_cast<O>(cols), static_cast<F>(nnz));
  F k = 0;
  for (long long i = 0; i < rows; ++i) {
    A.row_map()(i) = k;
    for (long long c : pattern[i]) {
      A.col_idx()(k) = static_cast<O>(c);
      A.values()(k) = random_value<S>(g);
      ++k;
    }
  }
  A.row_map()(rows) = k;
  return A;
}

/// rows × cols with 0..max_len entries a row (every 7th row from row 3
/// empty), row 1 of `long_len` entries (a long row for the vector, stream,
/// merge-path and long-row paths), row 0 dense when `dense_row` (every
/// column), sorted distinct columns and random_value values.
template <class S, class O, class F>
HostCsr<S, O, F> random_csr(long long rows, long long cols, int max_len, long long long_len,
                            std::uint64_t seed, bool dense_row = false) {
  spk::Impl::SplitMix64 g(seed);
  return random_csr_of_lengths<S, O, F>(rows, cols, g, [&](long long i, spk::Impl::SplitMix64& r) {
    long long len = i == 1 ? long_len : static_cast<long long>(r.below(max_len + 1));
    if (i == 0 && dense_row) len = cols;
    if (i % 7 == 3) len = 0;
    return len;
  });
}

}  // namespace spk_test
