// A repeated exchange that stays on the devices: the ranks of one node write
// each other's receive buffers through CUDA IPC, and CUDA IPC events order
// those writes against the kernels that read them.  Made for a pattern
// exchanged again and again (the SpMV's ghost entries of x): after the first
// call an exchange costs one pack kernel, which stores straight into the
// neighbours' memory, an event record and one-byte MPI tokens; no host thread
// waits for a device.
//
// Protocol between a sender S and a receiver R of one pattern:
//  - connect (the first call; collective between neighbours): R allocates its
//    receive buffer and an interprocess event "consumed" and sends S their
//    handles and where S's bytes go; S opens them and sends R the handle of
//    its own event "sent".
//  - call k on S (before_pack, the pack, after_pack): for k > 0, receive R's
//    token "consumed k-1" and make the stream wait on R's consumed event, so
//    the pack does not overwrite values R's kernels still read; pack into R's
//    buffer; record "sent"; send R a token.
//  - call k on R (wait_arrival, the kernels that read, release): receive each
//    sender's token and make the stream wait on its sent event; after the
//    kernels that read the buffer, record "consumed" and send each sender a
//    token.
// A token is sent after its event is recorded, and cudaStreamWaitEvent waits
// for the latest record at the time of the call, so each wait meets the
// right record.  Every call on S must be matched by wait_arrival and release
// on R.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_ipc.hpp>
#include <impl/spk_dist_mpi.hpp>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

namespace spk::dist::Impl {

/// The CUDA stream of `space`, or the legacy default stream for other
/// execution spaces.
template <class ExecSpace>
cudaStream_t stream_of(const ExecSpace& space) {
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    return space.cuda_stream();
  else
    return nullptr;
}

/// One neighbour pattern's device-to-device exchange (see the top of this
/// file).  Displacements in bytes, as exchange_bytes_ipc's.  Its four MPI
/// tags on comm are its own (IpcState::next_halo_tags).
class IpcHalo {
 public:
  IpcHalo(const IpcHalo&) = delete;
  IpcHalo& operator=(const IpcHalo&) = delete;

  /// Collective between the neighbours named (each must construct the
  /// matching IpcHalo).  recv_displs: where each sender's bytes go in this
  /// rank's buffer; the senders learn theirs from their receivers.
  IpcHalo(MPI_Comm comm, const std::vector<int>& send_ranks, const std::vector<int>& recv_ranks,
          const std::vector<long long>& recv_displs)
      : comm_(comm),
        tag_(ipc_state(comm).next_halo_tags()),
        send_ranks_(send_ranks),
        recv_ranks_(recv_ranks) {
    const long long recv_bytes = recv_displs.back();
    if (!recv_ranks_.empty()) {
      SPK_CUDA_IPC(cudaMalloc(&buffer_, static_cast<std::size_t>(std::max(recv_bytes, 1LL))));
      consumed_ = new_event();
    }
    if (!send_ranks_.empty()) sent_ = new_event();
    connect(recv_displs);
  }

