// y := α·op(A)·x + β·y for a SellMatrix A (x, y: rank-1 Views, or rank-2
// Views with one column per right-hand side); the same overloads as
// spk_spmv.hpp.  y is read and written in the original row order (through
// the matrix's perm).
//
// Normal mode: on GPUs a thread per row, a warp per slice when C = 32
// (options.vector_length > 1 gives a row that many lanes); on host spaces a
// thread per slice.  The spill's rows are cut into pieces of
// SpmvTuning::sell_spill_chunk_nnz entries, a lane group each; the pieces
// of a row cut in several add to y atomically, so such a row's last bits
// can differ from run to run.  Transposed mode scatters with atomics.  β = 0
// never reads y.  options.algorithm is not used.
#pragma once

#include <impl/spk_spmv_padded_kernels.hpp>
#include <spk_sell_matrix.hpp>
#include <spk_spmv.hpp>

namespace spk {

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmv(const ExecSpace& space, typename Y::non_const_value_type alpha,
          const SellMatrix<S, O, F, D>& A, const X& x, typename Y::non_const_value_type beta,
          const Y& y, const SpmvOptions& options = {}) {
  Impl::spmv_check<ExecSpace>(A, x, y, options.mode);
  using T = typename Y::non_const_value_type;
  using M = SellMatrix<S, O, F, D>;
  if (y.extent(0) == 0 || Impl::num_vecs(y) == 0) return;
  const bool t = is_transposed(options.mode);
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, options, t)) return;
  if (alpha == T(0) || A.nnz() == 0 || t) Impl::spmv_scale(space, y, beta);
  if (alpha == T(0) || A.nnz() == 0) return;
  auto xr = Impl::spmv_random_access(x);
  const Impl::SellSpillTuning spill = Impl::sell_spill_tuning(space, options);
  using Data = Impl::SpmvSellData<typename M::index_type, typename M::slice_ptr_type,
                                  typename M::index_type, typename M::values_type, decltype(xr), Y>;
  using Acc = typename Data::S;
  const Data d{A.perm(),
               A.slice_ptr(),
               A.col_idx(),
               A.values(),
               xr,
               y,
               Impl::scalar_cast<Acc>(alpha),
               Impl::scalar_cast<Acc>(beta),
               A.num_positions(),
               A.slice_height(),
               Impl::num_vecs(y),
               options.mode == Mode::ConjugateTranspose,
               A.spill_rows(),
               A.spill_ptr(),
               A.spill_col_idx(),
               A.spill_values(),
               A.num_spilled(),
               spill.chunk_nnz,
               spill.lanes,
               spill.team_threads};
  if (t) {
    Impl::spmv_sell_transpose(space, d);
    Impl::spmv_sell_spill_transpose(space, d);
  } else {
    Impl::spmv_sell_normal(
        space, d,
        Impl::format_lanes(space, options, Impl::FormatKernel::Sell, A.num_positions(), 0.0));
    Impl::spmv_sell_spill_normal(space, d);
  }
}

template <class S, class O, class F, class D, class X, class Y>
void spmv(typename Y::non_const_value_type alpha, const SellMatrix<S, O, F, D>& A, const X& x,
          typename Y::non_const_value_type beta, const Y& y, const SpmvOptions& options = {}) {
  spmv(typename SellMatrix<S, O, F, D>::execution_space(), alpha, A, x, beta, y, options);
}

template <class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_view<X>::value>>
void spmv(const SellMatrix<S, O, F, D>& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(typename SellMatrix<S, O, F, D>::execution_space(), T(1), A, x, T(0), y, options);
}

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Kokkos::is_view<X>::value>>
void spmv(const ExecSpace& space, const SellMatrix<S, O, F, D>& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(space, T(1), A, x, T(0), y, options);
}

}  // namespace spk
