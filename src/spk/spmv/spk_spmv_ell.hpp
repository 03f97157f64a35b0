// y := α·op(A)·x + β·y for an EllMatrix or HybMatrix A (x, y: rank-1 Views,
// or rank-2 Views with one column per right-hand side); the same overloads
// as spk_spmv.hpp.
//
// ELL: one thread per row over the column-major slots, stopping at the
// row's padding; on GPUs several lanes per row when every row fits on the
// device at once and the width is long (SpmvTuning::padded_*, or
// options.vector_length).  HYB: the ELL product (β applied there), then the COO spill
// added with atomics.  Transposed mode scatters.  β = 0 never reads y.
// options.algorithm is not used.
#pragma once

#include <impl/spk_spmv_padded_kernels.hpp>
#include <spk_ell_matrix.hpp>
#include <spk_hyb_matrix.hpp>
#include <spk_spmv.hpp>

namespace spk {
namespace Impl {

template <class ExecSpace, class S, class O, class F, class D, class X, class Y>
void spmv_ell_part(const ExecSpace& space, typename Y::non_const_value_type alpha,
                   const EllMatrix<S, O, F, D>& A, const X& x,
                   typename Y::non_const_value_type beta, const Y& y, bool transpose, bool conj,
                   const SpmvOptions& options) {
  auto xr = spmv_random_access(x);
  using M = EllMatrix<S, O, F, D>;
  using Data = SpmvEllData<typename M::index_type, typename M::values_type, decltype(xr), Y>;
  using T = typename Data::S;
  const Data d{A.col_idx(),          A.values(),   xr,        y,           scalar_cast<T>(alpha),
               scalar_cast<T>(beta), A.num_rows(), A.width(), num_vecs(y), conj};
  if (transpose)
    spmv_ell_transpose(space, d);
  else
    spmv_ell_normal(space, d,
                    format_lanes(space, options, FormatKernel::Ell, A.num_rows(), A.width()));
}

}  // namespace Impl

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmv(const ExecSpace& space, typename Y::non_const_value_type alpha,
          const EllMatrix<S, O, F, D>& A, const X& x, typename Y::non_const_value_type beta,
          const Y& y, const SpmvOptions& options = {}) {
  Impl::spmv_check<ExecSpace>(A, x, y, options.mode);
  using T = typename Y::non_const_value_type;
  if (y.extent(0) == 0 || Impl::num_vecs(y) == 0) return;
  const bool t = is_transposed(options.mode);
  const bool conj = options.mode == Mode::ConjugateTranspose;
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, options, t)) return;
  if (alpha == T(0) || A.nnz() == 0 || t) Impl::spmv_scale(space, y, beta);
  if (alpha == T(0) || A.nnz() == 0) return;
  Impl::spmv_ell_part(space, alpha, A, x, beta, y, t, conj, options);
}

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmv(const ExecSpace& space, typename Y::non_const_value_type alpha,
          const HybMatrix<S, O, F, D>& A, const X& x, typename Y::non_const_value_type beta,
          const Y& y, const SpmvOptions& options = {}) {
  Impl::spmv_check<ExecSpace>(A, x, y, options.mode);
  using T = typename Y::non_const_value_type;
  if (y.extent(0) == 0 || Impl::num_vecs(y) == 0) return;
  const bool t = is_transposed(options.mode);
  const bool conj = options.mode == Mode::ConjugateTranspose;
  // The COO part scatters in both modes.
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, options,
                                         t || A.coo().nnz() > 0))
    return;
  const bool ell_rows = A.ell().nnz() > 0 && !t;
  if (alpha == T(0) || !ell_rows) Impl::spmv_scale(space, y, beta);
  if (alpha == T(0)) return;
  if (A.ell().nnz() > 0) Impl::spmv_ell_part(space, alpha, A.ell(), x, beta, y, t, conj, options);
  if (A.coo().nnz() == 0) return;
  const auto& c = A.coo();
  auto xr = Impl::spmv_random_access(x);
  if (t)
    Impl::spmv_coo(space, c.col_idx(), c.row_idx(), c.values(), xr, y, alpha, conj);
  else
    Impl::spmv_coo(space, c.row_idx(), c.col_idx(), c.values(), xr, y, alpha, false);
}

template <class S, class O, class F, class D, class X, class Y>
void spmv(typename Y::non_const_value_type alpha, const EllMatrix<S, O, F, D>& A, const X& x,
          typename Y::non_const_value_type beta, const Y& y, const SpmvOptions& options = {}) {
  spmv(typename EllMatrix<S, O, F, D>::execution_space(), alpha, A, x, beta, y, options);
}
template <class S, class O, class F, class D, class X, class Y>
void spmv(typename Y::non_const_value_type alpha, const HybMatrix<S, O, F, D>& A, const X& x,
          typename Y::non_const_value_type beta, const Y& y, const SpmvOptions& options = {}) {
  spmv(typename HybMatrix<S, O, F, D>::execution_space(), alpha, A, x, beta, y, options);
}
template <class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_view<X>::value>>
void spmv(const EllMatrix<S, O, F, D>& A, const X& x, const Y& y, const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(typename EllMatrix<S, O, F, D>::execution_space(), T(1), A, x, T(0), y, options);
}
template <class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_view<X>::value>>
void spmv(const HybMatrix<S, O, F, D>& A, const X& x, const Y& y, const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(typename HybMatrix<S, O, F, D>::execution_space(), T(1), A, x, T(0), y, options);
}

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Kokkos::is_view<X>::value>>
void spmv(const ExecSpace& space, const EllMatrix<S, O, F, D>& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(space, T(1), A, x, T(0), y, options);
}

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Kokkos::is_view<X>::value>>
void spmv(const ExecSpace& space, const HybMatrix<S, O, F, D>& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(space, T(1), A, x, T(0), y, options);
}

}  // namespace spk
