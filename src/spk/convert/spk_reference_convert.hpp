// Plain serial conversions on host matrices: the oracle the parallel kernels
// are tested against, and the perf drivers' serial baseline.  Written for
// clarity; each follows the textbook serial algorithm.
#pragma once

#include <algorithm>
#include <numeric>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_mirror.hpp>
#include <vector>

namespace spk::reference {

using spk::create_mirror_view_and_copy_host;

template <class S, class O = int, class F = int>
using HostCsr = CsrMatrix<S, O, F, HostDevice>;
template <class S, class O = int, class F = int>
using HostCsc = CscMatrix<S, O, F, HostDevice>;
template <class S, class O = int, class F = int>
using HostCoo = CooMatrix<S, O, F, HostDevice>;
template <class S>
using HostDense = Kokkos::View<S**, Kokkos::LayoutRight, HostDevice>;

/// Builds a host CSR matrix from per-row (column, value) lists.
template <class S, class O, class F>
HostCsr<S, O, F> csr_from_rows(O num_rows, O num_cols,
                               const std::vector<std::vector<std::pair<O, S>>>& rows) {
  size_t nnz = 0;
  for (const auto& r : rows) nnz += r.size();
  HostCsr<S, O, F> A("reference", num_rows, num_cols, static_cast<F>(nnz));
  F k = 0;
  for (O i = 0; i < num_rows; ++i) {
    A.row_map()(i) = k;
    for (const auto& [c, v] : rows[i]) {
      A.col_idx()(k) = c;
      A.values()(k) = v;
      ++k;
    }
  }
  A.row_map()(num_rows) = k;
  return A;
}

/// COO -> CSR: entries sorted by (row, column); duplicates summed in input
/// order; explicit zeros (after summing) dropped only when asked.  The
/// textbook serial algorithm (the perf drivers' serial baseline): a counting
/// sort by row keeping input order, a stable sort of each row by column,
/// then each run of equal columns summed.
template <class S, class O, class F, class D>
HostCsr<S, O, F> coo_to_csr(const CooMatrix<S, O, F, D>& coo_in, bool drop_zeros = false) {
  auto coo = create_mirror_view_and_copy_host(coo_in);
  const size_t n = coo.nnz(), m = static_cast<size_t>(coo.num_rows());
  const auto ri = coo.row_idx();
  const auto ci = coo.col_idx();
  const auto va = coo.values();
  std::vector<size_t> start(m + 1, 0), order(n);
  for (size_t k = 0; k < n; ++k) ++start[static_cast<size_t>(ri(k)) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t k = 0; k < n; ++k) order[next[static_cast<size_t>(ri(k))]++] = k;

  std::vector<F> row_map(m + 1, 0);
  std::vector<O> cols;
  std::vector<S> vals;
  cols.reserve(n);
  vals.reserve(n);
  for (size_t i = 0; i < m; ++i) {
    const auto first = order.begin() + start[i], last = order.begin() + start[i + 1];
    std::stable_sort(first, last, [&](size_t a, size_t b) { return ci(a) < ci(b); });
    for (auto p = first; p != last;) {
      const O c = ci(*p);
      S sum = 0;
      for (; p != last && ci(*p) == c; ++p) sum += va(*p);
      if (drop_zeros && sum == S(0)) continue;
      cols.push_back(c);
      vals.push_back(sum);
    }
    row_map[i + 1] = static_cast<F>(cols.size());
  }
  HostCsr<S, O, F> A("reference", coo.num_rows(), coo.num_cols(), static_cast<F>(cols.size()));
  std::copy(row_map.begin(), row_map.end(), A.row_map().data());
  std::copy(cols.begin(), cols.end(), A.col_idx().data());
  std::copy(vals.begin(), vals.end(), A.values().data());
  return A;
}

/// Dense (rank-2 View) -> CSR keeping the entries that are not zero.
template <class O = int, class F = int, class DenseView>
auto dense_to_csr(const DenseView& dense_in) {
  using S = typename DenseView::non_const_value_type;
  auto dense = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense_in);
  std::vector<std::vector<std::pair<O, S>>> rows(dense.extent(0));
  for (size_t i = 0; i < dense.extent(0); ++i)
    for (size_t j = 0; j < dense.extent(1); ++j)
      if (dense(i, j) != S(0)) rows[i].emplace_back(static_cast<O>(j), dense(i, j));
  return csr_from_rows<S, O, F>(static_cast<O>(dense.extent(0)), static_cast<O>(dense.extent(1)),
                                rows);
}

