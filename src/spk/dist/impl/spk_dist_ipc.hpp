// Device-to-device exchanges between the ranks of one node through CUDA IPC,
// for MPI libraries that are not CUDA-aware (Open MPI as Debian and the GPU
// machines ship it).  Without this, every exchange of device data goes
// device -> host -> MPI (shared memory, a few GB/s) -> host -> device; with
// it, each sender copies straight into the receiver's device memory over
// NVLink or PCIe, and MPI carries only small tickets.
//
// Protocol of one exchange (exchange_views_ipc):
//  1. each receiver sends each of its senders a ticket: the IPC handle of its
//     inbox (a device buffer of its own, grown as needed), where in it that
//     sender's bytes go, and the inbox's generation;
//  2. each sender opens the handle (once per generation, then cached),
//     copies its bytes there on a stream of its own, waits for the copy,
//     and sends a one-byte "done" (tag + 1000);
//  3. the receiver waits for every "done" and copies the inbox into the
//     destination.
// A receiver sends tickets only when its previous exchange has finished
// reading the inbox, so inboxes are never overwritten while in use.
//
// Used when all ranks of the communicator share a node and every pair of
// their devices can reach each other (checked once per communicator,
// collectively); SPK_DIST_IPC=0 turns it off.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_mpi.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spk::dist::Impl {

inline void cuda_ipc_check(cudaError_t rc, const char* call) {
  if (rc == cudaSuccess) return;
  throw Error(std::string("spk::dist (CUDA IPC): ") + call + " failed: " + cudaGetErrorString(rc));
}
#define SPK_CUDA_IPC(call) ::spk::dist::Impl::cuda_ipc_check((call), #call)

/// What a receiver tells a sender before an exchange.
struct IpcTicket {
  cudaIpcMemHandle_t handle;
  long long generation = 0;
  long long offset = 0;  // bytes into the inbox
};

/// Per-communicator state: whether IPC is used, this rank's inbox, the
/// peers' inboxes opened here, and the copy stream.
class IpcState {
 public:
  bool usable = false;

