// The blocks of a DistCsrMatrix (spk_dist_csr_matrix.hpp): host rows split
// by column owner into the local and ghost blocks, and the non-empty rows
// of a block (the rows the ghost block's SpMV runs over).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <spk_csr_matrix.hpp>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <vector>

namespace spk::dist::Impl {

/// Splits host rows with global column indices into the columns this rank
/// owns ([col_begin, col_end) -> local numbering) and the others (-> index
/// into the sorted ghost list).  Entry order within each block follows the
/// input; dest[k] is entry k's position in the local block, or -(p + 1) for
/// position p in the ghost block.
template <class S, class O, class F>
struct ColumnSplit {
  CsrMatrix<S, O, F, HostDevice> local, ghost;
  std::vector<long long> ghost_gids;
  std::vector<long long> dest;
};

template <class S, class O, class F, class RM, class CI, class VA>
ColumnSplit<S, O, F> split_columns(long long rows, long long global_cols, const RM& rm,
                                   const CI& ci, const VA& va, long long col_begin,
                                   long long col_end, int rank) {
  ColumnSplit<S, O, F> out;
  const long long nnz = rows > 0 ? static_cast<long long>(rm(rows)) : 0;
  std::vector<long long>& g = out.ghost_gids;
  long long nloc = 0;
  for (long long k = 0; k < nnz; ++k) {
    const long long c = ci(k);
    SPK_REQUIRE(c >= 0 && c < global_cols, InvalidMatrix, "spk::dist: rank ", rank,
                " has column index ", c, " (entry ", k, ") outside [0, ", global_cols, ")");
    if (c >= col_begin && c < col_end)
      ++nloc;
    else
      g.push_back(c);
  }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  const O lc = static_cast<O>(col_end - col_begin);
  out.local = CsrMatrix<S, O, F, HostDevice>("spk::dist::local", static_cast<O>(rows), lc,
                                             static_cast<F>(nloc));
  out.ghost = CsrMatrix<S, O, F, HostDevice>("spk::dist::ghost", static_cast<O>(rows),
                                             static_cast<O>(g.size()), static_cast<F>(nnz - nloc));
  out.dest.resize(nnz);
  auto lrm = out.local.row_map(), grm = out.ghost.row_map();
  long long pl = 0, pg = 0;
  for (long long i = 0; i < rows; ++i) {
    for (long long k = rm(i); k < static_cast<long long>(rm(i + 1)); ++k) {
      const long long c = ci(k);
      if (c >= col_begin && c < col_end) {
        out.local.col_idx()(pl) = static_cast<O>(c - col_begin);
        out.local.values()(pl) = va(k);
        out.dest[k] = pl++;
      } else {
        const long long q = std::lower_bound(g.begin(), g.end(), c) - g.begin();
        out.ghost.col_idx()(pg) = static_cast<O>(q);
        out.ghost.values()(pg) = va(k);
        out.dest[k] = -(pg++) - 1;
      }
    }
    lrm(i + 1) = static_cast<F>(pl);
    grm(i + 1) = static_cast<F>(pg);
  }
  return out;
}

/// The non-empty rows of A as a matrix that shares A's columns and values
/// (empty rows hold no entries, so the kept rows' entries stay contiguous and
/// in place); rows(r) = the row of A that row r is.  Runs on `space`.
template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> nonempty_rows(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                           Kokkos::View<O*, D>& rows) {
  const long long nr = A.row_map().extent(0) > 0 ? A.num_rows() : 0;
  auto rm = A.row_map();
  long long kept = 0;
  Kokkos::parallel_reduce(
      "spk::dist::nonempty_rows_count", Kokkos::RangePolicy<ExecSpace>(space, 0, nr),
      KOKKOS_LAMBDA(const long long i, long long& n) { n += rm(i + 1) > rm(i) ? 1 : 0; }, kept);
  rows = Kokkos::View<O*, D>("spk::dist::nonempty_rows", kept);
  typename CsrMatrix<S, O, F, D>::row_map_type crm("spk::dist::nonempty_rows.row_map", kept + 1);
  auto r = rows;
  Kokkos::parallel_scan(
      "spk::dist::nonempty_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, nr),
      KOKKOS_LAMBDA(const long long i, long long& upd, const bool final) {
        if (rm(i + 1) > rm(i)) {
          if (final) {
            r(upd) = static_cast<O>(i);
            crm(upd + 1) = rm(i + 1);
          }
          ++upd;
        }
      });
  space.fence();
  return CsrMatrix<S, O, F, D>(static_cast<O>(kept), A.num_cols(), crm, A.col_idx(), A.values());
}

}  // namespace spk::dist::Impl