/// CSR -> dense (duplicates summed).
template <class S, class O, class F, class D>
HostDense<S> csr_to_dense(const CsrMatrix<S, O, F, D>& A_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  HostDense<S> out("dense", A.num_rows(), A.num_cols());
  for (O i = 0; i < A.num_rows(); ++i)
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k) out(i, A.col_idx()(k)) += A.values()(k);
  return out;
}

/// CSR -> COO in row-major order.
template <class S, class O, class F, class D>
HostCoo<S, O, F> csr_to_coo(const CsrMatrix<S, O, F, D>& A_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  HostCoo<S, O, F> out("coo", A.num_rows(), A.num_cols(), A.nnz());
  for (O i = 0; i < A.num_rows(); ++i)
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      out.row_idx()(k) = i;
      out.col_idx()(k) = A.col_idx()(k);
      out.values()(k) = A.values()(k);
    }
  return out;
}

/// CSR (m × n) -> CSC (m × n): the same matrix stored by columns, row indices
/// ascending within each column (stable for duplicates).
template <class S, class O, class F, class D>
HostCsc<S, O, F> csr_to_csc(const CsrMatrix<S, O, F, D>& A_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  HostCsc<S, O, F> out("csc", A.num_rows(), A.num_cols(), A.nnz());
  auto cm = out.col_map();
  for (F k = 0; k < A.nnz(); ++k) ++cm(A.col_idx()(k) + 1);
  for (O j = 0; j < A.num_cols(); ++j) cm(j + 1) += cm(j);
  std::vector<F> next(cm.data(), cm.data() + A.num_cols());
  for (O i = 0; i < A.num_rows(); ++i)
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const F p = next[A.col_idx()(k)]++;
      out.row_idx()(p) = i;
      out.values()(p) = A.values()(k);
    }
  return out;
}

/// CSC -> CSR: columns ascending within each row.
template <class S, class O, class F, class D>
HostCsr<S, O, F> csc_to_csr(const CscMatrix<S, O, F, D>& A_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  // A CSC matrix is the CSR form of its transpose: transpose that back.
  HostCsr<S, O, F> At(A.num_cols(), A.num_rows(), A.col_map(), A.row_idx(), A.values());
  auto t = reference::csr_to_csc(At);
  return HostCsr<S, O, F>(A.num_rows(), A.num_cols(), t.col_map(), t.row_idx(), t.values());
}

/// Transpose of a CSR matrix, as CSR.
template <class S, class O, class F, class D>
HostCsr<S, O, F> transpose(const CsrMatrix<S, O, F, D>& A) {
  auto c = reference::csr_to_csc(A);
  return HostCsr<S, O, F>(A.num_cols(), A.num_rows(), c.col_map(), c.row_idx(), c.values());
}

/// A copy of A with the columns of every row sorted (stable: duplicates keep
/// their order).
template <class S, class O, class F, class D>
HostCsr<S, O, F> sort_rows(const CsrMatrix<S, O, F, D>& A_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  std::vector<std::vector<std::pair<O, S>>> rows(A.num_rows());
  for (O i = 0; i < A.num_rows(); ++i) {
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      rows[i].emplace_back(A.col_idx()(k), A.values()(k));
    std::stable_sort(rows[i].begin(), rows[i].end(),
                     [](auto& a, auto& b) { return a.first < b.first; });
  }
  return csr_from_rows<S, O, F>(A.num_rows(), A.num_cols(), rows);
}

}  // namespace spk::reference
