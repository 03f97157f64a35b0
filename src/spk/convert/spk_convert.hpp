// Format conversions as Kokkos parallel patterns, for any execution space.
//
//   coo_to_csr     sort by (row, column), sum duplicates, optionally drop zeros
//   dense_to_csr   per-row count (team reduction), scan, ordered fill (team scan)
//   csr_to_coo     expand row pointers
//   csr_to_csc     transpose by counting + scan + scatter (+ sort per column)
//   csc_to_csr     the same, the other way round
//   transpose      CSR of Aᵀ
//   csr_to_dense   scatter into a zero-filled rank-2 View
//   sort_rows      sort each row's columns in place (stable for duplicates)
//
// Each takes the execution space instance first (optional: defaults to the
// matrix's), returns matrices in the input's memory space and throws
// spk::InvalidMatrix on out-of-range indices.
#pragma once

#include <impl/spk_convert_impl.hpp>
#include <impl/spk_csr_operand.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_validate.hpp>

namespace spk {

struct CooToCsrOptions {
  /// Drop entries that are zero after duplicates are summed.
  bool drop_zeros = false;
};

template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> coo_to_csr(const ExecSpace& space, const CooMatrix<S, O, F, D>& A,
                                 const CooToCsrOptions& options = {}) {
  Impl::check_access<ExecSpace, D>("coo_to_csr");
  validate(space, A);
  return Impl::coo_to_csr(space, A, options.drop_zeros);
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> coo_to_csr(const CooMatrix<S, O, F, D>& A,
                                 const CooToCsrOptions& options = {}) {
  return coo_to_csr(typename CooMatrix<S, O, F, D>::execution_space(), A, options);
}

/// The nonzero entries of a rank-2 View (any layout) as CSR, columns sorted.
template <class Ordinal = int, class Offset = int, class ExecSpace, class DenseView>
auto dense_to_csr(const ExecSpace& space, const DenseView& dense) {
  static_assert(Kokkos::is_view<DenseView>::value && DenseView::rank == 2,
                "dense_to_csr: the dense matrix must be a rank-2 Kokkos::View");
  Impl::check_access<ExecSpace, typename DenseView::memory_space>("dense_to_csr");
  return Impl::dense_to_csr<Ordinal, Offset>(space, dense);
}
template <class Ordinal = int, class Offset = int, class DenseView>
auto dense_to_csr(const DenseView& dense) {
  return dense_to_csr<Ordinal, Offset>(typename DenseView::execution_space(), dense);
}

template <class ExecSpace, class S, class O, class F, class D>
CooMatrix<std::remove_const_t<S>, O, F, D> csr_to_coo(const ExecSpace& space,
                                                      const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_coo");
  return Impl::csr_to_coo(space, A);
}
template <class S, class O, class F, class D>
auto csr_to_coo(const CsrMatrix<S, O, F, D>& A) {
  return csr_to_coo(typename CsrMatrix<S, O, F, D>::execution_space(), A);
}

/// CSR -> CSC; row indices ascend within each column (duplicates keep their
/// row-major order).
template <class ExecSpace, class S, class O, class F, class D>
CscMatrix<std::remove_const_t<S>, O, F, D> csr_to_csc(const ExecSpace& space,
                                                      const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_csc");
  validate(space, A);
  auto t = Impl::transpose_compressed(space, A.num_rows(), A.num_cols(), A.row_map(), A.col_idx(),
                                      A.values());
  return CscMatrix<std::remove_const_t<S>, O, F, D>(A.num_rows(), A.num_cols(), t.map, t.idx,
                                                    t.val);
}
template <class S, class O, class F, class D>
auto csr_to_csc(const CsrMatrix<S, O, F, D>& A) {
  return csr_to_csc(typename CsrMatrix<S, O, F, D>::execution_space(), A);
}

template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> csc_to_csr(const ExecSpace& space, const CscMatrix<S, O, F, D>& A) {
  Impl::check_access<ExecSpace, D>("csc_to_csr");
  validate(space, A);
  auto t = Impl::transpose_compressed(space, A.num_cols(), A.num_rows(), A.col_map(), A.row_idx(),
                                      A.values());
  return CsrMatrix<S, O, F, D>(A.num_rows(), A.num_cols(), t.map, t.idx, t.val);
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> csc_to_csr(const CscMatrix<S, O, F, D>& A) {
  return csc_to_csr(typename CscMatrix<S, O, F, D>::execution_space(), A);
}

/// Aᵀ as CSR.
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<std::remove_const_t<S>, O, F, D> transpose(const ExecSpace& space,
                                                     const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = Impl::as_operand(A_in);
  auto c = csr_to_csc(space, A);
  return CsrMatrix<std::remove_const_t<S>, O, F, D>(A.num_cols(), A.num_rows(), c.col_map(),
                                                    c.row_idx(), c.values());
}
template <class S, class O, class F, class D>
auto transpose(const CsrMatrix<S, O, F, D>& A) {
  return transpose(typename CsrMatrix<S, O, F, D>::execution_space(), A);
}

/// A as a zero-filled-then-summed dense rank-2 View (LayoutRight).
template <class ExecSpace, class S, class O, class F, class D>
Kokkos::View<std::remove_const_t<S>**, Kokkos::LayoutRight,
             typename CsrMatrix<S, O, F, D>::device_type>
csr_to_dense(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_dense");
  validate(space, A);
  return Impl::csr_to_dense(space, A);
}
template <class S, class O, class F, class D>
auto csr_to_dense(const CsrMatrix<S, O, F, D>& A) {
  return csr_to_dense(typename CsrMatrix<S, O, F, D>::execution_space(), A);
}

/// Sorts the columns of every row in place (values follow; duplicates keep
/// their relative order).
template <class ExecSpace, class S, class O, class F, class D>
void sort_rows(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  Impl::check_access<ExecSpace, D>("sort_rows");
  Impl::sort_rows(space, A.num_rows(), A.row_map(), A.col_idx(), A.values());
}
template <class S, class O, class F, class D>
void sort_rows(const CsrMatrix<S, O, F, D>& A) {
  sort_rows(typename CsrMatrix<S, O, F, D>::execution_space(), A);
}

}  // namespace spk
