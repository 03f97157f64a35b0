// The numeric phase of the distributed SpGEMM: C's values from A's and B's
// current values, on the pattern symbolic left in the handle.  As in
// symbolic: the interior rows on `space` at once (they need nothing
// fetched), the fetch on the high-priority instance, the copies of A's and
// B's own values on `helper` meanwhile.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_local_ops.hpp>
#include <impl/spk_dist_spgemm_fetch.hpp>
#include <impl/spk_dist_spgemm_ghost_rows.hpp>
#include <impl/spk_dist_spgemm_operands.hpp>
#include <impl/spk_dist_timing.hpp>
#include <memory>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_instances.hpp>
#include <vector>

namespace spk::dist::Impl {

/// spgemm_numeric on the handle's pattern (checked by the caller).
template <class ExecSpace, class S, class O, class F, class D>
void spgemm_values(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                   const DistCsrMatrix<S, O, F, D>& A, const DistCsrMatrix<S, O, F, D>& B,
                   const DistCsrMatrix<S, O, F, D>& C) {
  using Dev = typename DistCsrMatrix<S, O, F, D>::device_type;
  const ExecSpace side = spk::Impl::priority_instance(space);
  const ExecSpace helper = spk::Impl::helper_instance(space);
  const ExecSpace rest_on = h.rest_on_side_ ? side : space;
  spk::Impl::stream_wait(side, space);  // A's and B's values as the caller left them
  spk::Impl::stream_wait(helper, space);
  auto t = now();
  if (h.int_end_ > h.int_begin_)
    local_spgemm_numeric(space, h.interior_, interior_a(A, h), B.local_block(),
                         interior_c(C.local_block(), h), false);
  h.times.local += seconds_since(t);
  t = now();
  const bool has_rest = h.a_rest_.num_rows() > 0;
  if (has_rest)  // (A_rest's row map and columns are symbolic's: only the values)
    side_by_side(helper, A, Kokkos::View<F*, Dev>(), Kokkos::View<O*, Dev>(), h.a_rest_.values(),
                 Kokkos::View<F*, Dev>(),
                 typename DistSpgemmHandle<S, O, F, D>::local_matrix::row_map_type(), h.int_begin_,
                 h.int_end_);
  b_ext_own_values(helper, B, h);
  h.times.assemble += seconds_since(t);
  t = now();
  std::vector<std::shared_ptr<void>> temps;
  auto fvals = exchange_view<Kokkos::View<S*, Dev>>(side, temps, "spk::dist::fetched_values",
                                                    h.fetched_nnz_);
  fetch_rows(side, A, B, h, Kokkos::View<O*, Dev>(), fvals, h.fetch_rp_, false, true, 7105);
  h.times.fetch += seconds_since(t);
  t = now();
  spk::Impl::stream_wait(side, helper);  // B's own values are in place before the fetched ones
  b_ext_fetched_values(side, h, fvals);
  h.times.assemble += seconds_since(t);
  t = now();
  // A_rest's product where symbolic ran it, its rows copied into C; the
  // ghost block's numeric (the rows next to other ranks' blocks) beside the
  // interior rows' on the high-priority instance.
  if (has_rest) {
    if (!h.rest_on_side_) spk::Impl::stream_wait(space, side);
    local_spgemm_numeric(rest_on, h.rest_, h.a_rest_, h.b_local_,
                         h.rest_is_c_ ? C.local_block() : h.c_rest_, false);
    if (!h.rest_on_side_) spk::Impl::stream_wait(side, space);
    if (!h.rest_is_c_) copy_rest_rows(side, h, C.local_block(), false);
  }
  ghost_rows_copy(side, A, h, false);
  local_spgemm_numeric(side, h.ghost_, h.a_ghost_rows_, h.b_ghost_, h.c_ghost_sub_, false);
  // The ghost block's columns were renumbered: only its values are copied.
  Kokkos::deep_copy(side, C.ghost_block().values(), h.c_ghost_.values());
  spk::Impl::stream_wait(space, side);
  space.fence();
  h.times.local += seconds_since(t);
}

}  // namespace spk::dist::Impl
