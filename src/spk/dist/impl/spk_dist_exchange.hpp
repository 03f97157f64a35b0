// The exchanges under CommPlan (spk_dist_comm_plan.hpp): host staging
// memory, a blocking exchange of View ranges between neighbours, and the
// kernels that turn wanted global indices into local ones and pack the
// sent entries.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <impl/spk_dist_ipc.hpp>
#include <memory>
#include <spk_device.hpp>
#include <spk_memory_pool.hpp>
#include <vector>

namespace spk::dist::Impl {

/// Host memory that exchanges are staged through: page-locked in CUDA
/// builds, where copies to and from it run several times faster than to
/// pageable memory.
#if defined(KOKKOS_ENABLE_CUDA)
using StagingSpace = Kokkos::CudaHostPinnedSpace;
#else
using StagingSpace = Kokkos::HostSpace;
#endif

/// Staging memory for exchange_views (slot 0: sends, 1: receives).  Grown
/// as needed and kept for the process (page-locking costs more than a
/// copy), released when Kokkos finalizes.
inline char* staging_buffer(int slot, std::size_t bytes) {
  using Buffer = Kokkos::View<char*, StagingSpace>;
  static Buffer* buffers = nullptr;
  if (!buffers) {
    buffers = new Buffer[2];
    Kokkos::push_finalize_hook([]() {
      delete[] buffers;
      buffers = nullptr;
    });
  }
  Buffer& b = buffers[slot];
  if (b.extent(0) < bytes) {
    const std::size_t grown = std::max<std::size_t>(bytes, 2 * b.extent(0));
    b = Buffer();  // free first: the old and the new may not both fit
    b = Buffer(Kokkos::ViewAllocateWithoutInitializing("spk::dist::staging"), grown);
  }
  return b.data();
}

/// A blocking exchange of whole View ranges between neighbours (counts in
/// entries): device to device through CUDA IPC where exchanges_use_ipc says
/// so, else staged through host memory unless MPI reads the Views' memory.
/// Collective over the neighbours; uses tags tag and tag + 1000.  It fences
/// every instance first (send may still be written by queued kernels)
/// unless the caller knows send and recv are complete and passes ready =
/// true: then kernels queued for other work keep running meanwhile, and the
/// staged path copies through the host on `space` only.
template <class T, class D, class ExecSpace = typename D::execution_space>
void exchange_views(MPI_Comm comm, int tag, const std::vector<int>& send_ranks,
                    const std::vector<long long>& send_displs, const Kokkos::View<T*, D>& send,
                    const std::vector<int>& recv_ranks, const std::vector<long long>& recv_displs,
                    const Kokkos::View<T*, D>& recv, bool ready = false,
                    const ExecSpace& space = ExecSpace()) {
  std::vector<MPI_Request> req;
  if (exchanges_use_ipc<typename D::memory_space>(comm)) {
    if (!ready) Kokkos::fence();  // send is ready before another device reads it
    std::vector<long long> sb(send_displs), rb(recv_displs);
    for (auto& x : sb) x *= static_cast<long long>(sizeof(T));
    for (auto& x : rb) x *= static_cast<long long>(sizeof(T));
    exchange_bytes_ipc(comm, tag, send_ranks, sb, reinterpret_cast<const char*>(send.data()),
                       recv_ranks, rb, reinterpret_cast<char*>(recv.data()));
    return;
  }
  if (mpi_reads_directly<typename D::memory_space>()) {
    if (!ready) Kokkos::fence();
    post_exchange(comm, tag, send_ranks, send_displs, send.data(), recv_ranks, recv_displs,
                  recv.data(), req);
    wait_all(req);
    return;
  }
  using Host = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Host hs(reinterpret_cast<T*>(staging_buffer(0, send.extent(0) * sizeof(T))), send.extent(0));
  Host hr(reinterpret_cast<T*>(staging_buffer(1, recv.extent(0) * sizeof(T))), recv.extent(0));
  if (!ready) Kokkos::fence();
  Kokkos::deep_copy(space, hs, send);
  space.fence();
  post_exchange(comm, tag, send_ranks, send_displs, hs.data(), recv_ranks, recv_displs, hr.data(),
                req);
  wait_all(req);
  Kokkos::deep_copy(space, recv, hr);
  space.fence();  // (the staging buffer serves the next exchange)
}

/// idx(k) = wanted(k) - begin on the device; returns a wanted global index
/// outside [begin, end), or a negative number if there is none.  (A free
/// function: CUDA device lambdas may not live in constructors.)
template <class ExecSpace, class Wanted, class Idx>
static long long local_indices(const ExecSpace& space, const Wanted& wanted, const Idx& idx,
                               long long begin, long long end) {
  long long bad = -1;
  Kokkos::parallel_reduce(
      "spk::dist::send_idx", Kokkos::RangePolicy<ExecSpace>(space, 0, wanted.extent(0)),
      KOKKOS_LAMBDA(const long long k, long long& b) {
        const long long g = wanted(k);
        idx(k) = static_cast<int>(g - begin);
        if ((g < begin || g >= end) && g > b) b = g;
      },
      Kokkos::Max<long long>(bad));
  return bad;
}

/// send(k) = owned(idx(k)): the sent entries packed for the exchange,
/// queued on `space`.
template <class ExecSpace, class Owned, class Idx, class Send>
static void pack_sent(const ExecSpace& space, const Owned& owned, const Idx& idx,
                      const Send& send) {
  Kokkos::parallel_for(
      "spk::dist::pack",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<long long>(send.extent(0))),
      KOKKOS_LAMBDA(const long long k) { send(k) = owned(idx(k)); });
}

/// The pack of a device-to-device exchange: entry k of the sent list,
/// owned(idx(k)), stored straight into its receiver's memory.  Neighbour n
/// sends entries [displs(n), displs(n + 1)) to targets(n) (a device
/// address, mapped here through CUDA IPC).  Queued on `space`.
template <class T, class ExecSpace, class Owned, class Idx, class Displs, class Targets>
static void pack_to_peers(const ExecSpace& space, const Owned& owned, const Idx& idx,
                          const Displs& displs, const Targets& targets, long long count) {
  const int neighbours = static_cast<int>(targets.extent(0));
  Kokkos::parallel_for(
      "spk::dist::pack_to_peers", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const long long k) {
        int lo = 0, hi = neighbours;  // displs(lo) <= k < displs(hi)
        while (hi - lo > 1) {
          const int mid = (lo + hi) / 2;
          if (displs(mid) <= k)
            lo = mid;
          else
            hi = mid;
        }
        T* to = reinterpret_cast<T*>(targets(lo));
        to[k - displs(lo)] = owned(idx(k));
      });
}

}  // namespace spk::dist::Impl
