// Structural checks on sparse matrices, run in parallel on the matrix's space
// (the kernels: impl/spk_format_checks.hpp).
#pragma once

#include <impl/spk_format_checks.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <string>

namespace spk {

/// Throws spk::InvalidMatrix naming the first bad row (and entry) when A's
/// row pointers are not 0 = row_map(0) <= ... <= row_map(n) = nnz or a column
/// index is outside [0, num_cols).
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  Impl::validate_compressed(space, "CsrMatrix", "row", "column", A.num_rows(), A.num_cols(),
                            A.row_map(), A.col_idx());
}
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const CscMatrix<S, O, F, D>& A) {
  Impl::validate_compressed(space, "CscMatrix", "column", "row", A.num_cols(), A.num_rows(),
                            A.col_map(), A.row_idx());
}
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const CooMatrix<S, O, F, D>& A) {
  const long long rows = A.num_rows(), cols = A.num_cols();
  auto ri = A.row_idx();
  auto ci = A.col_idx();
  const long long bad = Impl::first_bad_coo_entry(space, rows, cols, ri, ci);
  if (bad >= static_cast<long long>(ri.extent(0))) return;
  throw InvalidMatrix(Impl::concat("CooMatrix: entry ", bad, " at (", +Impl::read_element(ri, bad),
                                   ", ", +Impl::read_element(ci, bad), ") is outside the ", rows,
                                   " x ", cols, " matrix"));
}

template <class M>
void validate(const M& A) {
  validate(typename M::execution_space(), A);
}

/// Whether the column indices of every row are non-decreasing.
template <class ExecSpace, class S, class O, class F, class D>
bool is_sorted(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  return Impl::compressed_is_sorted(space, A.num_rows(), A.row_map(), A.col_idx(), false);
}
/// Whether the column indices of every row are strictly increasing (sorted,
/// no duplicates): the canonical form spk's conversions produce.
template <class ExecSpace, class S, class O, class F, class D>
bool is_sorted_and_unique(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A) {
  return Impl::compressed_is_sorted(space, A.num_rows(), A.row_map(), A.col_idx(), true);
}
template <class ExecSpace, class S, class O, class F, class D>
bool is_sorted(const ExecSpace& space, const CscMatrix<S, O, F, D>& A) {
  return Impl::compressed_is_sorted(space, A.num_cols(), A.col_map(), A.row_idx(), false);
}
template <class M>
bool is_sorted(const M& A) {
  return is_sorted(typename M::execution_space(), A);
}
template <class M>
bool is_sorted_and_unique(const M& A) {
  return is_sorted_and_unique(typename M::execution_space(), A);
}

}  // namespace spk
