// CommPlan: the halo exchange of a row-distributed matrix, built once and
// reused by every product (SpMV's ghost entries of x, SpGEMM's rows of B).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <impl/spk_dist_exchange.hpp>
#include <impl/spk_dist_ipc.hpp>
#include <impl/spk_dist_ipc_halo.hpp>
#include <memory>
#include <spk_device.hpp>
#include <spk_dist_layout.hpp>
#include <spk_memory_pool.hpp>
#include <vector>

namespace spk::dist {

/// How one exchange of device data travels: written straight into the
/// neighbours' memory through CUDA IPC (ranks of one node, MPI not
/// CUDA-aware), handed to a CUDA-aware MPI as it is, or staged through
/// page-locked host memory.  Host data always goes to MPI as it is (Direct).
enum class HaloPath { Ipc, Direct, Staged };

inline const char* to_string(HaloPath p) {
  switch (p) {
    case HaloPath::Ipc:
      return "cuda-ipc";
    case HaloPath::Direct:
      return "direct";
    case HaloPath::Staged:
      return "staged";
  }
  return "?";
}

/// The buffers and state of one exchange of T; reused across calls.  Kept
/// apart from the plan so that one plan serves several value types.
template <class T, class Device>
struct HaloBuffers {
  Kokkos::View<T*, Device> send;
  Kokkos::View<T*, Impl::StagingSpace> send_host, recv_host;
  std::vector<MPI_Request> requests;
  HaloPath path = HaloPath::Direct;
  // HaloPath::Ipc: the neighbour connection (made at the first exchange) and,
  // on the device, where each send neighbour's entries go and from where.
  std::shared_ptr<Impl::IpcHalo> ipc;
  Kokkos::View<std::uintptr_t*, Device> ipc_targets;
  Kokkos::View<long long*, Device> ipc_send_displs;
};

/// Who sends which owned entries to whom.  The ghost list (sorted global
/// indices owned by other ranks) is grouped by owner because blocks are
/// contiguous, so each neighbour's entries land in one contiguous range.
template <class Device = DefaultDevice>
class CommPlan {
 public:
  using device_type = device_t<Device>;
  using memory_space = typename device_type::memory_space;
  using index_view = Kokkos::View<int*, device_type>;

  CommPlan() = default;

  /// Collective over layout's communicator.  ghost_gids: sorted, distinct,
  /// none owned by this rank.  ghost_gids_device: the same list in device
  /// memory, complete (no kernel still writing it; needed, on every rank,
  /// when device exchanges go through CUDA IPC: then the owners learn what
  /// is wanted from them device to device, without a fence).  step
  /// (optional) is called with a name after each stage, for timings.
  CommPlan(const RowLayout& layout, const std::vector<long long>& ghost_gids,
           const Kokkos::View<long long*, device_type>& ghost_gids_device,
           const Impl::StepTimer& step = {})
      : CommPlan(typename device_type::execution_space(), layout, ghost_gids, ghost_gids_device,
                 step) {}

