// Zero-copy interoperability with KokkosSparse::CrsMatrix (needs Kokkos
// Kernels: link spk::kokkoskernels, which defines SPK_HAVE_KOKKOSKERNELS).
#pragma once

#include <memory>
#include <spk_compat.hpp>
#include <spk_csr_matrix.hpp>

#if !defined(SPK_HAVE_KOKKOSKERNELS)
#error "spk_kokkoskernels.hpp needs Kokkos Kernels: link the spk::kokkoskernels target"
#endif

namespace spk {

template <class S, class O, class F, class D>
using KokkosKernelsCrs = KokkosSparse::CrsMatrix<S, O, device_t<D>, void, F>;

/// A KokkosSparse::CrsMatrix sharing A's Views (no copy).
template <class S, class O, class F, class D>
KokkosKernelsCrs<S, O, F, D> to_kokkos_kernels(const CsrMatrix<S, O, F, D>& A) {
  return KokkosKernelsCrs<S, O, F, D>("spk", A.num_rows(), A.num_cols(), A.nnz(), A.values(),
                                      A.row_map(), A.col_idx());
}

/// A read-only CsrMatrix sharing B's Views (no copy, no cast): B may hold
/// const or mutable values; every spk operation that only reads a matrix
/// (spmv, spgemm's operands, conversions' inputs) takes the result.
template <class S, class O, class D, class MT, class F>
CsrMatrix<const std::remove_const_t<S>, O, F, D> view_kokkos_kernels(
    const KokkosSparse::CrsMatrix<S, O, D, MT, F>& B) {
  using Result = CsrMatrix<const std::remove_const_t<S>, O, F, D>;
  Result A(B.numRows(), B.numCols(), typename Result::row_map_type(B.graph.row_map),
           typename Result::index_type(B.graph.entries), typename Result::values_type(B.values));
  A.set_keep_alive(std::make_shared<KokkosSparse::CrsMatrix<S, O, D, MT, F>>(B));
  return A;
}

/// A mutable CsrMatrix sharing B's Views (no copy), for callers that
/// change the values or sort the rows in place.  Kokkos Kernels stores the
/// row map as a View of const (spk never writes it through this matrix's
/// operations: the row map of an existing matrix is only read); spk wraps
/// the same memory and keeps B alive.  view_kokkos_kernels needs no cast.
template <class S, class O, class D, class MT, class F>
CsrMatrix<S, O, F, D> from_kokkos_kernels(const KokkosSparse::CrsMatrix<S, O, D, MT, F>& B) {
  using Result = CsrMatrix<S, O, F, D>;
  const auto& rm = B.graph.row_map;
  typename Result::row_map_type row_map(const_cast<F*>(rm.data()), rm.extent(0));
  typename Result::index_type col_idx(const_cast<O*>(B.graph.entries.data()),
                                      B.graph.entries.extent(0));
  typename Result::values_type values(const_cast<S*>(B.values.data()), B.values.extent(0));
  Result A(B.numRows(), B.numCols(), row_map, col_idx, values);
  A.set_keep_alive(std::make_shared<KokkosSparse::CrsMatrix<S, O, D, MT, F>>(B));
  return A;
}

}  // namespace spk
