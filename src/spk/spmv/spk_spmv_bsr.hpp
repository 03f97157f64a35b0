// y := α·op(A)·x + β·y for a BsrMatrix A (x, y: rank-1 Views, or rank-2
// Views with one column per right-hand side).
//
//   spk::spmv(space, alpha, A, x, beta, y, options)   // options.mode: A or Aᵀ
//   spk::spmv(alpha, A, x, beta, y, options)          // A's execution space
//   spk::spmv(A, x, y, options)                       // α = 1, β = 0
//
// Normal mode: on GPUs a thread per scalar row (the b threads of a block row
// read each block whole), with several lanes per row reading consecutive
// blocks when the rows are long (SpmvTuning::bsr_min_entries_per_lane,
// options.vector_length); on host spaces a thread per block row with the b
// row sums in registers.  Transposed mode scatters with atomics.  β = 0 never
// reads y.  options.algorithm is not used.
#pragma once

#include <impl/spk_spmv_bsr_kernels.hpp>
#include <spk_bsr_matrix.hpp>
#include <spk_spmv.hpp>

namespace spk {

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmv(const ExecSpace& space, typename Y::non_const_value_type alpha,
          const BsrMatrix<S, O, F, D>& A, const X& x, typename Y::non_const_value_type beta,
          const Y& y, const SpmvOptions& options = {}) {
  Impl::spmv_check<ExecSpace>(A, x, y, options.mode);
  using T = typename Y::non_const_value_type;
  if (y.extent(0) == 0 || Impl::num_vecs(y) == 0) return;
  const bool t = is_transposed(options.mode);
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, options, t)) return;
  if (alpha == T(0) || A.num_blocks() == 0 || t) Impl::spmv_scale(space, y, beta);
  if (alpha == T(0) || A.num_blocks() == 0) return;
  auto xr = Impl::spmv_random_access(x);
  using Data = Impl::SpmvBsrData<typename BsrMatrix<S, O, F, D>::row_map_type,
                                 typename BsrMatrix<S, O, F, D>::index_type,
                                 typename BsrMatrix<S, O, F, D>::values_type, decltype(xr), Y>;
  const Data d{A.row_map(),
               A.col_idx(),
               A.values(),
               xr,
               y,
               Impl::scalar_cast<typename Data::S>(alpha),
               Impl::scalar_cast<typename Data::S>(beta),
               A.num_rows(),
               A.num_cols(),
               A.num_block_rows(),
               A.block_size(),
               Impl::num_vecs(y),
               options.mode == Mode::ConjugateTranspose};
  if (t)
    Impl::spmv_bsr_transpose(space, d);
  else
    Impl::spmv_bsr_normal(
        space, d,
        Impl::format_lanes(space, options, Impl::FormatKernel::Bsr, A.num_rows(),
                           A.num_block_rows() ? double(A.num_blocks()) * A.block_size() /
                                                    double(A.num_block_rows())
                                              : 0.0));
}

template <class S, class O, class F, class D, class X, class Y>
void spmv(typename Y::non_const_value_type alpha, const BsrMatrix<S, O, F, D>& A, const X& x,
          typename Y::non_const_value_type beta, const Y& y, const SpmvOptions& options = {}) {
  spmv(typename BsrMatrix<S, O, F, D>::execution_space(), alpha, A, x, beta, y, options);
}

template <class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_view<X>::value>>
void spmv(const BsrMatrix<S, O, F, D>& A, const X& x, const Y& y, const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(typename BsrMatrix<S, O, F, D>::execution_space(), T(1), A, x, T(0), y, options);
}

template <class ExecSpace, class S, class O, class F, class D, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Kokkos::is_view<X>::value>>
void spmv(const ExecSpace& space, const BsrMatrix<S, O, F, D>& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using T = typename Y::non_const_value_type;
  spmv(space, T(1), A, x, T(0), y, options);
}

}  // namespace spk
