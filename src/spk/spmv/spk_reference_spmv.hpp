// Plain serial y := α·op(A)·x + β·y on host data: the oracle spk::spmv is
// tested against.  Written for clarity, not speed.
#pragma once

#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_mirror.hpp>
#include <spk_scalar_traits.hpp>
#include <spk_spmv_plan.hpp>
#include <vector>

namespace spk::reference {

/// x and y: host Views of rank 1 or 2 (one column per right-hand side).
/// β = 0 ignores what y holds.  Accumulates each entry of y in row order,
/// in the accumulation type of spk::spmv (mixed_scalar_t), rounded once.
template <class SA, class O, class F, class D, class X, class Y>
void spmv(typename Y::non_const_value_type alpha, const CsrMatrix<SA, O, F, D>& A_in, const X& x,
          typename Y::non_const_value_type beta, const Y& y, Mode mode = Mode::Normal) {
  using YS = typename Y::non_const_value_type;
  using S = mixed_scalar_t<SA, typename X::non_const_value_type, YS>;
  using Impl::scalar_cast;
  auto A = create_mirror_view_and_copy_host(A_in);
  const bool t = is_transposed(mode);
  const bool conj = mode == Mode::ConjugateTranspose;
  const long long m = t ? A.num_cols() : A.num_rows();
  const long long n = t ? A.num_rows() : A.num_cols();
  SPK_REQUIRE(static_cast<long long>(x.extent(0)) == n &&
                  static_cast<long long>(y.extent(0)) == m && x.extent(1) == y.extent(1),
              ShapeMismatch, "reference::spmv: shapes do not fit");
  constexpr bool multi = static_cast<int>(Y::rank) == 2;
  auto X_ = [&](long long i, size_t j) -> S {
    if constexpr (multi)
      return scalar_cast<S>(x(i, j));
    else
      return scalar_cast<S>(x(i));
  };
  auto Y_ = [&](long long i, size_t j) -> YS& {
    if constexpr (multi)
      return y(i, j);
    else
      return y(i);
  };
  const size_t nv = multi ? y.extent(1) : 1;
  for (size_t j = 0; j < nv; ++j) {
    std::vector<S> acc(m, S(0));
    for (long long i = 0; i < A.num_rows(); ++i)
      for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
        const long long c = A.col_idx()(k);
        const S a = Impl::conj_if(scalar_cast<S>(A.values()(k)), conj);
        if (t)
          acc[c] += a * X_(i, j);
        else
          acc[i] += a * X_(c, j);
      }
    const S al = scalar_cast<S>(alpha), be = scalar_cast<S>(beta);
    for (long long i = 0; i < m; ++i)
      Y_(i, j) =
          scalar_cast<YS>(be == S(0) ? al * acc[i] : al * acc[i] + be * scalar_cast<S>(Y_(i, j)));
  }
}

}  // namespace spk::reference