  /// As above, with its device work on `space` (fenced), which is the only
  /// instance it waits for: spk::dist::spgemm builds C's plan on a second
  /// instance while the local block's numeric runs on the first.
  template <class ExecSpace>
  CommPlan(const ExecSpace& space, const RowLayout& layout,
           const std::vector<long long>& ghost_gids,
           const Kokkos::View<long long*, device_type>& ghost_gids_device,
           const Impl::StepTimer& step = {})
      : comm_(layout.comm()) {
    const int p = layout.num_ranks();
    SPK_REQUIRE(layout.local_size() <= INT_MAX && ghost_gids.size() <= size_t(INT_MAX), Overflow,
                "spk::dist::CommPlan: more than 2^31 local or ghost entries on rank ",
                layout.rank());
    std::vector<int> need(p, 0), give(p, 0);
    recv_displs_.assign(1, 0);
    for (size_t k = 0; k < ghost_gids.size();) {
      const int r = layout.owner(ghost_gids[k]);
      SPK_REQUIRE(r != layout.rank(), InvalidMatrix, "spk::dist::CommPlan: ghost index ",
                  ghost_gids[k], " is owned by this rank");
      size_t e = k;
      while (e < ghost_gids.size() && ghost_gids[e] < layout.offset(r + 1)) ++e;
      recv_ranks_.push_back(r);
      recv_displs_.push_back(static_cast<long long>(e));
      need[r] = static_cast<int>(e - k);
      k = e;
    }
    SPK_MPI(MPI_Alltoall(need.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm_));
    // Decide here, where every rank is, whether device exchanges over this
    // communicator go through CUDA IPC (collective the first time).
    const bool ipc = Impl::exchanges_use_ipc<memory_space>(comm_);
    ipc_halo_ = ipc && settings().dist_ipc_halo;
    if (step) step("plan.alltoall");
    send_displs_.assign(1, 0);
    for (int r = 0; r < p; ++r)
      if (give[r] > 0) {
        send_ranks_.push_back(r);
        send_displs_.push_back(send_displs_.back() + give[r]);
      }
    // Tell each owner which of its entries we need.
    const long long nw = send_displs_.back();
    // From spk's pool where the exchanges do not hand it to MPI in place: a
    // cudaMalloc here would be ordered against the other instance's kernels.
    send_idx_ = spk::Impl::result_view<index_view>(space, "spk::dist::send_idx", nw,
                                                   !Impl::mpi_reads_directly<memory_space>());
    const long long begin = layout.begin();
    long long bad = -1;  // a wanted index this rank does not own
    if (ipc) {
      SPK_REQUIRE(ghost_gids_device.extent(0) == ghost_gids.size(), ShapeMismatch,
                  "spk::dist::CommPlan: the device ghost list has ", ghost_gids_device.extent(0),
                  " entries, the host one ", ghost_gids.size());
      std::vector<std::shared_ptr<void>> temps;
      const auto wanted = spk::Impl::pooled_view<Kokkos::View<long long*, device_type>>(
          space, temps, "spk::dist::wanted", nw);
      space.fence();  // (the IPC copies write `wanted` on a stream of their own)
      Impl::exchange_views(comm_, 7101, recv_ranks_, recv_displs_, ghost_gids_device, send_ranks_,
                           send_displs_, wanted, true);
      if (step) step("plan.wanted_gids");
      bad = Impl::local_indices(space, wanted, send_idx_, begin, layout.end());
    } else {
      std::vector<long long> wanted(nw);
      std::vector<MPI_Request> req;
      Impl::post_exchange(comm_, 7101, recv_ranks_, recv_displs_, ghost_gids.data(), send_ranks_,
                          send_displs_, wanted.data(), req);
      Impl::wait_all(req);
      if (step) step("plan.wanted_gids");
      auto h = Kokkos::create_mirror_view(send_idx_);
      for (long long k = 0; k < nw; ++k) {
        if (!layout.owns(wanted[k]) && bad < 0) bad = wanted[k];
        h(k) = static_cast<int>(wanted[k] - begin);
      }
      Kokkos::deep_copy(space, send_idx_, h);
      space.fence();  // h goes at the end of this scope
    }
    SPK_REQUIRE(bad < 0, InvalidMatrix, "spk::dist::CommPlan: rank asked for ", bad, " which rank ",
                layout.rank(), " does not own");
    if (step) step("plan.send_indices");
  }

