// C's ghost block of the distributed SpGEMM is the product of the few rows
// of A that may reach another rank's column of B (the rows next to a
// neighbour's block on a mesh): they are flagged, listed, copied side by
// side, multiplied, and the product's row map spread over all rows.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_dist_mpi.hpp>
#include <impl/spk_dist_row_kernels.hpp>
#include <impl/spk_dist_spgemm_operands.hpp>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_memory_pool.hpp>
#include <utility>

namespace spk::dist::Impl {

/// The rows h.ghost_rows_ of A's blocks side by side into h.a_ghost_rows_
/// (values, and columns with with_cols), whose row map is made.
template <class ExecSpace, class S, class O, class F, class D>
static void ghost_rows_copy(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                            DistSpgemmHandle<S, O, F, D>& h, bool with_cols) {
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  auto lci = A.local_block().col_idx(), gci = A.ghost_block().col_idx();
  auto lva = A.local_block().values(), gva = A.ghost_block().values();
  const bool has_g = grm.extent(0) > 0;  // (no ghost columns: maybe no row map)
  const long long ghost_off = A.col_layout().local_size();
  auto srm = h.a_ghost_rows_.row_map();
  auto sci = h.a_ghost_rows_.col_idx();
  auto sva = h.a_ghost_rows_.values();
  auto rows = h.ghost_rows_;
  row_parallel(
      space, "spk::dist::ghost_rows_copy", static_cast<long long>(rows.extent(0)),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long r) {
        const long long i = rows(r);
        const F l0 = lrm(i), nl = lrm(i + 1) - l0, g0 = has_g ? grm(i) : 0, s0 = srm(r);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, srm(r + 1) - s0), [&](const F t) {
          if (t < nl) {
            if (with_cols) sci(s0 + t) = lci(l0 + t);
            sva(s0 + t) = lva(l0 + t);
          } else {
            if (with_cols) sci(s0 + t) = static_cast<O>(ghost_off + gci(g0 + t - nl));
            sva(s0 + t) = gva(g0 + t - nl);
          }
        });
      });
}

/// The rows of A that may reach an entry of B_ext's ghost part (only they
/// have products in C's ghost block), flagged and scanned on the device
/// into h.ghost_pos_: ghost_pos_(i) = flagged rows before row i,
/// ghost_pos_(na) their number.  Flagged: rows with a column whose row of B
/// has ghost entries, and rows with ghost columns (the fetched rows they
/// name are not here yet), so it needs nothing fetched.  Nothing is flagged
/// without b_ghost (B_ext has no ghost part: B's ghost block and the
/// fetched rows hold no other rank's column).  On a mesh cut into row
/// blocks the flagged rows are the few layers next to a neighbour's block.
/// With a_rest, A_rest is built in the same pass (every row of A is in it).
template <class ExecSpace, class S, class O, class F, class D>
static void mark_ghost_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                            const DistCsrMatrix<S, O, F, D>& B, DistSpgemmHandle<S, O, F, D>& h,
                            bool b_ghost, bool a_rest) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  const long long na = A.row_layout().local_size();
  h.ghost_pos_ = Kokkos::View<F*, Dev>();
  if (b_ghost)
    h.ghost_pos_ = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(space, h.pooled_,
                                                                 "spk::dist::ghost_pos", na + 1);
  auto pos = h.ghost_pos_;
  auto bgrm = B.ghost_block().row_map();
  if (a_rest)
    side_by_side(space, A, h.a_rest_.row_map(), h.a_rest_.col_idx(), h.a_rest_.values(), pos, bgrm);
  if (!b_ghost) return;
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  auto lci = A.local_block().col_idx();
  const bool has_g = A.num_ghosts() > 0;  // (else its ghost block may have no row map)
  // One thread per row (a row's few entries read together; the scan's
  // last element set here: a scalar deep_copy from the host would wait for
  // the work queued before it).
  // (With a_rest the rows are marked already: only pos(na) is left.)
  Kokkos::parallel_for(
      "spk::dist::ghost_rows_mark", Kokkos::RangePolicy<ExecSpace>(space, a_rest ? na : 0, na + 1),
      KOKKOS_LAMBDA(const long long i) {
        if (i == na) {
          pos(na) = 0;
          return;
        }
        F reach = has_g && grm(i + 1) > grm(i) ? 1 : 0;
        for (F k = lrm(i); k < lrm(i + 1) && !reach; ++k)
          reach = bgrm(lci(k) + 1) > bgrm(lci(k)) ? 1 : 0;
        pos(i) = reach;
      });
  spk::Impl::exclusive_scan_queued(space, pos, na);
}

