// Stream-ordered memory for spk's temporaries (the SpGEMM work arrays, long-row
// slabs, the distributed layer's merged operands).
//
// On CUDA, spk takes its temporaries from a memory pool of its own
// (cudaMallocFromPoolAsync / cudaFreeAsync on the stream of the execution
// space instance that uses them).  Freeing is stream-ordered, so it never
// waits for the device, and the pool keeps freed memory for the next call up
// to a release threshold, so a product in steady state maps no new pages.
// cudaMalloc/cudaFree (what Kokkos' CudaSpace uses unless Kokkos was built
// with Kokkos_ENABLE_IMPL_CUDA_MALLOC_ASYNC, and even then with a device
// synchronisation around each call) cost a synchronisation per free and
// slow down when several processes drive GPUs at once.
//
// Results handed to the caller (C's arrays) are managed Kokkos Views; on CUDA
// their memory comes from the pool too unless the caller asks otherwise
// (result_view; SpgemmOptions::result_memory).
// Host execution spaces allocate temporaries as Kokkos Views (no pool).
//
// Controls (environment, read at the first pooled allocation):
//   SPK_MEMORY_POOL=0                  temporaries come from Kokkos (no pool)
//   SPK_MEMORY_POOL_KEEP_BYTES=<n>     release threshold: bytes the pool keeps
//                                      when idle (default: a quarter of the
//                                      device's memory)
// spk::trim_memory_pool() gives the kept memory back to the device.  Pool
// allocations are reported to Kokkos' profiling hooks (space "spk::pool"),
// so memory tools see them.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <spk_compat.hpp>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>
#include <utility>
#include <vector>

namespace spk {
namespace Impl {

inline bool memory_pool_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("SPK_MEMORY_POOL");
    return !(e && std::string(e) == "0");
  }();
  return on;
}

#if defined(KOKKOS_ENABLE_CUDA)
/// spk's pool on one device: created at first use, destroyed at
/// Kokkos::finalize (outstanding blocks are released when freed).
inline cudaMemPool_t cuda_memory_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t>* pools = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!pools) {
    int n = 0;
    cudaGetDeviceCount(&n);
    pools = new std::vector<cudaMemPool_t>(n > 0 ? n : 1, nullptr);
    Kokkos::push_finalize_hook([]() {
      std::lock_guard<std::mutex> l(mutex);
      for (auto p : *pools)
        if (p) cudaMemPoolDestroy(p);
      delete pools;
      pools = nullptr;
    });
  }
  SPK_REQUIRE(device >= 0 && device < static_cast<int>(pools->size()), Error,
              "spk memory pool: no CUDA device ", device);
  cudaMemPool_t& pool = (*pools)[device];
  if (!pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    const cudaError_t e = cudaMemPoolCreate(&pool, &props);
    SPK_REQUIRE(e == cudaSuccess, Error, "spk memory pool: cudaMemPoolCreate on device ", device,
                ": ", cudaGetErrorString(e));
    std::uint64_t keep = 0;
    if (const char* s = std::getenv("SPK_MEMORY_POOL_KEEP_BYTES")) {
      keep = std::strtoull(s, nullptr, 10);
    } else {
      cudaDeviceProp prop;
      cudaGetDeviceProperties(&prop, device);
      keep = prop.totalGlobalMem / 4;
    }
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  return pool;
}
#endif

#if defined(KOKKOS_ENABLE_CUDA)
/// bytes from spk's pool, usable in stream order on `space` (trims what the
/// pool keeps and retries once when the device is full); reported to
/// Kokkos' profiling hooks as space "spk::pool".
inline void* cuda_pool_allocate(const Kokkos::Cuda& space, const char* label, std::size_t bytes) {
  cudaMemPool_t pool = cuda_memory_pool(space.cuda_device());
  void* p = nullptr;
  cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool, space.cuda_stream());
  if (e == cudaErrorMemoryAllocation) {
    // Memory the pool keeps may be what is missing.
    cudaGetLastError();
    space.fence();
    cudaMemPoolTrimTo(pool, 0);
    e = cudaMallocFromPoolAsync(&p, bytes, pool, space.cuda_stream());
  }
  if (e != cudaSuccess) cudaGetLastError();
  SPK_REQUIRE(e == cudaSuccess, Error, "spk memory pool: could not allocate ", bytes,
              " bytes for '", label, "': ", cudaGetErrorString(e));
  Kokkos::Tools::allocateData(Kokkos::Tools::make_space_handle("spk::pool"), label, p, bytes);
  return p;
}

inline void pool_report_free(void* p, std::size_t bytes, const std::string& label) {
  Kokkos::Tools::deallocateData(Kokkos::Tools::make_space_handle("spk::pool"), label, p, bytes);
}
#endif

/// A block of temporary memory usable by ExecSpace, freed (stream-ordered
/// on the instance that allocated it) when the last copy goes away.  Work
/// that uses the block on other instances must be ordered before that
/// instance's later work (see stream_wait / fence).
template <class ExecSpace>
class TempBlock {
 public:
  using device_type = device_t<ExecSpace>;

