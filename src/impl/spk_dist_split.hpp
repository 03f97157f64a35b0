// Splitting rows with sorted global column indices into a distributed
// matrix's local and ghost blocks where they live (used by spk::dist::spgemm
// for C, whose rows come out of the local product in device memory).
#pragma once

#include <Kokkos_Core.hpp>
#include <functional>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_dist_row_kernels.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_memory_pool.hpp>
#include <vector>

namespace spk::dist::Impl {

/// C's rows split by owner of the column: the local block (columns in
/// [col_begin, col_end), renumbered from 0) and the ghost block (columns
/// renumbered into ghost_gids, the sorted list of the others).  Rows are
/// sorted, so each row of C is [ghost entries below col_begin | local
/// entries | ghost entries from col_end]; before(i) counts the first part,
/// which is all a later copy of values needs (scatter_split_values).
template <class S, class O, class F, class D>
struct SortedRowSplit {
  CsrMatrix<S, O, F, D> local, ghost;
  std::vector<long long> ghost_gids;
  Kokkos::View<F*, D> before;
  std::shared_ptr<void> before_owner;  // pooled memory behind `before`
};

/// Copies the values of C's rows into the blocks of `split`'s shape:
/// local (row map lrm) and ghost (row map grm), with before(i) as above.
template <class ExecSpace, class RM, class Before, class LRM, class GRM, class Src, class LV,
          class GV>
void scatter_split_values(const ExecSpace& space, long long rows, const RM& rm,
                          const Before& before, const LRM& lrm, const GRM& grm, const Src& src,
                          const LV& lv, const GV& gv) {
  using F = typename RM::non_const_value_type;
  row_parallel(
      space, "spk::dist::split_values", rows,
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long i) {
        const F b = before(i), nl = lrm(i + 1) - lrm(i), k0 = rm(i);
        const F l0 = lrm(i), g0 = grm(i);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rm(i + 1) - k0), [&](const F t) {
          if (t >= b && t < b + nl)
            lv(l0 + t - b) = src(k0 + t);
          else
            gv(g0 + (t < b ? t : t - nl)) = src(k0 + t);
        });
      });
}

/// Splits the rows of C (global column indices in [0, global_cols), sorted
/// within each row) on `space`.  With with_values, the blocks get C's
/// values; without, their values are left for numeric to fill.  Works in
/// O(nnz + global_cols): the ghost list comes from a mark per global column
/// and a scan, not a sort.
template <class ExecSpace, class S, class O, class F, class D>
SortedRowSplit<S, O, F, D> split_sorted_rows(
    const ExecSpace& space, const CsrMatrix<S, O, F, D>& C, long long global_cols,
    long long col_begin, long long col_end, bool with_values,
    const std::function<void(const char*)>& step = [](const char*) {}) {
  using Matrix = CsrMatrix<S, O, F, D>;
  using RowMap = typename Matrix::row_map_type;
  using Member = RowMember<ExecSpace>;
  SortedRowSplit<S, O, F, D> out;
  const long long rows = C.num_rows();
  // Entry counts per row (local, ghost) become row maps in place.
  RowMap lrm("spk::dist::split.local_row_map", rows + 1);
  RowMap grm("spk::dist::split.ghost_row_map", rows + 1);
  std::vector<std::shared_ptr<void>> owners;  // pooled memory; [0] is before's
  const auto before =
      spk::Impl::pooled_view<Kokkos::View<F*, D>>(space, owners, "spk::dist::split.before", rows);
  // mark(c) = 1 for a ghost column; after the scan, its ghost index.
  const auto mark = spk::Impl::pooled_view<Kokkos::View<O*, D>>(
      space, owners, "spk::dist::split.ghost_mark", global_cols + 1);
  Kokkos::deep_copy(space, mark, O(0));
  step("split.allocate_marks");
  auto rm = C.row_map();
  auto ci = C.col_idx();
  row_parallel(
      space, "spk::dist::split_count", rows, KOKKOS_LAMBDA(const Member& m, const long long i) {
        const F k0 = rm(i), len = rm(i + 1) - k0;
        // Rows are sorted: the local columns are one run, found by two
        // binary searches (reading every column ran at 0.8 TB/s on an
        // H200); only the ghost entries are read, to be marked.
        auto lower = [&](const long long c) {
          F lo = 0, hi = len;
          while (lo < hi) {
            const F mid = lo + (hi - lo) / 2;
            if (static_cast<long long>(ci(k0 + mid)) < c)
              lo = mid + 1;
            else
              hi = mid;
          }
          return lo;
        };
        const F below = lower(col_begin), local = lower(col_end) - below;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, len - local), [&](const F t) {
          mark(ci(k0 + (t < below ? t : t + local))) = 1;  // same value from every writer
        });
        Kokkos::single(Kokkos::PerThread(m), [&] {
          before(i) = below;
          lrm(i) = local;
          grm(i) = len - local;
        });
      });
  step("split.count");
  const F nloc = spk::Impl::exclusive_scan(space, lrm, rows);
  const F nghost_entries = spk::Impl::exclusive_scan(space, grm, rows);
  const O ng = spk::Impl::exclusive_scan(space, mark, global_cols);
  step("split.scans");
  const auto gids = spk::Impl::pooled_view<Kokkos::View<long long*, D>>(
      space, owners, "spk::dist::split.gids", ng);
  Kokkos::parallel_for(
      "spk::dist::split_gids", Kokkos::RangePolicy<ExecSpace>(space, 0, global_cols),
      KOKKOS_LAMBDA(const long long c) {
        if (mark(c + 1) != mark(c)) gids(mark(c)) = c;
      });
  step("split.gids");
  using Ci = Kokkos::View<O*, D>;
  using Va = Kokkos::View<S*, D>;
  out.local =
      Matrix(static_cast<O>(rows), static_cast<O>(col_end - col_begin), lrm,
             Ci(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.local_col_idx"), nloc),
             Va(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.local_values"), nloc));
  out.ghost = Matrix(
      static_cast<O>(rows), ng, grm,
      Ci(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.ghost_col_idx"), nghost_entries),
      Va(Kokkos::ViewAllocateWithoutInitializing("spk::dist::split.ghost_values"), nghost_entries));
  out.before = before;
  out.before_owner = owners[0];
  step("split.allocate_blocks");
  auto lci = out.local.col_idx();
  auto gci = out.ghost.col_idx();
  row_parallel(
      space, "spk::dist::split_columns", rows, KOKKOS_LAMBDA(const Member& m, const long long i) {
        const F b = before(i), nl = lrm(i + 1) - lrm(i), k0 = rm(i);
        const F l0 = lrm(i), g0 = grm(i);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rm(i + 1) - k0), [&](const F t) {
          const long long c = ci(k0 + t);
          if (t >= b && t < b + nl)
            lci(l0 + t - b) = static_cast<O>(c - col_begin);
          else
            gci(g0 + (t < b ? t : t - nl)) = mark(c);
        });
      });
  step("split.columns");
  if (with_values)
    scatter_split_values(space, rows, rm, before, lrm, grm, C.values(), out.local.values(),
                         out.ghost.values());
  step("split.values");
  out.ghost_gids.resize(ng);
  Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> gh(out.ghost_gids.data(),
                                                                          out.ghost_gids.size());
  Kokkos::deep_copy(space, gh, gids);
  space.fence();
  return out;
}

}  // namespace spk::dist::Impl
