// Plain serial y := α·op(A)·x + β·y on host data: the oracle spk::spmv is
// tested against.  Written for clarity, not speed.
#pragma once

#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_mirror.hpp>
#include <spk_spmv_plan.hpp>
#include <vector>

namespace spk::reference {

/// x and y: host Views of rank 1 or 2 (one column per right-hand side).
/// β = 0 ignores what y holds.  Accumulates each entry of y in row order.
template <class S, class O, class F, class D, class X, class Y>
void spmv(S alpha, const CsrMatrix<S, O, F, D>& A_in, const X& x, S beta, const Y& y,
          Mode mode = Mode::Normal) {
  auto A = create_mirror_view_and_copy_host(A_in);
  const bool t = mode == Mode::Transpose;
  const long long m = t ? A.num_cols() : A.num_rows();
  const long long n = t ? A.num_rows() : A.num_cols();
  SPK_REQUIRE(static_cast<long long>(x.extent(0)) == n &&
                  static_cast<long long>(y.extent(0)) == m && x.extent(1) == y.extent(1),
              ShapeMismatch, "reference::spmv: shapes do not fit");
  constexpr bool multi = static_cast<int>(Y::rank) == 2;
  auto X_ = [&](long long i, size_t j) -> S {
    if constexpr (multi)
      return x(i, j);
    else
      return x(i);
  };
  auto Y_ = [&](long long i, size_t j) -> S& {
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
        if (t)
          acc[c] += A.values()(k) * X_(i, j);
        else
          acc[i] += A.values()(k) * X_(c, j);
      }
    for (long long i = 0; i < m; ++i)
      Y_(i, j) = beta == S(0) ? alpha * acc[i] : alpha * acc[i] + beta * Y_(i, j);
  }
}

}  // namespace spk::reference
