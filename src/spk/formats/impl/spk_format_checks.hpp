// The kernels of the structural checks (spk_validate.hpp and each format's
// validate()): each finds the first bad row, slice or entry in parallel, so
// that the caller can name it in its error.
#pragma once

#include <Kokkos_Core.hpp>
#include <spk_error.hpp>

namespace spk::Impl {

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
static long long first_bad_compressed_row(const ExecSpace& space, long long num_rows,
                                          long long num_cols, const RowMap& row_map,
                                          const Index& idx) {
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
static bool compressed_is_sorted(const ExecSpace& space, long long num_rows, const RowMap& row_map,
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

/// Smallest entry k (at least the number of entries if none) whose row or
/// column lies outside the rows × cols matrix.
template <class ExecSpace, class RowIdx, class ColIdx>
static long long first_bad_coo_entry(const ExecSpace& space, long long rows, long long cols,
                                     const RowIdx& ri, const ColIdx& ci) {
  long long bad = static_cast<long long>(ri.extent(0));
  Kokkos::parallel_reduce(
      "spk::validate_coo", Kokkos::RangePolicy<ExecSpace>(space, 0, ri.extent(0)),
      KOKKOS_LAMBDA(const long long k, long long& first) {
        const bool ok = ri(k) >= 0 && ri(k) < rows && ci(k) >= 0 && ci(k) < cols;
        if (!ok && k < first) first = k;
      },
      Kokkos::Min<long long>(bad));
  return bad;
}

/// Why block row I of a BSR matrix is bad (0: it is fine); callable on the
/// host and the device.
template <class RowMap, class Cols, class Vals>
KOKKOS_INLINE_FUNCTION int bsr_row_defect(const RowMap& rm, const Cols& ci, const Vals& va,
                                          long long I, long long nbr, long long nbc, long long nb,
                                          long long m, long long n, int b) {
  using S = typename Vals::non_const_value_type;
  const long long k0 = rm(I), k1 = rm(I + 1);
  if (k0 > k1 || k0 < 0 || k1 > nb || (I == 0 && k0 != 0) || (I == nbr - 1 && k1 != nb)) return 1;
  for (long long k = k0; k < k1; ++k) {
    const long long J = ci(k);
    if (J < 0 || J >= nbc) return 2;
    if (k > k0 && J <= ci(k - 1)) return 3;
    if (I * b + b <= m && J * b + b <= n) continue;
    for (int r = 0; r < b; ++r)
      for (int c = 0; c < b; ++c)
        if ((I * b + r >= m || J * b + c >= n) && va(k * b * b + r * b + c) != S(0)) return 4;
  }
  return 0;
}

/// Smallest block row I (at least nbr if none) that bsr_row_defect finds
/// bad.
template <class ExecSpace, class RowMap, class Cols, class Vals>
static long long first_bad_bsr_block_row(const ExecSpace& space, const RowMap& rm, const Cols& ci,
                                         const Vals& va, long long nbr, long long nbc, long long nb,
                                         long long m, long long n, int b) {
  long long first = nbr;
  Kokkos::parallel_reduce(
      "spk::validate_bsr", Kokkos::RangePolicy<ExecSpace>(space, 0, nbr),
      KOKKOS_LAMBDA(const long long I, long long& bad) {
        if (I < bad && bsr_row_defect(rm, ci, va, I, nbr, nbc, nb, m, n, b) != 0) bad = I;
      },
      Kokkos::Min<long long>(first));
  return first;
}

/// Smallest row i (at least m if none) of an ELL matrix of width w with a
/// column index outside [-1, n) or a real entry after padding (-1).
template <class ExecSpace, class Cols>
static long long first_bad_ell_row(const ExecSpace& space, long long m, long long n, long long w,
                                   const Cols& ci) {
  long long first = m;
  Kokkos::parallel_reduce(
      "spk::validate_ell", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& bad) {
        bool ok = true, padding = false;
        for (long long k = 0; ok && k < w; ++k) {
          const long long c = ci(i, k);
          ok = c >= -1 && c < n && !(padding && c >= 0);
          padding = padding || c < 0;
        }
        if (!ok && i < bad) bad = i;
      },
      Kokkos::Min<long long>(first));
  return first;
}

/// Smallest slice s (at least ns if none) of a SELL-C matrix's sliced part
/// (`positions` rows, C a slice, `slots` stored entries) that is bad: slice
/// pointers not rising from 0 to slots in multiples of C, a column index
/// outside [-1, n), a real entry after padding, or a row outside [0, m) or
/// listed twice (seen, m zeros on entry, counts the rows met).
template <class ExecSpace, class SlicePtr, class Cols, class Perm, class Seen>
static long long first_bad_sell_slice(const ExecSpace& space, long long ns, long long positions,
                                      long long m, long long n, long long C, long long slots,
                                      const SlicePtr& sp, const Cols& ci, const Perm& perm,
                                      const Seen& seen) {
  long long first = ns;
  Kokkos::parallel_reduce(
      "spk::validate_sell", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(const long long s, long long& bad) {
        const long long b = sp(s), e = sp(s + 1);
        bool ok = b >= 0 && b <= e && e <= slots && (e - b) % C == 0 && (s > 0 || b == 0) &&
                  (s < ns - 1 || e == slots);
        const long long w = ok ? (e - b) / C : 0;
        for (long long r = 0; ok && r < C; ++r) {
          const long long p = s * C + r;
          if (p < positions) {
            const long long row = perm(p);
            ok = row >= 0 && row < m && Kokkos::atomic_fetch_add(&seen(row), 1) == 0;
          }
          bool padding = p >= positions;
          for (long long k = 0; ok && k < w; ++k) {
            const long long c = ci(b + k * C + r);
            ok = c >= -1 && c < n && !(padding && c >= 0);
            padding = padding || c < 0;
          }
        }
        if (!ok && s < bad) bad = s;
      },
      Kokkos::Min<long long>(first));
  return first;
}

/// The first bad row of a SELL matrix's spill (k rows), or k: pointers not
/// rising from 0 to the spill's entries, a row outside [0, m) or already in
/// `seen` (marked by first_bad_sell_slice), a column outside [0, n).
template <class ExecSpace, class Rows, class Ptr, class Cols, class Seen>
static long long first_bad_sell_spill(const ExecSpace& space, long long k, long long m, long long n,
                                      const Rows& rows, const Ptr& ptr, const Cols& ci,
                                      const Seen& seen) {
  const long long entries = ci.extent(0);
  long long first = k;
  Kokkos::parallel_reduce(
      "spk::validate_sell_spill", Kokkos::RangePolicy<ExecSpace>(space, 0, k),
      KOKKOS_LAMBDA(const long long i, long long& bad) {
        const long long b = ptr(i), e = ptr(i + 1), row = rows(i);
        bool ok = b >= 0 && b <= e && e <= entries && (i > 0 || b == 0) &&
                  (i < k - 1 || e == entries) && row >= 0 && row < m &&
                  Kokkos::atomic_fetch_add(&seen(row), 1) == 0;
        for (long long q = b; ok && q < e; ++q) ok = ci(q) >= 0 && ci(q) < n;
        if (!ok && i < bad) bad = i;
      },
      Kokkos::Min<long long>(first));
  return first;
}

}  // namespace spk::Impl
