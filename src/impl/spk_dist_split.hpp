// Splitting rows with global, sorted column indices into a distributed
// matrix's local and ghost blocks on the device (used by spk::dist::spgemm
// for C, whose rows come out of the local product in device memory).
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_convert_impl.hpp>
#include <spk_csr_matrix.hpp>
#include <vector>

namespace spk::dist::Impl {

/// C's rows split by owner of the column: the local block (columns in
/// [col_begin, col_end), renumbered from 0), the ghost block (columns
/// renumbered into the sorted list of the others, ghost_gids) and, for
/// entry k of the input, dest(k) = its position in the local block, or
/// -(p + 1) for position p in the ghost block.
template <class S, class O, class F, class D>
struct DeviceColumnSplit {
  CsrMatrix<S, O, F, D> local, ghost;
  std::vector<long long> ghost_gids;
  Kokkos::View<long long*, D> dest;
};

/// Splits the rows of C (global column indices in [0, global_cols), any
/// order within a row) on `space`.  Values are not copied: the blocks'
/// values are zero.  Works in O(nnz + global_cols): the ghost list comes
/// from a mark per global column and a scan, not a sort.
template <class ExecSpace, class S, class O, class F, class D>
DeviceColumnSplit<S, O, F, D> split_columns_device(const ExecSpace& space,
                                                   const CsrMatrix<S, O, F, D>& C,
                                                   long long global_cols, long long col_begin,
                                                   long long col_end) {
  using Matrix = CsrMatrix<S, O, F, D>;
  using RowMap = typename Matrix::row_map_type;
  DeviceColumnSplit<S, O, F, D> out;
  const long long rows = C.num_rows();
  const long long nnz = C.nnz();
  // The entry counts of each row (local, ghost) become row maps in place.
  RowMap lrm("spk::dist::split.local_row_map", rows + 1);
  RowMap grm("spk::dist::split.ghost_row_map", rows + 1);
  // mark(c) = 1 for a ghost column; after the scan, its ghost index.
  Kokkos::View<O*, D> mark("spk::dist::split.ghost_mark", global_cols + 1);
  auto rm = C.row_map();
  auto ci = C.col_idx();
  Kokkos::parallel_for(
      "spk::dist::split_count", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const long long i) {
        F nl = 0;
        for (F k = rm(i); k < rm(i + 1); ++k) {
          const long long c = ci(k);
          if (c >= col_begin && c < col_end) {
            ++nl;
          } else {
            mark(c) = 1;  // every writer stores the same value
          }
        }
        lrm(i) = nl;
        grm(i) = rm(i + 1) - rm(i) - nl;
      });
  const F nloc = spk::Impl::exclusive_scan(space, lrm, rows);
  const F nghost_entries = spk::Impl::exclusive_scan(space, grm, rows);
  const O ng = spk::Impl::exclusive_scan(space, mark, global_cols);
  Kokkos::View<long long*, D> gids(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.gids"),
                                   ng);
  Kokkos::parallel_for(
      "spk::dist::split_gids", Kokkos::RangePolicy<ExecSpace>(space, 0, global_cols),
      KOKKOS_LAMBDA(const long long c) {
        if (mark(c + 1) != mark(c)) gids(mark(c)) = c;
      });
  out.local =
      Matrix(static_cast<O>(rows), static_cast<O>(col_end - col_begin), lrm,
             Kokkos::View<O*, D>(
                 Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.local_col_idx"), nloc),
             Kokkos::View<S*, D>("spk::dist::split.local_values", nloc));
  out.ghost = Matrix(
      static_cast<O>(rows), ng, grm,
      Kokkos::View<O*, D>(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.ghost_col_idx"),
                          nghost_entries),
      Kokkos::View<S*, D>("spk::dist::split.ghost_values", nghost_entries));
  out.dest = Kokkos::View<long long*, D>(
      Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.dest"), nnz);
  auto lci = out.local.col_idx();
  auto gci = out.ghost.col_idx();
  auto dest = out.dest;
  Kokkos::parallel_for(
      "spk::dist::split_fill", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const long long i) {
        F pl = lrm(i), pg = grm(i);
        for (F k = rm(i); k < rm(i + 1); ++k) {
          const long long c = ci(k);
          if (c >= col_begin && c < col_end) {
            lci(pl) = static_cast<O>(c - col_begin);
            dest(k) = pl++;
          } else {
            gci(pg) = mark(c);
            dest(k) = -static_cast<long long>(pg++) - 1;
          }
        }
      });
  out.ghost_gids.resize(ng);
  Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> gh(out.ghost_gids.data(),
                                                                          out.ghost_gids.size());
  Kokkos::deep_copy(space, gh, gids);
  space.fence();
  return out;
}

}  // namespace spk::dist::Impl
