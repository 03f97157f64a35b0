// Distributed SpMV: y := alpha·A·x + beta·y with x distributed like A's
// columns and y like A's rows.
#pragma once

#include <chrono>
#include <impl/spk_dist_local_ops.hpp>
#include <impl/spk_dist_spmv_ghost.hpp>
#include <impl/spk_dist_timing.hpp>
#include <spk_dist_csr_matrix.hpp>

namespace spk::dist {

/// Wall time of each phase of spmv, accumulated over calls (seconds).
/// Timing fences after each phase, which costs a little overlap.
struct SpmvTimes {
  double pack_and_post = 0;  // pack x's sent entries, post the messages
  double local = 0;          // local-block product (overlaps the messages)
  double wait = 0;           // finish the exchange (incl. host staging)
  double ghost = 0;          // ghost-block product
  long long calls = 0;
  double total() const { return pack_and_post + local + wait + ghost; }
};

/// y := alpha·A·x + beta·y on `space`: begin the halo exchange of x, multiply
/// the local block while it is in flight, finish it, add the ghost block.
/// Between the ranks of one node with CUDA devices and an MPI that is not
/// CUDA-aware, the halo goes device to device through CUDA IPC and the host
/// waits for the device only at the end (see CommPlan::begin).
/// x has col_layout().local_size() entries, y row_layout().local_size().
/// Collective; not thread-safe on one matrix (the halo buffer is shared).
template <class ExecSpace, class S, class O, class F, class D, class X, class Y>
void spmv(const ExecSpace& space, S alpha, const DistCsrMatrix<S, O, F, D>& A, const X& x, S beta,
          const Y& y, SpmvTimes* times = nullptr) {
  SPK_REQUIRE(static_cast<long long>(x.extent(0)) == A.col_layout().local_size() &&
                  static_cast<long long>(y.extent(0)) == A.row_layout().local_size(),
              ShapeMismatch, "spk::dist::spmv: rank ", A.row_layout().rank(), " has x of ",
              x.extent(0), " and y of ", y.extent(0), " entries; A needs ",
              A.col_layout().local_size(), " and ", A.row_layout().local_size());
  auto& ws = A.spmv_workspace();
  using clock = std::chrono::steady_clock;
  auto t = clock::now();
  A.plan().begin(space, x, ws.x_ghost, ws.buffers);
  if (times) times->pack_and_post += Impl::seconds_since(t), t = clock::now();
  Impl::local_spmv(space, alpha, A.local_block(), x, beta, y);
  if (times) space.fence(), times->local += Impl::seconds_since(t), t = clock::now();
  const auto x_ghost = A.plan().finish_in_place(space, ws.x_ghost, ws.buffers);
  if (times) space.fence(), times->wait += Impl::seconds_since(t), t = clock::now();
  Impl::ghost_block_spmv(space, alpha, A, x_ghost, ws.y_ghost, y);
  A.plan().release(space, ws.buffers);
  space.fence();
  if (times) times->ghost += Impl::seconds_since(t), ++times->calls;
}

/// In A's execution space.
template <class S, class O, class F, class D, class X, class Y>
void spmv(S alpha, const DistCsrMatrix<S, O, F, D>& A, const X& x, S beta, const Y& y,
          SpmvTimes* times = nullptr) {
  spmv(typename DistCsrMatrix<S, O, F, D>::execution_space(), alpha, A, x, beta, y, times);
}

}  // namespace spk::dist
