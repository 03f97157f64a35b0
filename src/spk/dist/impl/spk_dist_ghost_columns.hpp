// The ghost block of a distributed product's rows: columns owned by other
// ranks, given as sorted global indices, renumbered into the sorted list of
// the distinct ones (the ghost list).  spk::dist::spgemm computes C's ghost
// block this way from the product of A with B's non-owned columns.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_dist_mpi.hpp>
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

/// Renumbers the global columns of G (sorted within each row, none in
/// [own_begin, own_end), the columns this rank owns) into the ghost list,
/// on `space`.  The list comes from a mark per column and a scan, not a
/// sort: O(nnz + window), where the window is [min, max] of G's columns
/// less the owned range inside it (a middle rank's halos on both sides of
/// its block: marking the block too cost ~1 ms on poisson3d:300 at 4 GPUs).
/// With with_values the result gets G's values, else its values are left
/// uninitialised for a later copy.  `step`, if set, is called after each
/// stage (DistSpgemmHandle::step_timing).  The arrays come from spk's pool unless
/// MPI reads device memory in place (pool memory cannot go through CUDA IPC).
template <class ExecSpace, class S, class O, class F, class D>
static CompactedColumns<S, O, F, D> compact_ghost_columns(const ExecSpace& space,
                                                          const CsrMatrix<S, O, F, D>& G,
                                                          long long own_begin, long long own_end,
                                                          bool with_values,
                                                          const StepTimer& step = {}) {
  using Matrix = CsrMatrix<S, O, F, D>;
  using Ci = Kokkos::View<O*, D>;
  using Va = Kokkos::View<S*, D>;
  using Gids = Kokkos::View<long long*, D>;
  CompactedColumns<S, O, F, D> out;
  const long long rows = G.num_rows(), nnz = G.nnz();
  const bool pooled = !mpi_reads_directly<typename D::memory_space>();
  const Ci cols = spk::Impl::result_view<Ci>(space, "spk::dist::ghost_block.col_idx", nnz, pooled);
  const Va vals = spk::Impl::result_view<Va>(space, "spk::dist::ghost_block.values", nnz, pooled);
  if (nnz == 0) {
    // (every rank reports the same steps)
    for (const char* name :
         {"ghost_columns.window", "ghost_columns.mark_scan", "ghost_columns.renumber"})
      if (step) step(name);
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
  if (step) step("ghost_columns.window");
  // The owned columns inside the window, [gap_lo, gap_hi), are skipped.
  const long long gap_lo = std::clamp(own_begin, lo, hi + 1);
  const long long gap_hi = std::max(gap_lo, std::clamp(own_end, lo, hi + 1));
  const long long gap = gap_hi - gap_lo, below = gap_lo - lo;
  const long long width = hi - lo + 1 - gap;
  std::vector<std::shared_ptr<void>> temps;
  // mark(p) = 1 for a column present at place p; after the scan, its ghost
  // index.
  const auto mark =
      spk::Impl::pooled_view<Kokkos::View<O*, D>>(space, temps, "spk::dist::ghost_mark", width + 1);
  Kokkos::deep_copy(space, mark, O(0));
  // Column c's place in the window: c - lo, less the gap when above it.
  Kokkos::parallel_for(
      "spk::dist::ghost_mark", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) {
        const long long c = ci(k);
        mark(c - lo - (c < gap_lo ? 0 : gap)) = 1;  // same value from every writer
      });
  const O ng = spk::Impl::exclusive_scan(space, mark, width);
  if (step) step("ghost_columns.mark_scan");
  const Gids gids = spk::Impl::result_view<Gids>(space, "spk::dist::ghost_gids", ng, pooled);
  Kokkos::parallel_for(
      "spk::dist::ghost_gids", Kokkos::RangePolicy<ExecSpace>(space, 0, width),
      KOKKOS_LAMBDA(const long long p) {
        if (mark(p + 1) != mark(p)) gids(mark(p)) = lo + p + (p < below ? 0 : gap);
      });
  auto gv = G.values();
  Kokkos::parallel_for(
      "spk::dist::ghost_renumber", Kokkos::RangePolicy<ExecSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(const long long k) {
        const long long c = ci(k);
        cols(k) = mark(c - lo - (c < gap_lo ? 0 : gap));
        if (with_values) vals(k) = gv(k);
      });
  if (step) step("ghost_columns.renumber");
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
