// Every scalar type (float, double, Kokkos::complex<float>,
// Kokkos::complex<double>) with the ordinal/offset pairs int/int,
// int/size_t and long long/long long: SpMV (every CSR algorithm, a plan,
// modes N, T and H, one and several right-hand sides) and the other
// formats' SpMV and conversions, against a host reference computed in
// complex<double> with a tolerance that follows the scalar type.  Mixed
// precision (A in one precision, x and y in another; a real A with complex
// vectors) is checked to sum in the wider type.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <spk_convert.hpp>
#include <spk_convert_bsr.hpp>
#include <spk_convert_ell.hpp>
#include <spk_convert_sell.hpp>
#include <spk_scalar_traits.hpp>
#include <spk_spgemm.hpp>
#include <spk_spmv.hpp>
#include <spk_spmv_bsr.hpp>
#include <spk_spmv_ell.hpp>
#include <spk_spmv_sell.hpp>
#include <spk_test_scalars.hpp>
#include <spk_test_utils.hpp>
#include <string>
#include <vector>

namespace {
namespace scalars_test {

using Exec = TEST_EXECSPACE;
using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
using Z = std::complex<double>;

using spk_test::epsilon;
using spk_test::from_z;
using spk_test::HostCsr;
using spk_test::random_csr;
using spk_test::random_value;
using spk_test::to_z;

/// op(A)·x in complex<double> (exact for these sizes up to rounding of
/// the double sums), and per entry the bound Σ|a||x| with the number of
/// terms, for the tolerance.
struct Reference {
  std::vector<Z> value;
  std::vector<double> magnitude;
  std::vector<int> terms;
};

template <class S, class O, class F, class XH>
Reference reference_product(const HostCsr<S, O, F>& A, spk::Mode mode, const XH& x, int j) {
  const bool t = spk::is_transposed(mode);
  const bool conj = mode == spk::Mode::ConjugateTranspose;
  const long long m = t ? A.num_cols() : A.num_rows();
  Reference r{std::vector<Z>(m), std::vector<double>(m), std::vector<int>(m)};
  for (long long i = 0; i < A.num_rows(); ++i)
    for (auto k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const long long c = A.col_idx()(k);
      Z a = to_z(A.values()(k));
      if (conj) a = std::conj(a);
      const long long out = t ? c : i, in = t ? i : c;
      const Z xv = to_z(x(in, j));
      r.value[out] += a * xv;
      r.magnitude[out] += std::abs(a) * std::abs(xv);
      r.terms[out] += 1;
    }
  return r;
}

/// Expects y = α·op(A)·x + β·y0 within the error a sum in precision `eps`
/// may make in any order: 4·(terms + 3)·eps·(|α|·Σ|a||x| + |β·y0|), plus
/// the rounding to y's own type of y and of partial results: merge path
/// stores a row split between threads in y once per piece, so a narrower y
/// rounds partial sums as large as |α|·Σ|a||x| + |β·y0|.
template <class YH, class XH, class S, class O, class F>
void expect_spmv(const HostCsr<S, O, F>& A, spk::Mode mode, Z alpha, const XH& x, Z beta,
                 const YH& y0, const YH& y, double eps, const std::string& what) {
  using YS = typename YH::non_const_value_type;
  const double y_eps = epsilon<YS>();
  int bad = 0;
  for (size_t j = 0; j < y.extent(1); ++j) {
    const Reference r = reference_product(A, mode, x, static_cast<int>(j));
    for (size_t i = 0; i < y.extent(0); ++i) {
      const Z b0 = beta == Z(0) ? Z(0) : beta * to_z(y0(i, j));
      const Z want = alpha * r.value[i] + b0;
      const double scale = std::abs(alpha) * r.magnitude[i] + std::abs(b0);
      const double tol = 4.0 * (r.terms[i] + 3) * eps * scale + 2 * y_eps * scale + 1e-300;
      const Z got = to_z(y(i, j));
      if (!(std::abs(got - want) <= tol) && ++bad <= 5)
        ADD_FAILURE() << what << ": y(" << i << ", " << j << ") = " << got << ", expected " << want
                      << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

template <class S>
Z alpha_of() {
  return spk::is_complex_v<S> ? Z(1.25, -0.5) : Z(1.25, 0);
}
template <class S>
Z beta_of() {
  return spk::is_complex_v<S> ? Z(-0.5, 0.75) : Z(-0.5, 0);
}

template <class V>
void fill_random(const V& v, std::uint64_t seed) {
  spk::Impl::SplitMix64 g(seed);
  for (size_t j = 0; j < v.extent(1); ++j)
    for (size_t i = 0; i < v.extent(0); ++i)
      v(i, j) = random_value<typename V::non_const_value_type>(g);
}

/// Runs `product(alpha, x, beta, y)` for op(A) in `mode` with `nv` right-
/// hand sides (1: rank-1 Views), β = 0 (y poisoned with NaN) and β ≠ 0,
/// and checks it against the reference.  XS, YS: the vectors' scalars.
template <class XS, class YS, class S, class O, class F, class Product>
void check_product(const HostCsr<S, O, F>& A, spk::Mode mode, int nv, double eps,
                   const std::string& what, Product&& product) {
  using XH = Kokkos::View<XS**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using YH = Kokkos::View<YS**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  const bool t = spk::is_transposed(mode);
  const long long n = t ? A.num_rows() : A.num_cols(), m = t ? A.num_cols() : A.num_rows();
  XH xh("x", n, nv);
  YH y0("y0", m, nv), yh("y", m, nv);
  fill_random(xh, 11 + nv);
  fill_random(y0, 23 + nv);
  for (const bool beta_zero : {true, false}) {
    const Z alpha = alpha_of<YS>(), beta = beta_zero ? Z(0) : beta_of<YS>();
    Kokkos::View<XS**, Kokkos::LayoutLeft, Device> x("x", n, nv);
    Kokkos::View<YS**, Kokkos::LayoutLeft, Device> y("y", m, nv);
    Kokkos::deep_copy(x, xh);
    if (beta_zero) {
      auto nan = Kokkos::create_mirror_view(y);
      const auto q = std::numeric_limits<spk::real_type_t<YS>>::quiet_NaN();
      Kokkos::deep_copy(nan, from_z<YS>(Z(q, q)));
      Kokkos::deep_copy(y, nan);
    } else {
      Kokkos::deep_copy(y, y0);
    }
    const std::string label = what + (beta_zero ? " beta=0" : " beta!=0") +
                              " nv=" + std::to_string(nv) +
                              " mode=" + std::to_string(static_cast<int>(mode));
    if (nv == 1)
      product(from_z<YS>(alpha), Kokkos::subview(x, Kokkos::ALL, 0), from_z<YS>(beta),
              Kokkos::subview(y, Kokkos::ALL, 0));
    else
      product(from_z<YS>(alpha), x, from_z<YS>(beta), y);
    Kokkos::deep_copy(yh, y);
    expect_spmv(A, mode, alpha, xh, beta, y0, yh, eps, label);
  }
}

constexpr spk::Mode all_modes[] = {spk::Mode::Normal, spk::Mode::Transpose,
                                   spk::Mode::ConjugateTranspose};

/// Options that split rows of more than 100 entries into pieces of 16.
inline spk::SpmvOptions split_options(spk::SpmvAlgorithm algorithm) {
  spk::SpmvOptions options;
  options.algorithm = algorithm;
  options.long_rows = spk::SpmvLongRows::Split;
  spk::SpmvTuning t = spk::spmv_tuning(Exec());
  t.split_row_min = 100;
  t.split_piece_nnz = 16;
  options.tuning = t;
  return options;
}

template <class Combination>
void csr_spmv_every_algorithm_and_mode() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  const auto Ah = random_csr<S, O, F>(260, 190, 9, 150, 5);
  auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  const std::vector<spk::SpmvAlgorithm> algorithms = {
      spk::SpmvAlgorithm::Auto,      spk::SpmvAlgorithm::Scalar, spk::SpmvAlgorithm::Vector,
      spk::SpmvAlgorithm::MergePath, spk::SpmvAlgorithm::Stream, spk::SpmvAlgorithm::Dynamic};
  for (const spk::Mode mode : all_modes)
    for (const int nv : {1, 3})
      for (const auto algorithm : algorithms) {
        spk::SpmvOptions options;
        options.mode = mode;
        options.algorithm = algorithm;
        check_product<S, S>(Ah, mode, nv, epsilon<S>(),
                            std::string("csr ") + spk::to_string(algorithm),
                            [&](S alpha, auto x, S beta, auto y) {
                              spk::spmv(Exec(), alpha, A, x, beta, y, options);
                            });
      }
  // The long-row split: rows of more than 100 entries in pieces of 16, under
  // each algorithm that takes it.
  for (const auto algorithm : {spk::SpmvAlgorithm::Auto, spk::SpmvAlgorithm::Scalar,
                               spk::SpmvAlgorithm::Vector, spk::SpmvAlgorithm::Stream}) {
    spk::SpmvPlan<decltype(A)> plan(Exec(), A, split_options(algorithm));
    EXPECT_GT(plan.launch().split_rows, 0) << plan.describe();
    check_product<S, S>(
        Ah, spk::Mode::Normal, 2, epsilon<S>(),
        std::string("csr split ") + spk::to_string(algorithm),
        [&](S alpha, auto x, S beta, auto y) { spk::spmv(Exec(), plan, alpha, A, x, beta, y); });
  }
  // A plan (normal mode uses it; the transposes scatter).
  for (const auto algorithm : algorithms) {
    spk::SpmvOptions options;
    options.algorithm = algorithm;
    spk::SpmvPlan<decltype(A)> plan(Exec(), A, options);
    for (const spk::Mode mode : all_modes)
      check_product<S, S>(Ah, mode, 2, epsilon<S>(),
                          std::string("csr plan ") + spk::to_string(algorithm),
                          [&](S alpha, auto x, S beta, auto y) {
                            spk::spmv(Exec(), plan, alpha, A, x, beta, y, mode);
                          });
  }
}

template <class Combination>
void other_formats_spmv_and_round_trips() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  const auto Ah = random_csr<S, O, F>(150, 170, 8, 60, 7);
  auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  const double eps = epsilon<S>();
  const auto csc = spk::csr_to_csc(Exec(), A);
  const auto coo = spk::csr_to_coo(Exec(), A);
  spk::HybOptions hyb_options;
  hyb_options.width = 3;  // most rows spill into the COO part
  const auto ell = spk::csr_to_ell(Exec(), A);
  const auto hyb = spk::csr_to_hyb(Exec(), A, hyb_options);
  const auto bsr = spk::csr_to_bsr(Exec(), A, 3);
  spk::SellOptions sell_options;
  sell_options.slice_height = 8;
  sell_options.sigma = 32;
  sell_options.spill_width = 12;  // the rows of 60 go to the spill
  const auto sell = spk::csr_to_sell(Exec(), A, sell_options);
  EXPECT_GE(sell.num_spilled(), 1);
  // Round trips: the same pattern and bit-identical values.
  spk_test::expect_csr_equal(spk::csc_to_csr(Exec(), csc), Ah, 0, "csc");
  spk_test::expect_csr_equal(spk::coo_to_csr(Exec(), coo), Ah, 0, "coo");
  spk_test::expect_csr_equal(spk::ell_to_csr(Exec(), ell), Ah, 0, "ell");
  spk_test::expect_csr_equal(spk::hyb_to_csr(Exec(), hyb), Ah, 0, "hyb");
  spk::BsrToCsrOptions drop;  // the zeros that fill the 3 × 3 blocks
  drop.drop_zeros = true;
  spk_test::expect_csr_equal(spk::bsr_to_csr(Exec(), bsr, drop), Ah, 0, "bsr");
  spk_test::expect_csr_equal(spk::sell_to_csr(Exec(), sell), Ah, 0, "sell");
  // Dense (no value is zero, so nothing is dropped) and the transpose twice.
  spk_test::expect_csr_equal(spk::dense_to_csr<O, F>(Exec(), spk::csr_to_dense(Exec(), A)), Ah, 0,
                             "dense");
  spk_test::expect_csr_equal(spk::transpose(Exec(), spk::transpose(Exec(), A)), Ah, 0,
                             "transpose twice");
  for (const spk::Mode mode : all_modes)
    for (const int nv : {1, 2}) {
      spk::SpmvOptions options;
      options.mode = mode;
      auto run = [&](const auto& M, const char* name) {
        check_product<S, S>(Ah, mode, nv, eps, name, [&](S alpha, auto x, S beta, auto y) {
          spk::spmv(Exec(), alpha, M, x, beta, y, options);
        });
      };
      run(csc, "csc");
      run(coo, "coo");
      run(ell, "ell");
      run(hyb, "hyb");
      run(bsr, "bsr");
      run(sell, "sell");
    }
}

/// A Hermitian A (B + Bᴴ): Aᴴx = Ax, and for complex scalars Aᵀx ≠ Ax.
template <class Combination>
void hermitian_matrix_conjugate_transpose() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  const auto B = random_csr<S, O, F>(90, 90, 6, 30, 13);
  // Dense B + Bᴴ (small), then back to CSR.
  const long long n = 90;
  std::vector<Z> dense(n * n);
  for (long long i = 0; i < n; ++i)
    for (auto k = B.row_map()(i); k < B.row_map()(i + 1); ++k) {
      const long long c = B.col_idx()(k);
      const Z v = to_z(B.values()(k));
      dense[i * n + c] += v;
      dense[c * n + i] += std::conj(v);
    }
  if constexpr (!spk::is_complex_v<S>)
    for (auto& v : dense) v = Z(v.real(), 0);
  long long nnz = 0;
  for (const Z& v : dense) nnz += v != Z(0);
  HostCsr<S, O, F> Ah("H", static_cast<O>(n), static_cast<O>(n), static_cast<F>(nnz));
  F k = 0;
  for (long long i = 0; i < n; ++i) {
    Ah.row_map()(i) = k;
    for (long long c = 0; c < n; ++c)
      if (dense[i * n + c] != Z(0)) {
        Ah.col_idx()(k) = static_cast<O>(c);
        Ah.values()(k++) = from_z<S>(dense[i * n + c]);
      }
  }
  Ah.row_map()(n) = k;
  auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  using V = Kokkos::View<S*, Device>;
  V x("x", n), yn("yn", n), yh("yh", n), yt("yt", n);
  auto xh = Kokkos::create_mirror_view(x);
  spk::Impl::SplitMix64 g(3);
  for (long long i = 0; i < n; ++i) xh(i) = random_value<S>(g);
  Kokkos::deep_copy(x, xh);
  spk::SpmvOptions normal, herm, trans;
  herm.mode = spk::Mode::ConjugateTranspose;
  trans.mode = spk::Mode::Transpose;
  spk::spmv(Exec(), A, x, yn, normal);
  spk::spmv(Exec(), A, x, yh, herm);
  spk::spmv(Exec(), A, x, yt, trans);
  auto n_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yn);
  auto h_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yh);
  auto t_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yt);
  double max_diff_h = 0, max_diff_t = 0, max_y = 0;
  for (long long i = 0; i < n; ++i) {
    max_diff_h = std::max(max_diff_h, std::abs(to_z(n_h(i)) - to_z(h_h(i))));
    max_diff_t = std::max(max_diff_t, std::abs(to_z(n_h(i)) - to_z(t_h(i))));
    max_y = std::max(max_y, std::abs(to_z(n_h(i))));
  }
  EXPECT_GT(max_y, 0.1);
  EXPECT_LE(max_diff_h, 200 * epsilon<S>() * max_y);
  if constexpr (spk::is_complex_v<S>) EXPECT_GT(max_diff_t, 1e-3 * max_y);
}