  ~IpcHalo() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      // Drain the tokens still on their way, so that none is met by a later
      // exchange that uses the same tags (MPI called directly: a destructor
      // must not throw).
      MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
      char token = 0;
      if (calls_ > 0)
        for (int r : send_ranks_)
          MPI_Recv(&token, 1, MPI_BYTE, r, tag_ + 3, comm_, MPI_STATUS_IGNORE);
    }
    for (void* p : targets_) cudaIpcCloseMemHandle(p);
    for (cudaEvent_t e : peer_sent_) cudaEventDestroy(e);
    for (cudaEvent_t e : peer_consumed_) cudaEventDestroy(e);
    if (sent_) cudaEventDestroy(sent_);
    if (consumed_) cudaEventDestroy(consumed_);
    // Senders may still have the buffer open: the communicator's IPC state
    // frees it at teardown.
    if (buffer_) {
      if (finalized)
        cudaFree(buffer_);
      else
        ipc_state(comm_).retire(buffer_);
    }
  }

  /// This rank's receive buffer (device memory, the received bytes in
  /// recv_displs order).
  char* recv_buffer() const noexcept { return static_cast<char*>(buffer_); }
  /// Per send neighbour, where its bytes go in that neighbour's buffer.
  const std::vector<char*>& targets() const noexcept { return target_at_; }

  /// Before the pack on `stream`: from the second call on, the neighbours'
  /// kernels that read the previous values come first.
  void before_pack(cudaStream_t stream) {
    complete_pending();
    if (calls_ == 0) return;
    receive_tokens(send_ranks_, tag_ + 3);
    for (cudaEvent_t e : peer_consumed_) SPK_CUDA_IPC(cudaStreamWaitEvent(stream, e, 0));
  }

  /// After the pack on `stream`: tells the receivers that their values are
  /// on the way.
  void after_pack(cudaStream_t stream) {
    ++calls_;
    if (send_ranks_.empty()) return;
    SPK_CUDA_IPC(cudaEventRecord(sent_, stream));
    send_tokens(send_ranks_, tag_ + 2);
  }

  /// Work queued on `stream` from now on sees every neighbour's values.
  void wait_arrival(cudaStream_t stream) {
    receive_tokens(recv_ranks_, tag_ + 2);
    for (cudaEvent_t e : peer_sent_) SPK_CUDA_IPC(cudaStreamWaitEvent(stream, e, 0));
  }

  /// After the kernels on `stream` that read the buffer: the senders may
  /// write it again.
  void release(cudaStream_t stream) {
    if (recv_ranks_.empty()) return;
    SPK_CUDA_IPC(cudaEventRecord(consumed_, stream));
    send_tokens(recv_ranks_, tag_ + 3);
  }

 private:
  struct ReceiverTicket {
    cudaIpcMemHandle_t memory;
    cudaIpcEventHandle_t consumed;
    long long offset = 0;  // bytes into the receiver's buffer
  };

  static cudaEvent_t new_event() {
    cudaEvent_t e = nullptr;
    SPK_CUDA_IPC(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess));
    return e;
  }

  void connect(const std::vector<long long>& recv_displs) {
    std::vector<MPI_Request> req;
    std::vector<ReceiverTicket> out(recv_ranks_.size()), in(send_ranks_.size());
    std::vector<cudaIpcEventHandle_t> sent_handle(1), peer_sent_handle(recv_ranks_.size());
    cudaIpcMemHandle_t memory{};
    cudaIpcEventHandle_t consumed{};
    if (!recv_ranks_.empty()) {
      SPK_CUDA_IPC(cudaIpcGetMemHandle(&memory, buffer_));
      SPK_CUDA_IPC(cudaIpcGetEventHandle(&consumed, consumed_));
    }
    if (!send_ranks_.empty()) SPK_CUDA_IPC(cudaIpcGetEventHandle(&sent_handle[0], sent_));
    for (std::size_t n = 0; n < recv_ranks_.size(); ++n) {
      out[n] = ReceiverTicket{memory, consumed, recv_displs[n]};
      req.emplace_back();
      SPK_MPI(MPI_Isend(&out[n], sizeof(ReceiverTicket), MPI_BYTE, recv_ranks_[n], tag_, comm_,
                        &req.back()));
      req.emplace_back();
      SPK_MPI(MPI_Irecv(&peer_sent_handle[n], sizeof(cudaIpcEventHandle_t), MPI_BYTE,
                        recv_ranks_[n], tag_ + 1, comm_, &req.back()));
    }
    for (std::size_t n = 0; n < send_ranks_.size(); ++n) {
      req.emplace_back();
      SPK_MPI(MPI_Irecv(&in[n], sizeof(ReceiverTicket), MPI_BYTE, send_ranks_[n], tag_, comm_,
                        &req.back()));
      req.emplace_back();
      SPK_MPI(MPI_Isend(&sent_handle[0], sizeof(cudaIpcEventHandle_t), MPI_BYTE, send_ranks_[n],
                        tag_ + 1, comm_, &req.back()));
    }
    wait_all(req);
    for (std::size_t n = 0; n < send_ranks_.size(); ++n) {
      void* p = nullptr;
      SPK_CUDA_IPC(cudaIpcOpenMemHandle(&p, in[n].memory, cudaIpcMemLazyEnablePeerAccess));
      targets_.push_back(p);
      target_at_.push_back(static_cast<char*>(p) + in[n].offset);
      cudaEvent_t e = nullptr;
      SPK_CUDA_IPC(cudaIpcOpenEventHandle(&e, in[n].consumed));
      peer_consumed_.push_back(e);
    }
    for (std::size_t n = 0; n < recv_ranks_.size(); ++n) {
      cudaEvent_t e = nullptr;
      SPK_CUDA_IPC(cudaIpcOpenEventHandle(&e, peer_sent_handle[n]));
      peer_sent_.push_back(e);
    }
  }

  void send_tokens(const std::vector<int>& ranks, int tag) {
    static const char token = 1;
    for (int r : ranks) {
      pending_.emplace_back();
      SPK_MPI(MPI_Isend(&token, 1, MPI_BYTE, r, tag, comm_, &pending_.back()));
    }
  }
  void receive_tokens(const std::vector<int>& ranks, int tag) {
    char token = 0;
    for (int r : ranks) SPK_MPI(MPI_Recv(&token, 1, MPI_BYTE, r, tag, comm_, MPI_STATUS_IGNORE));
  }
  void complete_pending() { wait_all(pending_); }

  MPI_Comm comm_;
  int tag_;
  std::vector<int> send_ranks_, recv_ranks_;
  void* buffer_ = nullptr;
  cudaEvent_t sent_ = nullptr, consumed_ = nullptr;
  std::vector<void*> targets_;    // the receivers' buffers, opened here
  std::vector<char*> target_at_;  // where this rank's bytes go in them
  std::vector<cudaEvent_t> peer_sent_, peer_consumed_;
  std::vector<MPI_Request> pending_;  // tokens sent, not yet known delivered
  long long calls_ = 0;
};

}  // namespace spk::dist::Impl

#else

namespace spk::dist::Impl {
/// Without CUDA there is no device-to-device exchange; CommPlan never
/// makes one (exchanges_use_ipc is false).
class IpcHalo {
 public:
  IpcHalo(MPI_Comm, const std::vector<int>&, const std::vector<int>&,
          const std::vector<long long>&) {
    throw Error("spk::dist: CUDA IPC exchanges need a CUDA build");
  }
  char* recv_buffer() const noexcept { return nullptr; }
  const std::vector<char*>& targets() const noexcept { return none_; }
  template <class Stream>
  void before_pack(Stream) {}
  template <class Stream>
  void after_pack(Stream) {}
  template <class Stream>
  void wait_arrival(Stream) {}
  template <class Stream>
  void release(Stream) {}

 private:
  std::vector<char*> none_;
};

template <class ExecSpace>
std::nullptr_t stream_of(const ExecSpace&) {
  return nullptr;
}
}  // namespace spk::dist::Impl

#endif