  TempBlock() = default;
  TempBlock(const ExecSpace& space, const char* label, std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      if (memory_pool_enabled()) {
        void* p = cuda_pool_allocate(space, label, bytes);
        const std::string name(label);
        ptr_ = std::shared_ptr<void>(p, [space, name, bytes](void* q) {
          pool_report_free(q, bytes, name);
          cudaFreeAsync(q, space.cuda_stream());
        });
        return;
      }
    }
#endif
    (void)space;
    auto v = std::make_shared<Kokkos::View<char*, device_type>>(
        Kokkos::ViewAllocateWithoutInitializing(label), bytes);
    ptr_ = std::shared_ptr<void>(v, v->data());
  }

  std::size_t bytes() const noexcept { return bytes_; }
  char* data() const noexcept { return static_cast<char*>(ptr_.get()); }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  /// Keeps the memory alive without the execution space type.
  std::shared_ptr<void> owner() const noexcept { return ptr_; }

  /// n values of T at byte `offset` (a multiple of alignof(T)), as an
  /// unmanaged View: the block must outlive its use.
  template <class T>
  Kokkos::View<T*, device_type> view(std::size_t n, std::size_t offset = 0) const {
    SPK_REQUIRE(offset + n * sizeof(T) <= bytes_ && offset % alignof(T) == 0, Error,
                "spk::Impl::TempBlock: ", n, " values of ", sizeof(T), " bytes at ", offset,
                " do not fit a block of ", bytes_, " bytes");
    return Kokkos::View<T*, device_type>(reinterpret_cast<T*>(data() + offset), n);
  }

 private:
  std::shared_ptr<void> ptr_;
  std::size_t bytes_ = 0;
};

/// A temporary View of n values of T and the block that holds it.
template <class T, class ExecSpace>
struct TempView {
  TempBlock<ExecSpace> block;
  Kokkos::View<T*, device_t<ExecSpace>> view;
  TempView() = default;
  TempView(const ExecSpace& space, const char* label, std::size_t n)
      : block(space, label, n * sizeof(T)), view(block.template view<T>(n)) {}
};

/// A View (of type View) of n values in pooled memory that `owners` keeps
/// alive: for temporaries held by a handle.
template <class View, class ExecSpace>
View pooled_view(const ExecSpace& space, std::vector<std::shared_ptr<void>>& owners,
                 const char* label, std::size_t n) {
  const TempBlock<ExecSpace> b(space, label, n * sizeof(typename View::value_type));
  owners.push_back(b.owner());
  return View(reinterpret_cast<typename View::pointer_type>(b.data()), n);
}

/// A managed View (of type View) of n values handed to the caller, e.g. C's
/// arrays.  With `pooled` on CUDA (and a Kokkos that lets spk adopt memory,
/// spk_compat.hpp) it comes from spk's pool: no cudaMalloc now and no
/// cudaFree later.  Its last copy gives the memory back after a device
/// synchronisation, the guarantee cudaFree gives a Kokkos View: work still
/// queued on any stream may use it.  Pool memory cannot be shared through
/// CUDA IPC (what a CUDA-aware MPI does with device buffers between the
/// ranks of a node), so such arrays ask for pooled = false.  Otherwise a
/// Kokkos allocation, without initialisation, ordered on `space`.
template <class View, class ExecSpace>
View result_view(const ExecSpace& space, const char* label, std::size_t n, bool pooled) {
#if defined(KOKKOS_ENABLE_CUDA) && SPK_CAN_ADOPT_ALLOCATIONS
  // Device memory only: a View in CudaUVMSpace or CudaHostPinnedSpace must
  // stay readable on the host.
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda> &&
                std::is_same_v<typename View::memory_space, Kokkos::CudaSpace>) {
    if (pooled && memory_pool_enabled() && n > 0) {
      const std::size_t bytes = n * sizeof(typename View::value_type);
      void* p = cuda_pool_allocate(space, label, bytes);
      return adopt_allocation<View>(static_cast<typename View::pointer_type>(p), n, label,
                                    [](void* q, std::size_t b, const std::string& name) {
                                      pool_report_free(q, b, name);
                                      cudaDeviceSynchronize();
                                      cudaFreeAsync(q, cudaStreamLegacy);
                                    });
    }
  }
#endif
  (void)pooled;
  return View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), n);
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

}  // namespace Impl

/// Gives the device memory spk's pool keeps between calls back to the
/// device (CUDA; nothing elsewhere).  Call it when the application needs
/// that memory for itself.
inline void trim_memory_pool() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (Impl::memory_pool_enabled()) {
    const int dev = Kokkos::Cuda().cuda_device();
    Kokkos::fence();
    cudaMemPoolTrimTo(Impl::cuda_memory_pool(dev), 0);
  }
#endif
}

}  // namespace spk
