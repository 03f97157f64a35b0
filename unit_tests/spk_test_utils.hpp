// Helpers shared by spk's unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <spk_coo_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_generators.hpp>
#include <spk_mirror.hpp>
#include <spk_scalar_traits.hpp>
#include <spk_settings.hpp>
#include <string>
#include <utility>
#include <vector>

namespace spk_test {

/// Directory of the SuiteSparse matrices (../shared/matrices), from
/// $SPK_MATRIX_DIR or the build configuration; empty when it is missing.
inline std::string matrix_dir() {
  const char* env = spk::environment_variable("SPK_MATRIX_DIR");
  std::string dir = env && *env ? env : SPK_TEST_MATRIX_DIR;
  return std::filesystem::is_directory(dir) ? dir : std::string();
}

/// The small matrices kept in the repository (unit_tests/data), or
/// $SPK_TEST_DATA_DIR when the tests run away from the source tree.
inline std::string data_dir() {
  const char* env = spk::environment_variable("SPK_TEST_DATA_DIR");
  return env && *env ? env : SPK_TEST_DATA_DIR;
}

/// Skips the calling test when the shared matrices are not there.
#define SPK_TEST_REQUIRE_MATRIX_DIR()                                               \
  do {                                                                              \
    if (spk_test::matrix_dir().empty())                                             \
      GTEST_SKIP() << "shared matrices not found (set SPK_MATRIX_DIR to run this)"; \
  } while (0)

/// A few of the real matrices, small enough to run on every backend.
inline std::vector<std::string> real_matrix_names() {
  return {"cage10.mtx.gz",   "lhr07.mtx.gz",      "cavity21.mtx.gz",      "p2p-Gnutella04.mtx.gz",
          "Oregon-2.mtx.gz", "ca-CondMat.mtx.gz", "PGPgiantcompo.mtx.gz", "wiki-Vote.mtx.gz"};
}

/// Path of a file in a directory.
inline std::string join(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

/// (name, path) of the named matrices found in matrix_dir(); each one
/// missing is named in the test's output and its XML properties (a
/// partial copy of the matrices, as a device run carries, checks what it
/// has instead of failing to read the rest).
inline std::vector<std::pair<std::string, std::string>> present_matrices(
    const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& name : names) {
    const std::string path = join(matrix_dir(), name);
    if (std::filesystem::exists(path)) {
      found.emplace_back(name, path);
    } else {
      std::cout << "[   NOTE   ] " << name << " not in " << matrix_dir() << ": not checked\n";
      ::testing::Test::RecordProperty("missing_" + name, "not checked");
    }
  }
  return found;
}

/// A temporary file that is removed when the object goes.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix = ".mtx") {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("spk_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
                .string();
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Host COO with `nnz` random entries in a rows × cols matrix: duplicates,
/// unsorted order, empty rows (only rows < active_rows get entries) and
/// values in [-1, 1] with a few explicit zeros.
template <class S = double, class O = int, class F = int>
spk::CooMatrix<S, O, F, spk::HostDevice> random_coo(O rows, O cols, F nnz, std::uint64_t seed,
                                                    O active_rows = -1) {
  if (active_rows < 0) active_rows = rows;
  spk::CooMatrix<S, O, F, spk::HostDevice> A("random_coo", rows, cols, nnz);
  spk::Impl::SplitMix64 rng(seed);
  for (F k = 0; k < nnz; ++k) {
    A.row_idx()(k) = static_cast<O>(rng.below(active_rows));
    A.col_idx()(k) = static_cast<O>(rng.below(cols));
    const double u = rng.uniform();
    A.values()(k) = u < 0.02 ? S(0) : static_cast<S>(2 * u - 1);
  }
  return A;
}

/// Expects A and B to have the same shape and pattern, and values equal to
/// a relative tolerance (0: bitwise equal).
template <class MA, class MB>
void expect_csr_equal(const MA& A_in, const MB& B_in, double rel_tol = 0,
                      const std::string& what = "") {
  auto A = spk::create_mirror_view_and_copy_host(A_in);
  auto B = spk::create_mirror_view_and_copy_host(B_in);
  ASSERT_EQ(A.num_rows(), B.num_rows()) << what;
  ASSERT_EQ(A.num_cols(), B.num_cols()) << what;
  ASSERT_EQ(static_cast<long long>(A.nnz()), static_cast<long long>(B.nnz())) << what;
  for (long long i = 0; i <= static_cast<long long>(A.num_rows()); ++i) {
    if (A.row_map().extent(0) == 0 && B.row_map().extent(0) == 0) break;
    ASSERT_EQ(static_cast<long long>(A.row_map()(i)), static_cast<long long>(B.row_map()(i)))
        << what << " row_map(" << i << ")";
  }
  for (long long k = 0; k < static_cast<long long>(A.nnz()); ++k) {
    ASSERT_EQ(A.col_idx()(k), B.col_idx()(k)) << what << " col_idx(" << k << ")";
    if constexpr (spk::is_complex_v<typename decltype(A)::scalar_type>) {
      // Complex values: both parts, with the same rule.
      const auto za = A.values()(k), zb = B.values()(k);
      const double scale = rel_tol * std::max<double>(1.0, Kokkos::abs(zb));
      ASSERT_TRUE(rel_tol == 0 ? za == zb : Kokkos::abs(za - zb) <= scale)
          << what << " values(" << k << "): (" << za.real() << ", " << za.imag() << ") vs ("
          << zb.real() << ", " << zb.imag() << ")";
    } else {
      const double a = A.values()(k), b = B.values()(k);
      if (rel_tol == 0) {
        ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
            << what << " values(" << k << "): " << a << " vs " << b;
      } else {
        ASSERT_NEAR(a, b, rel_tol * std::max(1.0, std::abs(b))) << what << " values(" << k << ")";
      }
    }
  }
}

/// |A|: a host copy of A with the values' absolute values (for the error
/// bound of a product, expect_product_near).
template <class M>
auto abs_values(const M& A_in) {
  auto A = spk::clone(spk::HostDevice(), spk::create_mirror_view_and_copy_host(A_in));
  for (long long k = 0; k < static_cast<long long>(A.nnz()); ++k)
    A.values()(k) = std::abs(A.values()(k));
  return A;
}

/// Expects A and B (the reference) to have the same pattern and values
/// within rel_tol · max(1, bound(k)), where bound holds (|X|·|Y|) for a
/// product B = X·Y (same pattern as B): the error any summation order may
/// make, also where large terms cancel.
template <class MA, class MB, class MC>
void expect_product_near(const MA& A_in, const MB& B_in, const MC& bound_in, double rel_tol,
                         const std::string& what = "") {
  auto A = spk::create_mirror_view_and_copy_host(A_in);
  auto B = spk::create_mirror_view_and_copy_host(B_in);
  auto bound = spk::create_mirror_view_and_copy_host(bound_in);
  ASSERT_EQ(static_cast<long long>(bound.nnz()), static_cast<long long>(B.nnz())) << what;
  // Pattern first (values compared below with their own tolerance).
  auto Ap = spk::clone(spk::HostDevice(), A);
  auto Bp = spk::clone(spk::HostDevice(), B);
  Kokkos::deep_copy(Ap.values(), 0.0);
  Kokkos::deep_copy(Bp.values(), 0.0);
  expect_csr_equal(Ap, Bp, 0, what);
  for (long long k = 0; k < static_cast<long long>(A.nnz()); ++k)
    ASSERT_NEAR(A.values()(k), B.values()(k), rel_tol * std::max(1.0, bound.values()(k)))
        << what << " values(" << k << ")";
}

/// Fills a View with a value that no kernel would produce, so that entries a
/// kernel forgets to write show up.
template <class View>
void poison(const View& v) {
  using T = typename View::non_const_value_type;
  if constexpr (std::is_floating_point_v<T>)
    Kokkos::deep_copy(v, std::numeric_limits<T>::quiet_NaN());
  else
    Kokkos::deep_copy(v, static_cast<T>(-123456789 % std::numeric_limits<T>::max()));
}

}  // namespace spk_test