  ~IpcState() {
    // Process teardown may have destroyed the CUDA context already: errors
    // are ignored here.
    for (auto& [rank, peer] : peers_) cudaIpcCloseMemHandle(peer.ptr);
    for (void* p : retired_) cudaFree(p);
    if (inbox_) cudaFree(inbox_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  /// The copy stream, at the device's highest priority: a copy that the
  /// driver runs as a kernel would otherwise wait for the blocks of a long
  /// kernel on another stream (C's plan exchanges while the local numeric
  /// runs: 8 ms at 2 GPUs).
  cudaStream_t stream() {
    if (!stream_) {
      int least = 0, greatest = 0;
      SPK_CUDA_IPC(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      SPK_CUDA_IPC(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
    }
    return stream_;
  }

  /// The inbox, at least `bytes` large.  A grown inbox gets a new
  /// generation; the old one is kept until teardown because senders may
  /// still have it open (freeing exported memory before the importers close
  /// it is undefined), and growth doubles, so at most as much again is kept.
  char* inbox(std::size_t bytes) {
    if (bytes > capacity_ || !inbox_) {
      const std::size_t grown = std::max<std::size_t>({bytes, 2 * capacity_, 1 << 20});
      if (inbox_) retired_.push_back(inbox_);
      SPK_CUDA_IPC(cudaMalloc(&inbox_, grown));
      SPK_CUDA_IPC(cudaIpcGetMemHandle(&handle_, inbox_));
      capacity_ = grown;
      ++generation_;
    }
    return static_cast<char*>(inbox_);
  }
  IpcTicket ticket(long long offset) const {
    IpcTicket t;
    t.handle = handle_;
    t.generation = generation_;
    t.offset = offset;
    return t;
  }

  /// rank's inbox as named by its ticket, opened here once per generation.
  char* peer_inbox(int rank, const IpcTicket& t) {
    auto it = peers_.find(rank);
    if (it != peers_.end() && it->second.generation != t.generation) {
      SPK_CUDA_IPC(cudaIpcCloseMemHandle(it->second.ptr));
      peers_.erase(it);
      it = peers_.end();
    }
    if (it == peers_.end()) {
      Peer p;
      p.generation = t.generation;
      SPK_CUDA_IPC(cudaIpcOpenMemHandle(&p.ptr, t.handle, cudaIpcMemLazyEnablePeerAccess));
      it = peers_.emplace(rank, p).first;
    }
    return static_cast<char*>(it->second.ptr);
  }

  /// Keeps device memory that other ranks may still have open until
  /// teardown (see inbox).
  void retire(void* p) {
    if (p) retired_.push_back(p);
  }

  /// The first of four MPI tags for the next IpcHalo on this communicator.
  /// Each halo has tags of its own, so the tokens of two halos used in turn
  /// never meet; every rank makes its halos in the same order (at the first,
  /// collective, exchange of each), so the numbers agree.  Within the tag
  /// range MPI guarantees, above the other exchanges' tags; reused after
  /// 5191 halos.
  int next_halo_tags() {
    constexpr int first = 12000, count = (32767 - first + 1) / 4;
    return first + 4 * static_cast<int>(halos_++ % count);
  }

 private:
  struct Peer {
    long long generation = 0;
    void* ptr = nullptr;
  };
  void* inbox_ = nullptr;
  std::size_t capacity_ = 0;
  long long generation_ = 0;
  cudaIpcMemHandle_t handle_{};
  std::vector<void*> retired_;
  std::map<int, Peer> peers_;
  cudaStream_t stream_ = nullptr;
  long long halos_ = 0;
};

/// Whether every rank of comm runs on this node and every pair of the
/// ranks' devices can reach each other (same device, or peer access).
/// Collective.
inline bool ipc_possible(MPI_Comm comm) {
  if (!settings().dist_ipc) return false;
  MPI_Comm node;
  SPK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const int node_size = comm_size(node);
  SPK_MPI(MPI_Comm_free(&node));
  const int p = comm_size(comm);
  int ok = node_size == p ? 1 : 0;
  // Devices by PCI bus id: ranks may see different CUDA_VISIBLE_DEVICES.
  constexpr int id_len = 32;
  char mine[id_len] = {0};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(mine, id_len, dev) != cudaSuccess)
    ok = 0;
  std::vector<char> all(static_cast<std::size_t>(p) * id_len);
  SPK_MPI(MPI_Allgather(mine, id_len, MPI_CHAR, all.data(), id_len, MPI_CHAR, comm));
  for (int r = 0; r < p && ok; ++r) {
    int other = -1, can = 0;
    if (cudaDeviceGetByPCIBusId(&other, all.data() + static_cast<std::size_t>(r) * id_len) !=
        cudaSuccess) {
      ok = 0;
      break;
    }
    if (other == dev) continue;
    if (cudaDeviceCanAccessPeer(&can, dev, other) != cudaSuccess || !can) ok = 0;
  }
  cudaGetLastError();  // clear what a failed query left
  int all_ok = 0;
  SPK_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
  return all_ok == 1;
}

/// comm's IpcState, made at the first call (collective then: call it where
/// every rank of comm is, e.g. when a communication plan is built), kept as
/// an MPI attribute of comm and freed with it.
inline IpcState& ipc_state(MPI_Comm comm) {
  static int keyval = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    SPK_MPI(MPI_Comm_create_keyval(
        MPI_COMM_NULL_COPY_FN,
        [](MPI_Comm, int, void* value, void*) {
          delete static_cast<IpcState*>(value);
          return MPI_SUCCESS;
        },
        &keyval, nullptr));
  void* value = nullptr;
  int found = 0;
  SPK_MPI(MPI_Comm_get_attr(comm, keyval, &value, &found));
  if (found) return *static_cast<IpcState*>(value);
  auto* st = new IpcState();
  st->usable = ipc_possible(comm);
  SPK_MPI(MPI_Comm_set_attr(comm, keyval, st));
  return *st;
}

/// One blocking exchange of bytes between neighbours through CUDA IPC
/// (displacements in bytes, as post_exchange's).  send and recv are device
/// pointers on this rank's device; send must be ready (fenced).
inline void exchange_bytes_ipc(MPI_Comm comm, int tag, const std::vector<int>& send_ranks,
                               const std::vector<long long>& send_displs, const char* send,
                               const std::vector<int>& recv_ranks,
                               const std::vector<long long>& recv_displs, char* recv) {
  IpcState& st = ipc_state(comm);
  const long long recv_bytes = recv_displs.back();
  char* inbox = st.inbox(static_cast<std::size_t>(recv_bytes));
  std::vector<MPI_Request> req;
  // 1. Tickets: receivers tell senders where to write.
  std::vector<IpcTicket> out, in(send_ranks.size());
  out.reserve(recv_ranks.size());
  for (std::size_t n = 0; n < recv_ranks.size(); ++n) {
    if (recv_displs[n + 1] == recv_displs[n]) continue;
    out.push_back(st.ticket(recv_displs[n]));
    req.emplace_back();
    SPK_MPI(
        MPI_Isend(&out.back(), sizeof(IpcTicket), MPI_BYTE, recv_ranks[n], tag, comm, &req.back()));
  }
  for (std::size_t n = 0; n < send_ranks.size(); ++n) {
    if (send_displs[n + 1] == send_displs[n]) continue;
    req.emplace_back();
    SPK_MPI(MPI_Irecv(&in[n], sizeof(IpcTicket), MPI_BYTE, send_ranks[n], tag, comm, &req.back()));
  }
  wait_all(req);
  // 2. Copies into the receivers' inboxes.
  cudaStream_t s = st.stream();
  for (std::size_t n = 0; n < send_ranks.size(); ++n) {
    const long long bytes = send_displs[n + 1] - send_displs[n];
    if (bytes == 0) continue;
    char* dst = st.peer_inbox(send_ranks[n], in[n]) + in[n].offset;
    SPK_CUDA_IPC(cudaMemcpyAsync(dst, send + send_displs[n], static_cast<std::size_t>(bytes),
                                 cudaMemcpyDeviceToDevice, s));
  }
  SPK_CUDA_IPC(cudaStreamSynchronize(s));
  // 3. "Done" to each receiver; then our own inbox into recv.
  char done = 1;
  std::vector<char> got(recv_ranks.size());
  for (std::size_t n = 0; n < send_ranks.size(); ++n) {
    if (send_displs[n + 1] == send_displs[n]) continue;
    req.emplace_back();
    SPK_MPI(MPI_Isend(&done, 1, MPI_BYTE, send_ranks[n], tag + 1000, comm, &req.back()));
  }
  for (std::size_t n = 0; n < recv_ranks.size(); ++n) {
    if (recv_displs[n + 1] == recv_displs[n]) continue;
    req.emplace_back();
    SPK_MPI(MPI_Irecv(&got[n], 1, MPI_BYTE, recv_ranks[n], tag + 1000, comm, &req.back()));
  }
  wait_all(req);
  if (recv_bytes > 0) {
    SPK_CUDA_IPC(cudaMemcpyAsync(recv, inbox, static_cast<std::size_t>(recv_bytes),
                                 cudaMemcpyDeviceToDevice, s));
    SPK_CUDA_IPC(cudaStreamSynchronize(s));
  }
}

/// Whether exchanges of device memory in MemorySpace over comm go through
/// CUDA IPC (not CUDA-aware MPI, one node, devices reach each other).
template <class MemorySpace>
bool exchanges_use_ipc(MPI_Comm comm) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
    return false;
  else
    return !cuda_aware_mpi() && ipc_state(comm).usable;
}

}  // namespace spk::dist::Impl

#else

namespace spk::dist::Impl {
template <class MemorySpace>
bool exchanges_use_ipc(MPI_Comm) {
  return false;
}
inline void exchange_bytes_ipc(MPI_Comm, int, const std::vector<int>&,
                               const std::vector<long long>&, const char*, const std::vector<int>&,
                               const std::vector<long long>&, char*) {
  throw Error("spk::dist: CUDA IPC exchanges need a CUDA build");
}
}  // namespace spk::dist::Impl

#endif
