// The ghost block's part of the distributed SpMV.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_local_ops.hpp>
#include <spk_dist_csr_matrix.hpp>

namespace spk::dist::Impl {

/// y += alpha·G·x_ghost over A's ghost block G, for the rows with ghost
/// entries only: their product into the short vector y_ghost (the same
/// single-node SpMV as the local block), then added to y.
template <class ExecSpace, class S, class O, class F, class D, class XG, class YG, class Y>
static void ghost_block_spmv(const ExecSpace& space, S alpha, const DistCsrMatrix<S, O, F, D>& A,
                             const XG& x_ghost, const YG& y_ghost, const Y& y) {
  const auto& Gc = A.ghost_compressed_block();
  if (Gc.num_rows() == 0) return;
  local_spmv(space, alpha, Gc, x_ghost, S(0), y_ghost);
  auto rows = A.ghost_rows();
  auto yg = y_ghost;
  Kokkos::parallel_for(
      "spk::dist::ghost_add", Kokkos::RangePolicy<ExecSpace>(space, 0, Gc.num_rows()),
      KOKKOS_LAMBDA(const long long r) { y(rows(r)) += yg(r); });
}

}  // namespace spk::dist::Impl
