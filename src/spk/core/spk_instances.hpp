// Execution space instances spk runs work on besides the caller's: the
// streams SpGEMM's bins overlap on, the distributed product's high-priority
// and copy streams, and stream_wait, which orders work between instances
// without a host synchronisation.
//
// On CUDA with Kokkos 4, spk makes these streams itself the first time a
// caller's stream needs them and keeps them until Kokkos::finalize (making a
// Kokkos::Cuda instance costs allocations and synchronisations):
//   - Bins: up to Settings::max_bin_streams (4) per caller stream, at that
//     stream's priority, for the kernels of SpGEMM's row bins;
//   - Priority: one per caller stream at the device's highest priority, for
//     the distributed product's ghost block and plan (the GPU schedules its
//     blocks before those of busy streams);
//   - Helper: one per caller stream at the highest priority, for copies
//     that should run beside the kernels.
// With Settings::side_streams = SideStreams::CallerOnly none is made and all
// the work runs in order on the caller's instance.  Host backends never get
// instances of spk's own (the caller's instance n times).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <map>
#include <mutex>
#include <spk_compat.hpp>
#include <spk_settings.hpp>
#include <utility>
#include <vector>

namespace spk::Impl {

/// Whether spk may create instances of its own now (Settings::side_streams).
inline bool side_streams_allowed() { return settings().side_streams == SideStreams::Own; }

#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
/// What a set of extra streams made for a stream is for (cuda_instances_for).
enum class StreamRole { Bins, Priority, Helper };

/// Kokkos::Cuda instances on streams of their own, made for the stream of
/// `space` (key: that stream and `role`) the first time and kept until
/// Kokkos::finalize: creating an instance costs allocations and
/// synchronisations.  The Priority and Helper streams get the device's
/// highest priority, the Bins streams the priority of `space`'s stream;
/// either is looked up only when they are made (callers ask on every
/// product).
inline std::vector<Kokkos::Cuda>& cuda_instances_for(const Kokkos::Cuda& space, StreamRole role,
                                                     int n) {
  const bool highest = role != StreamRole::Bins;
  using Key = std::pair<cudaStream_t, StreamRole>;
  static std::mutex mutex;
  static std::map<Key, std::vector<Kokkos::Cuda>>* made = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!made) {
    made = new std::map<Key, std::vector<Kokkos::Cuda>>();
    Kokkos::push_finalize_hook([]() {
      const std::lock_guard<std::mutex> l(mutex);
      delete made;
      made = nullptr;
    });
  }
  auto& v = (*made)[Key(space.cuda_stream(), role)];
  if (v.empty()) {
    int device = 0;
    cudaGetDevice(&device);
    cudaSetDevice(space.cuda_device());
    int priority = 0, least = 0;
    if (highest)
      cudaDeviceGetStreamPriorityRange(&least, &priority);
    else
      cudaStreamGetPriority(space.cuda_stream(), &priority);
    for (int k = 0; k < n; ++k) {
      cudaStream_t s = nullptr;
      const cudaError_t e = cudaStreamCreateWithPriority(&s, cudaStreamDefault, priority);
      if (e != cudaSuccess) {
        cudaGetLastError();
        v.assign(n, space);  // no new stream: the work runs in order on `space`
        break;
      }
      v.push_back(Kokkos::Cuda(s, Kokkos::Impl::ManageStream::yes));
    }
    cudaSetDevice(device);
  }
  return v;
}
#endif

