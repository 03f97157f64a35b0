// Structural checks on sparse matrices, run in parallel on the matrix's space.
#pragma once

#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <string>

namespace spk {
namespace Impl {

template <class View>
auto read_element(const View& v, size_t i) {
  typename View::non_const_value_type x;
  Kokkos::deep_copy(x, Kokkos::subview(v, i));
  return x;
}

/// Smallest row r (num_rows if none) whose pointers decrease or whose entries
/// leave [0, num_cols).  Pointers are clamped so that a bad row never reads
/// out of bounds.
template <class ExecSpace, class RowMap, class Index>
long long first_bad_compressed_row(const ExecSpace& space, long long num_rows, long long num_cols,
                                   const RowMap& row_map, const Index& idx) {
  const long long nnz = static_cast<long long>(idx.extent(0));
  long long bad = num_rows;
  Kokkos::parallel_reduce(
      "spk::validate", Kokkos::RangePolicy<ExecSpace>(space, 0, num_rows),
      KOKKOS_LAMBDA(const long long r, long long& first) {
        const long long b = static_cast<long long>(row_map(r));
        const long long e = static_cast<long long>(row_map(r + 1));
        bool ok = b <= e && b >= 0 && e <= nnz;
        for (long long k = ok ? b : 0; ok && k < e; ++k) {
          const long long c = static_cast<long long>(idx(k));
          ok = c >= 0 && c < num_cols;
        }
        if (!ok && r < first) first = r;
      },
      Kokkos::Min<long long>(bad));
  // The Min reducer starts from its identity (the largest value), not `bad`.
  return bad < num_rows ? bad : num_rows;
}

template <class ExecSpace, class RowMap, class Index>
void validate_compressed(const ExecSpace& space, const char* what, const char* row_word,
                         const char* col_word, long long num_rows, long long num_cols,
                         const RowMap& row_map, const Index& idx) {
  const long long nnz = static_cast<long long>(idx.extent(0));
  if (num_rows == 0 && row_map.extent(0) == 0) {
    SPK_REQUIRE(nnz == 0, InvalidMatrix, what, ": no ", row_word, "s but ", nnz, " entries");
    return;
  }
  SPK_REQUIRE(row_map.extent(0) == static_cast<size_t>(num_rows + 1), InvalidMatrix, what, ": ",
              row_word, " pointer array has ", row_map.extent(0), " entries, expected ",
              num_rows + 1);
  const long long first = static_cast<long long>(read_element(row_map, 0));
  SPK_REQUIRE(first == 0, InvalidMatrix, what, ": ", row_word, " pointer 0 is ", first,
              ", expected 0");
  const long long last = static_cast<long long>(read_element(row_map, num_rows));
  SPK_REQUIRE(last == nnz, InvalidMatrix, what, ": last ", row_word, " pointer is ", last,
              " but the matrix has ", nnz, " entries");
  const long long r = first_bad_compressed_row(space, num_rows, num_cols, row_map, idx);
  if (r == num_rows) return;
  const long long b = static_cast<long long>(read_element(row_map, r));
  const long long e = static_cast<long long>(read_element(row_map, r + 1));
  SPK_REQUIRE(b <= e, InvalidMatrix, what, ": ", row_word, " pointers decrease at ", row_word, " ",
              r, " (", b, " > ", e, ")");
  for (long long k = b; k < e; ++k) {
    const long long c = static_cast<long long>(read_element(idx, k));
    SPK_REQUIRE(c >= 0 && c < num_cols, InvalidMatrix, what, ": entry ", k, " in ", row_word, " ",
                r, " has ", col_word, " index ", c, ", outside [0, ", num_cols, ")");
  }
}

template <class ExecSpace, class RowMap, class Index>
bool compressed_is_sorted(const ExecSpace& space, long long num_rows, const RowMap& row_map,
                          const Index& idx, bool strict) {
  if (num_rows == 0) return true;
  long long unsorted = 0;
  Kokkos::parallel_reduce(
      "spk::is_sorted", Kokkos::RangePolicy<ExecSpace>(space, 0, num_rows),
      KOKKOS_LAMBDA(const long long r, long long& count) {
        for (auto k = row_map(r) + 1; k < row_map(r + 1); ++k) {
          if (idx(k) < idx(k - 1) || (strict && idx(k) == idx(k - 1))) {
            ++count;
            break;
          }
        }
      },
      unsorted);
  return unsorted == 0;
}

}  // namespace Impl

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
  long long bad = static_cast<long long>(ri.extent(0));
  Kokkos::parallel_reduce(
      "spk::validate_coo", Kokkos::RangePolicy<ExecSpace>(space, 0, ri.extent(0)),
      KOKKOS_LAMBDA(const long long k, long long& first) {
        const bool ok = ri(k) >= 0 && ri(k) < rows && ci(k) >= 0 && ci(k) < cols;
        if (!ok && k < first) first = k;
      },
      Kokkos::Min<long long>(bad));
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