  MPI_Comm comm() const noexcept { return comm_; }
  const std::vector<int>& send_ranks() const noexcept { return send_ranks_; }
  const std::vector<long long>& send_displs() const noexcept { return send_displs_; }
  const std::vector<int>& recv_ranks() const noexcept { return recv_ranks_; }
  const std::vector<long long>& recv_displs() const noexcept { return recv_displs_; }
  /// Local indices of the owned entries sent, neighbour by neighbour.
  const index_view& send_indices() const noexcept { return send_idx_; }
  /// send_indices() in host memory (copied at the first call).
  const std::vector<int>& send_indices_host() const {
    if (send_idx_host_.size() != static_cast<std::size_t>(send_idx_.extent(0))) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), send_idx_);
      send_idx_host_.assign(h.data(), h.data() + h.extent(0));
    }
    return send_idx_host_;
  }
  long long num_sent() const noexcept { return send_displs_.back(); }
  long long num_received() const noexcept { return recv_displs_.back(); }

  /// Which way exchanges of this plan's device data travel.
  HaloPath path() const noexcept {
    if (ipc_halo_) return HaloPath::Ipc;
    return Impl::mpi_reads_directly<memory_space>() ? HaloPath::Direct : HaloPath::Staged;
  }

  /// Starts sending owned(send_indices) to the neighbours and receiving
  /// their entries (one per ghost index).  Collective over the neighbours;
  /// every begin is followed by finish, or by finish_in_place and release,
  /// on every rank.  Through CUDA IPC the pack kernel on `space` stores into
  /// the neighbours' memory and nothing waits for the device; otherwise the
  /// pack is fenced before MPI sees the buffer.
  template <class ExecSpace, class Owned, class T, class... PG>
  void begin(const ExecSpace& space, const Owned& owned, const Kokkos::View<T*, PG...>& ghost,
             HaloBuffers<T, device_type>& buf, int tag = 7102) const {
    using U = std::remove_const_t<T>;
    static_assert(std::is_same_v<U, T>, "begin: the ghost View must not be const");
    const long long ns = num_sent(), nr = num_received();
    SPK_REQUIRE(static_cast<long long>(ghost.extent(0)) == nr, ShapeMismatch,
                "spk::dist::CommPlan: ghost buffer has ", ghost.extent(0), " entries, expected ",
                nr);
    buf.path = path();
    if (buf.path == HaloPath::Ipc) {
      if (!buf.ipc) connect_ipc(buf);
      buf.ipc->before_pack(Impl::stream_of(space));
      if (ns > 0)
        Impl::pack_to_peers<U>(space, owned, send_idx_, buf.ipc_send_displs, buf.ipc_targets, ns);
      buf.ipc->after_pack(Impl::stream_of(space));
      return;
    }
    if (buf.send.extent(0) != static_cast<size_t>(ns))
      buf.send = Kokkos::View<U*, device_type>(
          Kokkos::ViewAllocateWithoutInitializing("spk::dist::halo_send"), ns);
    auto send = buf.send;
    Impl::pack_sent(space, owned, send_idx_, send);
    if (buf.path == HaloPath::Direct) {
      space.fence();
      Impl::post_exchange(comm_, tag, send_ranks_, send_displs_, send.data(), recv_ranks_,
                          recv_displs_, ghost.data(), buf.requests);
      return;
    }
    if (buf.send_host.extent(0) != static_cast<size_t>(ns))
      buf.send_host = Kokkos::View<U*, Impl::StagingSpace>(
          Kokkos::ViewAllocateWithoutInitializing("spk::dist::halo_send_host"), ns);
    if (buf.recv_host.extent(0) != static_cast<size_t>(nr))
      buf.recv_host = Kokkos::View<U*, Impl::StagingSpace>(
          Kokkos::ViewAllocateWithoutInitializing("spk::dist::halo_recv_host"), nr);
    Kokkos::deep_copy(space, buf.send_host, send);  // after the pack, on the same instance
    space.fence();
    Impl::post_exchange(comm_, tag, send_ranks_, send_displs_, buf.send_host.data(), recv_ranks_,
                        recv_displs_, buf.recv_host.data(), buf.requests);
  }

  /// Finishes the exchange begun with `buf` for the work queued on `space`
  /// from now on, and returns where the ghost values are: `ghost` itself,
  /// or, through CUDA IPC, the buffer the neighbours wrote (no copy; valid
  /// until release).  Through CUDA IPC the host does not wait for a device.
  template <class ExecSpace, class T, class... PG>
  Kokkos::View<const T*, device_type, Kokkos::MemoryUnmanaged> finish_in_place(
      const ExecSpace& space, const Kokkos::View<T*, PG...>& ghost,
      HaloBuffers<T, device_type>& buf) const {
    using Result = Kokkos::View<const T*, device_type, Kokkos::MemoryUnmanaged>;
    if (buf.path == HaloPath::Ipc) {
      buf.ipc->wait_arrival(Impl::stream_of(space));
      return Result(reinterpret_cast<const T*>(buf.ipc->recv_buffer()), num_received());
    }
    Impl::wait_all(buf.requests);
    if (buf.path == HaloPath::Staged && ghost.extent(0) > 0) {
      Kokkos::deep_copy(space, ghost, buf.recv_host);
      space.fence();  // the next exchange receives into recv_host again
    }
    return Result(ghost.data(), ghost.extent(0));
  }

  /// After the work on `space` that reads what finish_in_place returned:
  /// the neighbours may write the next values.
  template <class ExecSpace, class T>
  void release(const ExecSpace& space, HaloBuffers<T, device_type>& buf) const {
    if (buf.path == HaloPath::Ipc) buf.ipc->release(Impl::stream_of(space));
  }

  /// Waits for the exchange begun with `buf`; ghost then holds the values.
  template <class T, class... PG>
  void finish(const Kokkos::View<T*, PG...>& ghost, HaloBuffers<T, device_type>& buf) const {
    const typename device_type::execution_space space;
    const auto values = finish_in_place(space, ghost, buf);
    if (values.data() != ghost.data()) Kokkos::deep_copy(space, ghost, values);
    release(space, buf);
    space.fence();
  }

 private:
  /// Connects buf's exchange with the neighbours' (collective between them)
  /// and puts each send neighbour's target and range on the device.
  template <class T>
  void connect_ipc(HaloBuffers<T, device_type>& buf) const {
    std::vector<long long> recv_bytes(recv_displs_);
    for (auto& x : recv_bytes) x *= static_cast<long long>(sizeof(T));
    buf.ipc = std::make_shared<Impl::IpcHalo>(comm_, send_ranks_, recv_ranks_, recv_bytes);
    const auto& at = buf.ipc->targets();
    Kokkos::View<std::uintptr_t*, Kokkos::HostSpace> t("spk::dist::ipc_targets", at.size());
    for (std::size_t n = 0; n < at.size(); ++n) t(n) = reinterpret_cast<std::uintptr_t>(at[n]);
    Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> d(
        const_cast<long long*>(send_displs_.data()), send_displs_.size());
    buf.ipc_targets = Kokkos::create_mirror_view_and_copy(device_type(), t);
    buf.ipc_send_displs = Kokkos::create_mirror_view_and_copy(device_type(), d);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool ipc_halo_ = false;  // begin / finish go through CUDA IPC
  std::vector<int> send_ranks_, recv_ranks_;
  std::vector<long long> send_displs_{0}, recv_displs_{0};
  index_view send_idx_;
  mutable std::vector<int> send_idx_host_;
};

}  // namespace spk::dist