/// n execution space instances whose work may overlap: separate CUDA
/// streams with Kokkos 4 on devices (Settings::max_bin_streams at most, none
/// with SideStreams::CallerOnly; at the priority of `space`'s
/// stream; each instance of `space` gets streams of its own, so that the
/// work of two instances does not queue on shared streams), the given
/// instance n times otherwise (Kokkos 3.4 has no partition_space; on hosts
/// it would split the threads).
template <class ExecSpace>
std::vector<ExecSpace> concurrent_instances(const ExecSpace& space, int n) {
#if SPK_KOKKOS_4
  if constexpr (!is_host_space_v<ExecSpace>) {
    n = std::min(n, std::clamp(settings().max_bin_streams, 1, 4));
    if (n > 1 && side_streams_allowed()) {
#if defined(KOKKOS_ENABLE_CUDA)
      if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
        const auto& v = cuda_instances_for(space, StreamRole::Bins, 4);
        return std::vector<ExecSpace>(v.begin(), v.begin() + std::min<int>(n, 4));
      }
#endif
      static std::vector<ExecSpace>* pool = nullptr;
      if (!pool) {
        pool = new std::vector<ExecSpace>(
            Kokkos::Experimental::partition_space(space, std::vector<int>(4, 1)));
        Kokkos::push_finalize_hook([]() {
          delete pool;
          pool = nullptr;
        });
      }
      return std::vector<ExecSpace>(pool->begin(), pool->begin() + std::min<int>(n, 4));
    }
  }
#endif
  return std::vector<ExecSpace>(n > 0 ? n : 1, space);
}

/// An instance for short work that may overlap the work queued on `space`
/// and should not wait behind it (the distributed product's ghost block and
/// communication plan while its local block's numeric runs): on CUDA with
/// Kokkos 4 a stream of its own at the device's highest priority, whose
/// blocks the GPU schedules before those of the streams already busy;
/// `space` itself elsewhere.  Order it after `space`'s work with
/// stream_wait.
template <class ExecSpace>
ExecSpace priority_instance(const ExecSpace& space) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    if (side_streams_allowed()) return cuda_instances_for(space, StreamRole::Priority, 1).front();
#endif
  return space;
}

/// An instance for bulk work (copies) that should run beside the work
/// queued on `space` and on its concurrent_instances without waiting for
/// them: on CUDA with Kokkos 4 a stream of its own at the device's highest
/// priority (at the priority of `space`, the blocks of a large kernel
/// already running there took every SM first); `space` itself elsewhere.
template <class ExecSpace>
ExecSpace helper_instance(const ExecSpace& space) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    if (side_streams_allowed()) return cuda_instances_for(space, StreamRole::Helper, 1).front();
#endif
  return space;
}

/// Whether the work queued on `space` so far has finished (without waiting
/// for it): a stream query on CUDA with Kokkos 4; true elsewhere (host
/// instances run what they are given before returning).
template <class ExecSpace>
bool instance_idle(const ExecSpace& space) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    return cudaStreamQuery(space.cuda_stream()) == cudaSuccess;
#endif
  (void)space;
  return true;
}

#if defined(KOKKOS_ENABLE_CUDA)
/// An event kept for `stream` until Kokkos finalizes: stream_wait records
/// it and makes the waiter wait on it right away, so one per stream is
/// enough (creating and destroying one per wait cost microseconds, eight
/// times per SpGEMM phase).
inline cudaEvent_t cuda_stream_event(cudaStream_t stream) {
  static std::mutex mutex;
  static std::vector<std::pair<cudaStream_t, cudaEvent_t>>* events = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!events) {
    events = new std::vector<std::pair<cudaStream_t, cudaEvent_t>>();
    Kokkos::push_finalize_hook([]() {
      const std::lock_guard<std::mutex> l(mutex);
      for (const auto& e : *events) cudaEventDestroy(e.second);
      delete events;
      events = nullptr;
    });
  }
  for (const auto& e : *events)
    if (e.first == stream) return e.second;
  cudaEvent_t ev;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  events->emplace_back(stream, ev);
  return ev;
}
#endif

/// `waiter` starts its later work only after the work queued on `waited`
/// so far: an event on CUDA (no host synchronisation), a fence elsewhere.
template <class ExecSpace>
void stream_wait(const ExecSpace& waiter, const ExecSpace& waited) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    if (waiter.cuda_stream() == waited.cuda_stream()) return;
    // The wait takes the event's state now: recording it again later for
    // another wait does not change this one.
    const cudaEvent_t ev = cuda_stream_event(waited.cuda_stream());
    cudaEventRecord(ev, waited.cuda_stream());
    cudaStreamWaitEvent(waiter.cuda_stream(), ev, 0);
    return;
  }
#endif
  (void)waiter;
  waited.fence();
}

}  // namespace spk::Impl