/// The rows mark_ghost_rows flagged, side by side from A's blocks into
/// h.a_ghost_rows_ (with h.ghost_rows_: which rows they are); `space` must
/// be ordered after the marking.
template <class ExecSpace, class S, class O, class F, class D>
static void select_ghost_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                              DistSpgemmHandle<S, O, F, D>& h) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  const long long na = h.na_;
  const O ext_rows = h.b_ghost_.num_rows();
  if (h.b_ghost_.nnz() == 0 || h.ghost_pos_.extent(0) == 0) {
    // (no row reaches a ghost column of B; ghost_pos_ is empty only then)
    h.ghost_rows_ = Kokkos::View<O*, Dev>();
    h.ghost_pos_ = Kokkos::View<F*, Dev>();
    // (its row map from the pool: no cudaMalloc and synchronising free per call)
    const auto rm = spk::Impl::pooled_view<typename Local::row_map_type>(
        space, h.pooled_, "spk::dist::a_ghost_rows.row_map", 1);
    Kokkos::deep_copy(space, rm, F(0));
    h.a_ghost_rows_ =
        Local(O(0), ext_rows, rm, typename Local::index_type(), typename Local::values_type());
    return;
  }
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  const bool has_g = grm.extent(0) > 0;
  auto pos = h.ghost_pos_;
  F nr_h = 0;
  Kokkos::deep_copy(space, Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&nr_h),
                    Kokkos::subview(pos, na));
  space.fence();
  const long long nr = nr_h;
  h.ghost_rows_ =
      spk::Impl::pooled_view<Kokkos::View<O*, Dev>>(space, h.pooled_, "spk::dist::ghost_rows", nr);
  auto rows = h.ghost_rows_;
  auto srm = spk::Impl::pooled_view<typename Local::row_map_type>(
      space, h.pooled_, "spk::dist::a_ghost_rows.row_map", nr + 1);
  Kokkos::parallel_for(
      "spk::dist::ghost_rows_list", Kokkos::RangePolicy<ExecSpace>(space, 0, na + 1),
      KOKKOS_LAMBDA(const long long i) {
        if (i == na)
          srm(nr) = 0;  // the scan's last element
        else if (pos(i + 1) != pos(i)) {
          rows(pos(i)) = static_cast<O>(i);
          srm(pos(i)) = lrm(i + 1) - lrm(i) + (has_g ? grm(i + 1) - grm(i) : 0);
        }
      });
  const F snnz = spk::Impl::exclusive_scan(space, srm, nr);
  h.a_ghost_rows_ = Local(static_cast<O>(nr), ext_rows, srm,
                          spk::Impl::pooled_view<typename Local::index_type>(
                              space, h.pooled_, "spk::dist::a_ghost_rows.col_idx", snnz),
                          spk::Impl::pooled_view<typename Local::values_type>(
                              space, h.pooled_, "spk::dist::a_ghost_rows.values", snnz));
  ghost_rows_copy(space, A, h, true);
}

/// C's ghost block in global columns, (A's rows side by side)·B_ghost, from
/// the product over the selected rows (h.c_ghost_sub_): the same columns and
/// values, its row map spread over all rows.
template <class ExecSpace, class S, class O, class F, class D>
static void spread_ghost_product(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                 long long num_cols) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  const long long na = h.na_;
  // C's ghost block keeps this row map (compact_ghost_columns): memory of
  // its own, not the handle's.
  const auto rm = spk::Impl::result_view<typename Local::row_map_type>(
      space, "spk::dist::c_ghost.row_map", na + 1,
      !mpi_reads_directly<typename Dev::memory_space>());
  auto pos = h.ghost_pos_;
  auto srm = h.c_ghost_sub_.row_map();
  if (h.c_ghost_sub_.nnz() == 0)
    Kokkos::deep_copy(space, rm, F(0));
  else
    Kokkos::parallel_for(
        "spk::dist::c_ghost_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, na + 1),
        KOKKOS_LAMBDA(const long long i) { rm(i) = srm(pos(i)); });
  h.c_ghost_ = Local(static_cast<O>(na), static_cast<O>(num_cols), rm, h.c_ghost_sub_.col_idx(),
                     h.c_ghost_sub_.values());
}

}  // namespace spk::dist::Impl