// Mixed precision: x and y in another precision than A (and complex
// vectors with a real A).  The sum runs in the wider type, so the error
// follows the wider type's epsilon where A's values and x are exact in it.
template <class Combination>
void mixed_precision_spmv() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  using R = spk::real_type_t<S>;
  using Other = std::conditional_t<std::is_same_v<R, float>, double, float>;
  // Vectors of the other precision, complex when A is.
  using V = std::conditional_t<spk::is_complex_v<S>, Kokkos::complex<Other>, Other>;
  const auto Ah = random_csr<S, O, F>(200, 180, 9, 120, 17);
  auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  // float A, double vectors: every value is exact in double and the sum runs
  // in double, so the double epsilon bounds the error.  double A, float
  // vectors: the sum runs in double, then y is rounded to float once (the
  // y_eps term of expect_spmv).
  const double eps = epsilon<double>();
  for (const spk::Mode mode : all_modes)
    for (const auto algorithm :
         {spk::SpmvAlgorithm::Scalar, spk::SpmvAlgorithm::MergePath, spk::SpmvAlgorithm::Vector}) {
      spk::SpmvOptions options;
      options.mode = mode;
      options.algorithm = algorithm;
      check_product<V, V>(Ah, mode, 1, eps, std::string("mixed ") + spk::to_string(algorithm),
                          [&](V alpha, auto x, V beta, auto y) {
                            spk::spmv(Exec(), alpha, A, x, beta, y, options);
                          });
    }
  {
    // The long-row split: y narrower than the sum (double A, float y) keeps
    // the split rows whole, so that y is still rounded once.
    spk::SpmvPlan<decltype(A)> plan(Exec(), A, split_options(spk::SpmvAlgorithm::Auto));
    EXPECT_GT(plan.launch().split_rows, 0) << plan.describe();
    check_product<V, V>(
        Ah, spk::Mode::Normal, 2, eps, "mixed split",
        [&](V alpha, auto x, V beta, auto y) { spk::spmv(Exec(), plan, alpha, A, x, beta, y); });
  }
  if constexpr (!spk::is_complex_v<S>) {
    // A real matrix times complex vectors of its precision.
    using C = Kokkos::complex<R>;
    for (const spk::Mode mode : all_modes)
      check_product<C, C>(Ah, mode, 2, epsilon<S>(), "real A, complex x",
                          [&](C alpha, auto x, C beta, auto y) {
                            spk::SpmvOptions options;
                            options.mode = mode;
                            spk::spmv(Exec(), alpha, A, x, beta, y, options);
                          });
  }
}

