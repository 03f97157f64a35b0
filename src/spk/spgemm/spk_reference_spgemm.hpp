// Sparse matrix products outside the main kernels:
// - spk::reference::spgemm: serial Gustavson on host matrices, the oracle
//   every backend is tested against (written for clarity, not speed);
// - spk::baseline::spgemm_dot: the historical CSR × CSC row-by-column
//   dot-product algorithm, parallel over rows of C;
// - spk::baseline::spgemm_dense_output: the historical dense-output
//   algorithm (one thread per entry of C into a dense m × n array, then
//   compressed); small sizes only.
// The baselines are kept for the comparison in perf_spgemm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <impl/spk_spgemm_baselines.hpp>
#include <impl/spk_spgemm_common.hpp>
#include <limits>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_mirror.hpp>
#include <vector>

namespace spk {

namespace reference {

/// C = A·B by Gustavson's row-wise algorithm: rows of C in order, columns
/// sorted, every product that lands on (i, j) kept (even if it sums to zero).
template <class S, class O, class F, class DA, class DB>
CsrMatrix<S, O, F, HostDevice> spgemm(const CsrMatrix<S, O, F, DA>& A_in,
                                      const CsrMatrix<S, O, F, DB>& B_in) {
  Impl::require_product_shapes(A_in, B_in, "spk::reference::spgemm");
  auto A = create_mirror_view_and_copy_host(A_in);
  auto B = create_mirror_view_and_copy_host(B_in);
  const O m = A.num_rows(), n = B.num_cols();
  std::vector<S> acc(static_cast<size_t>(n), S(0));
  std::vector<char> used(static_cast<size_t>(n), 0);
  std::vector<O> cols;
  std::vector<O> all_cols;
  std::vector<S> all_vals;
  std::vector<std::uint64_t> row_ptr(static_cast<size_t>(m) + 1, 0);
  std::uint64_t products = 0;
  for (O i = 0; i < m; ++i) {
    cols.clear();
    for (auto ka = A.row_map()(i); ka < A.row_map()(i + 1); ++ka) {
      const O k = A.col_idx()(ka);
      const S a = A.values()(ka);
      for (auto kb = B.row_map()(k); kb < B.row_map()(k + 1); ++kb) {
        const O j = B.col_idx()(kb);
        if (!used[j]) {
          used[j] = 1;
          acc[j] = S(0);
          cols.push_back(j);
        }
        acc[j] += a * B.values()(kb);
        ++products;
      }
    }
    std::sort(cols.begin(), cols.end());
    for (O j : cols) {
      all_cols.push_back(j);
      all_vals.push_back(acc[j]);
      used[j] = 0;
    }
    row_ptr[i + 1] = all_cols.size();
  }
  Impl::require_fits_offset<F>(all_cols.size(), products, "spk::reference::spgemm");
  CsrMatrix<S, O, F, HostDevice> C("reference_spgemm", m, n, static_cast<F>(all_cols.size()));
  for (size_t i = 0; i <= static_cast<size_t>(m); ++i) C.row_map()(i) = static_cast<F>(row_ptr[i]);
  std::copy(all_cols.begin(), all_cols.end(), C.col_idx().data());
  std::copy(all_vals.begin(), all_vals.end(), C.values().data());
  return C;
}

/// Number of scalar products of A·B (flops = 2·products).
template <class S, class O, class F, class DA, class DB>
std::uint64_t spgemm_products(const CsrMatrix<S, O, F, DA>& A_in,
                              const CsrMatrix<S, O, F, DB>& B_in) {
  auto A = create_mirror_view_and_copy_host(A_in);
  auto B = create_mirror_view_and_copy_host(B_in);
  std::uint64_t p = 0;
  for (F ka = 0; ka < A.nnz(); ++ka) {
    const O k = A.col_idx()(ka);
    p += static_cast<std::uint64_t>(B.row_map()(k + 1) - B.row_map()(k));
  }
  return p;
}

}  // namespace reference

namespace baseline {

/// C = A·B with B given in CSC: entry (i, j) is the sparse dot product of
/// row i of A and column j of B (both sorted), for every j.  Two passes
/// (count, then fill), parallel over rows; O(m·n·(row + column length)).
/// A's rows and B's columns must be sorted.
template <class ExecSpace, class S, class O, class F, class DA, class DB>
CsrMatrix<S, O, F, device_t<ExecSpace>> spgemm_dot(const ExecSpace& space,
                                                   const CsrMatrix<S, O, F, DA>& A,
                                                   const CscMatrix<S, O, F, DB>& B) {
  return Impl::baseline_spgemm_dot(space, A, B);
}

/// C = A·B through a dense m × n array: one thread per entry of C runs the
/// dot product of row i of A (CSR) and column j of B (CSC), then the array
/// is compressed.  Entries that sum to exactly zero are dropped (the dense
/// array cannot tell them from absent ones).  Throws spk::Error when the
/// dense array would exceed max_bytes.
template <class ExecSpace, class S, class O, class F, class DA, class DB>
CsrMatrix<S, O, F, device_t<ExecSpace>> spgemm_dense_output(const ExecSpace& space,
                                                            const CsrMatrix<S, O, F, DA>& A,
                                                            const CscMatrix<S, O, F, DB>& B,
                                                            std::size_t max_bytes = 1ull << 30) {
  return Impl::baseline_spgemm_dense_output(space, A, B, max_bytes);
}

}  // namespace baseline
}  // namespace spk
