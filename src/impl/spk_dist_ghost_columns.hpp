// The ghost block of a distributed product's rows: columns owned by other
// ranks, given as sorted global indices, renumbered into the sorted list of
// the distinct ones (the ghost list).  spk::dist::spgemm computes C's ghost
// block this way from the product of A with B's non-owned columns.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_convert_impl.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_memory_pool.hpp>
#include <vector>

namespace spk::dist::Impl {

/// G's columns renumbered into `gids` (sorted, distinct global columns).
template <class S, class O, class F, class D>
struct CompactedColumns {
  CsrMatrix<S, O, F, D> matrix;  // shares G's row map; new columns and values
  std::vector<long long> gids;
  Kokkos::View<long long*, D> gids_device;  // the same list on the device
};

/// Renumbers the global columns of G (sorted within each row) into the
/// ghost list, on `space`.  The list comes from a mark per column in the
/// window [min, max] of G's columns and a scan, not a sort: O(nnz + window),
/// and the window is the halo's width for banded matrices.  With
/// with_values the result gets G's values, else its values are left
/// uninitialised for a later copy.
template <class ExecSpace, class S, class O, class F, class D>
CompactedColumns<S, O, F, D> compact_ghost_columns(const ExecSpace& space,
                                                   const CsrMatrix<S, O, F, D>& G,
                                                   bool with_values) {
  using Matrix = CsrMatrix<S, O, F, D>;
  CompactedColumns<S, O, F, D> out;
  const long long rows = G.num_rows(), nnz = G.nnz();
  using Ci = Kokkos::View<O*, D>;
  using Va = Kokkos::View<S*, D>;
  Ci cols(Kokkos::ViewAllocateWithoutInitializing("spk::dist::ghost_block.col_idx"), nnz);
  Va vals(Kokkos::ViewAllocateWithoutInitializing("spk::dist::ghost_block.values"), nnz);
  if (nnz == 0) {
    out.matrix = Matrix(static_cast<O>(rows), O(0), G.row_map(), cols, vals);
    return out;
  }
  auto rm = G.row_map();
  auto ci = G.col_idx();
  // Rows are sorted: each row's first and last entries bound the window.
  long long lo = 0, hi = 0;
  Kokkos::parallel_reduce(
      "spk::dist::ghost_window", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const long long i, long long& mn, long long& mx) {
        if (rm(i + 1) > rm(i)) {
          const long long a = ci(rm(i)), b = ci(rm(i + 1) - 1);
          if (a < mn) mn = a;
          if (b > mx) mx = b;
        }
      },
      Kokkos::Min<long long>(lo), Kokkos::Max<long long>(hi));
  const long long width = hi - lo + 1;
  std::vector<std::shared_ptr<void>> temps;
  // mark(c - lo) = 1 for a column present; after the scan, its ghost index.
  const auto mark =
      spk::Impl::pooled_view<Kokkos::View<O*, D>>(space, temps, "spk::dist::ghost_mark", width + 1);
  Kokkos::deep_copy(space, mark, O(0));
  Kokkos::parallel_for(
      "spk::dist::ghost_mark", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) { mark(ci(k) - lo) = 1; });  // same value from every writer
  const O ng = spk::Impl::exclusive_scan(space, mark, width);
  const Kokkos::View<long long*, D> gids(
      Kokkos::ViewAllocateWithoutInitializing("spk::dist::ghost_gids"), ng);
  Kokkos::parallel_for(
      "spk::dist::ghost_gids", Kokkos::RangePolicy<ExecSpace>(space, 0, width),
      KOKKOS_LAMBDA(const long long c) {
        if (mark(c + 1) != mark(c)) gids(mark(c)) = lo + c;
      });
  auto gv = G.values();
  Kokkos::parallel_for(
      "spk::dist::ghost_renumber", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) {
        cols(k) = mark(ci(k) - lo);
        if (with_values) vals(k) = gv(k);
      });
  out.matrix = Matrix(static_cast<O>(rows), ng, G.row_map(), cols, vals);
  out.gids_device = gids;
  out.gids.resize(ng);
  Kokkos::deep_copy(
      space,
      Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(out.gids.data(), ng),
      gids);
  space.fence();
  return out;
}

}  // namespace spk::dist::Impl