// Every test above for each type combination of this translation unit's
// part (spk_test_scalar_combinations.inc).
#define SPK_SCALAR_TESTS(S, O, F, tag)                                \
  TEST(TEST_CATEGORY, scalars_csr_spmv_##tag) {                       \
    csr_spmv_every_algorithm_and_mode<spk_test::Types<S, O, F>>();    \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_other_formats_##tag) {                  \
    other_formats_spmv_and_round_trips<spk_test::Types<S, O, F>>();   \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_hermitian_##tag) {                      \
    hermitian_matrix_conjugate_transpose<spk_test::Types<S, O, F>>(); \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_mixed_precision_##tag) {                \
    mixed_precision_spmv<spk_test::Types<S, O, F>>();                 \
  }
#include <spk_test_scalar_combinations.inc>
#undef SPK_SCALAR_TESTS

#if SPK_TEST_IN_PART(0)
/// Read-only inputs: a CsrMatrix<const S> from the caller's const Views
/// (spk::make_csr, no copy) and one converted from a mutable matrix give
/// the same SpMV (every algorithm, a plan), conversions and SpGEMM as the
/// mutable one.
TEST(TEST_CATEGORY, const_and_raw_view_inputs) {
  using S = Kokkos::complex<double>;
  const auto Ah = random_csr<S, int, int>(120, 120, 8, 40, 3);
  const auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  Kokkos::View<const int*, Device> rm = A.row_map();
  Kokkos::View<const int*, Device> ci = A.col_idx();
  Kokkos::View<const S*, Device> va = A.values();
  const auto R = spk::make_csr(A.num_cols(), rm, ci, va);
  static_assert(std::is_same_v<typename decltype(R)::scalar_type, const S>);
  EXPECT_EQ(R.num_rows(), 120);
  EXPECT_EQ(R.values().data(), A.values().data()) << "no copy";
  const spk::CsrMatrix<const S, int, int, Device> C = A;  // the read-only view
  for (const spk::Mode mode : all_modes)
    for (const auto algorithm :
         {spk::SpmvAlgorithm::Auto, spk::SpmvAlgorithm::MergePath, spk::SpmvAlgorithm::Vector}) {
      spk::SpmvOptions options;
      options.mode = mode;
      options.algorithm = algorithm;
      check_product<S, S>(Ah, mode, 2, epsilon<S>(), "const matrix",
                          [&](S alpha, auto x, S beta, auto y) {
                            spk::spmv(Exec(), alpha, R, x, beta, y, options);
                          });
      spk::SpmvPlan<spk::CsrMatrix<const S, int, int, Device>> plan(Exec(), C, options);
      check_product<S, S>(Ah, mode, 1, epsilon<S>(), "const matrix, plan",
                          [&](S alpha, auto x, S beta, auto y) {
                            spk::spmv(Exec(), plan, alpha, C, x, beta, y, mode);
                          });
    }
  // Conversions of the read-only matrix: owned, mutable results, the same
  // as the mutable matrix's (checked by their round trips back to CSR).
  const auto csc = spk::csr_to_csc(Exec(), R);
  static_assert(std::is_same_v<typename decltype(csc)::scalar_type, S>);
  spk_test::expect_csr_equal(spk::csc_to_csr(Exec(), csc), Ah, 0, "csc of const");
  spk_test::expect_csr_equal(spk::transpose(Exec(), spk::transpose(Exec(), R)), Ah, 0,
                             "transpose of const");
  spk_test::expect_csr_equal(spk::coo_to_csr(Exec(), spk::csr_to_coo(Exec(), R)), Ah, 0,
                             "coo of const");
  spk_test::expect_csr_equal(spk::ell_to_csr(Exec(), spk::csr_to_ell(Exec(), C)), Ah, 0,
                             "ell of const");
  spk_test::expect_csr_equal(spk::hyb_to_csr(Exec(), spk::csr_to_hyb(Exec(), R)), Ah, 0,
                             "hyb of const");
  spk_test::expect_csr_equal(spk::sell_to_csr(Exec(), spk::csr_to_sell(Exec(), C)), Ah, 0,
                             "sell of const");
  spk::BsrToCsrOptions drop;
  drop.drop_zeros = true;
  spk_test::expect_csr_equal(spk::bsr_to_csr(Exec(), spk::csr_to_bsr(Exec(), R, 2), drop), Ah, 0,
                             "bsr of const");
  spk_test::expect_csr_equal(spk::dense_to_csr(Exec(), spk::csr_to_dense(Exec(), R)), Ah, 0,
                             "dense of const");
  const auto product = spk::spgemm(Exec(), R, C);
  static_assert(std::is_same_v<typename decltype(product)::scalar_type, S>);
  // Within rounding, not bit for bit: the GPU's atomic sums run in any order.
  spk_test::expect_csr_equal(product, spk::spgemm(Exec(), A, A), 64 * epsilon<S>(),
                             "spgemm of const operands");
  // Bad raw input: an empty row_map names what is wrong.
  EXPECT_THROW(spk::make_csr(5, Kokkos::View<const int*, Device>(), ci, va), spk::InvalidMatrix);
}
#endif

}  // namespace scalars_test
}  // namespace
