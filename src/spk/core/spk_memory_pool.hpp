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
// Results handed to the caller (C's arrays) are managed Kokkos Views; their
// memory comes from the pool too unless the caller asks otherwise
// (result_view; SpgemmOptions::result_memory).
//
// On the host (HostSpace), blocks of 64 KiB and more come from a pool of
// spk's own: a freed block is kept (best fit, at most a quarter larger than
// the request) for the next allocation instead of being unmapped.  glibc
// unmaps every block above 32 MiB on free, so without it each product
// page-faults all of C and of its work arrays in again: 10-30 % of a host
// SpGEMM on 2 threads.  Smaller arrays fault too: glibc trims the top of its
// heap on free, and a 90000-row product re-faulted its 720 KB products array
// and C's row map on every call (330 faults, 12 % of its time).  Blocks of
// 2 MiB and more are multiples of 2 MiB, so aligned, with transparent huge
// pages asked for; smaller ones are multiples of 64 KiB.  Arrays below 64 KiB
// are Kokkos allocations.
//
// Controls: spk::Settings (spk_settings.hpp), read at each allocation:
//   memory_pool            false: temporaries and results come from Kokkos
//   device_pool_keep_bytes release threshold of each device's pool: bytes it
//                          keeps when idle (0: a quarter of the device's
//                          memory)
//   host_pool_keep_bytes   the same for the host pool (0: an eighth of the
//                          physical memory)
//   pooled_results         false: results are Kokkos allocations even where
//                          spk can adopt pool memory into a View
// (environment: SPK_MEMORY_POOL, SPK_MEMORY_POOL_KEEP_BYTES, ...; see
// spk_settings.hpp).  spk::trim_memory_pool() gives the kept memory back.  Pool allocations are
// reported to Kokkos' profiling hooks (space "spk::pool"), so memory tools
// see them.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdlib>
#include <impl/spk_adopted_view.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <spk_compat.hpp>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <spk_instances.hpp>
#include <spk_settings.hpp>
#include <string>
#include <utility>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace spk {
namespace Impl {

/// Whether spk's pools serve its allocations now (Settings::memory_pool).
inline bool memory_pool_enabled() { return settings().memory_pool; }

/// Whether results handed to the caller may come from the pools
/// (Settings::pooled_results, and a Kokkos that lets spk adopt memory).
inline bool pooled_results_enabled() {
  return SPK_CAN_ADOPT_ALLOCATIONS && settings().memory_pool && settings().pooled_results;
}

inline void pool_report_allocation(void* p, std::size_t bytes, const std::string& label) {
  Kokkos::Tools::allocateData(Kokkos::Tools::make_space_handle("spk::pool"), label, p, bytes);
}

inline void pool_report_free(void* p, std::size_t bytes, const std::string& label) {
  Kokkos::Tools::deallocateData(Kokkos::Tools::make_space_handle("spk::pool"), label, p, bytes);
}

/// spk's pool of host memory (see the top of this file): one per process,
/// emptied at Kokkos::finalize; blocks freed after that are freed at once.
class HostMemoryPool {
 public:
  /// Requests below this go to Kokkos.
  static constexpr std::size_t min_bytes = std::size_t(64) << 10;
  /// Blocks are multiples of this (and so aligned): a huge page.
  static constexpr std::size_t granule = std::size_t(2) << 20;
  /// Blocks below a granule are multiples of this.
  static constexpr std::size_t small_granule = std::size_t(64) << 10;

  static HostMemoryPool& instance() {
    // Never destroyed: Views may give blocks back during static destruction.
    static HostMemoryPool* pool = [] {
      auto* p = new HostMemoryPool();
      Kokkos::push_finalize_hook([p]() { p->close(); });
      return p;
    }();
    return *pool;
  }

  /// The step (and alignment) of a block for `bytes`.
  static std::size_t step(std::size_t bytes) { return bytes < granule ? small_granule : granule; }

  static std::size_t block_bytes(std::size_t bytes) {
    const std::size_t g = step(bytes);
    return (bytes + g - 1) / g * g;
  }

  /// A block of block_bytes(bytes) bytes: a kept one of at most a quarter
  /// more, or a new one.
  void* allocate(std::size_t bytes, std::size_t& got) {
    const std::size_t want = block_bytes(bytes);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.lower_bound(want);
      if (it != free_.end() && it->first <= want + want / 4) {
        void* p = it->second;
        got = it->first;
        kept_ -= got;
        free_.erase(it);
        return p;
      }
    }
    const std::size_t align = step(want);
    void* p = std::aligned_alloc(align, want);
    if (!p) {
      trim();  // what the pool keeps may be what is missing
      p = std::aligned_alloc(align, want);
    }
    SPK_REQUIRE(p != nullptr, Error, "spk memory pool: could not allocate ", want,
                " bytes of host memory");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (want >= granule) madvise(p, want, MADV_HUGEPAGE);  // advice: errors ignored
#endif
    got = want;
    return p;
  }

  /// Takes back a block from allocate (`bytes`: the size it gave).
  void release(void* p, std::size_t bytes) {
    std::vector<void*> drop;
    const std::size_t keep = keep_limit();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (closed_ || bytes > keep) {
        drop.push_back(p);
      } else {
        // Room for it: the smallest kept blocks go first.
        while (kept_ + bytes > keep && !free_.empty()) {
          kept_ -= free_.begin()->first;
          drop.push_back(free_.begin()->second);
          free_.erase(free_.begin());
        }
        free_.emplace(bytes, p);
        kept_ += bytes;
      }
    }
    for (void* q : drop) std::free(q);
  }

  /// Frees every kept block.
  void trim() {
    std::multimap<std::size_t, void*> drop;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      drop.swap(free_);
      kept_ = 0;
    }
    for (const auto& b : drop) std::free(b.second);
  }

  std::size_t kept_bytes() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return kept_;
  }

  /// Most bytes kept at once: Settings::host_pool_keep_bytes, by default
  /// an eighth of the physical memory.
  std::size_t keep_limit() const {
    const std::uint64_t keep = settings().host_pool_keep_bytes;
    return keep ? static_cast<std::size_t>(keep) : default_keep_;
  }

 private:
  HostMemoryPool() {
    std::uint64_t phys = std::uint64_t(8) << 30;
#if defined(__linux__)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) phys = std::uint64_t(pages) * std::uint64_t(page);
#endif
    default_keep_ = static_cast<std::size_t>(phys / 8);
  }
  void close() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    trim();
  }

  std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;  // kept blocks by size
  std::size_t kept_ = 0, default_keep_ = 0;
  bool closed_ = false;
};

/// Whether an allocation of `bytes` in memory space M comes from the host
/// pool.
template <class M>
inline bool host_pool_serves(std::size_t bytes) {
  return std::is_same_v<M, Kokkos::HostSpace> && bytes >= HostMemoryPool::min_bytes &&
         memory_pool_enabled();
}

/// Whether result_view(space, label, n, pooled) of `bytes` in memory space M
/// takes its memory from the host pool (only where spk can adopt memory
/// into a managed View).
template <class M>
inline bool host_result_pooled(std::size_t bytes, bool pooled) {
  return pooled && pooled_results_enabled() && host_pool_serves<M>(bytes);
}

/// `bytes` from the host pool, reported to the profiling hooks; `got` is
/// what to give back.
inline void* host_pool_allocate(const char* label, std::size_t bytes, std::size_t& got) {
  void* p = HostMemoryPool::instance().allocate(bytes, got);
  pool_report_allocation(p, got, label);
  return p;
}

inline void host_pool_free(void* p, std::size_t got, const std::string& label) {
  pool_report_free(p, got, label);
  HostMemoryPool::instance().release(p, got);
}

/// Gives the whole huge pages inside [p, p + bytes) back to the system (their
/// contents are dropped; touching them later maps zeroed pages): e.g. the
/// unused tail of an array allocated at a bound.
inline void host_release_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  const std::uintptr_t huge = HostMemoryPool::granule;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t b = (a + huge - 1) / huge * huge, e = (a + bytes) / huge * huge;
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);  // errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}

#if SPK_CAN_ADOPT_ALLOCATIONS
/// A block of the host pool of at least `bytes`, given back unless adopted
/// into a managed View.
class HostPoolBlock {
 public:
  HostPoolBlock(const char* label, std::size_t bytes)
      : label_(label), ptr_(host_pool_allocate(label, bytes, got_)) {}
  HostPoolBlock(const HostPoolBlock&) = delete;
  HostPoolBlock& operator=(const HostPoolBlock&) = delete;
  ~HostPoolBlock() {
    if (ptr_) host_pool_free(ptr_, got_, label_);
  }
  void* data() const noexcept { return ptr_; }
  /// A managed View of the first n values; its last copy gives the whole
  /// block back to the pool.  Whole huge pages past the n values go back to
  /// the system now (a block taken at a bound and filled less).
  template <class View>
  View adopt(std::size_t n) {
    const std::size_t used = n * sizeof(typename View::value_type);
    host_release_pages(static_cast<char*>(ptr_) + used, got_ - used);
    View v = adopt_allocation<View>(static_cast<typename View::pointer_type>(ptr_), n, label_,
                                    &host_pool_free, got_);
    ptr_ = nullptr;
    return v;
  }

 private:
  const char* label_;
  std::size_t got_ = 0;
  void* ptr_;
};
#endif

#if defined(KOKKOS_ENABLE_CUDA)
/// spk's pool on one device and the release threshold last set on it.
struct CudaDevicePool {
  cudaMemPool_t pool = nullptr;
  std::uint64_t keep = 0;
};

/// The release threshold Settings::device_pool_keep_bytes asks of `device`'s
/// pool (0 there: a quarter of the device's memory).
inline std::uint64_t cuda_pool_keep_bytes(int device) {
  if (const std::uint64_t keep = settings().device_pool_keep_bytes) return keep;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);
  return prop.totalGlobalMem / 4;
}

/// spk's pool on one device: created at first use, destroyed at
/// Kokkos::finalize (outstanding blocks are released when freed); its
/// release threshold follows Settings::device_pool_keep_bytes when that
/// changes.
inline cudaMemPool_t cuda_memory_pool(int device) {
  static std::mutex mutex;
  static std::vector<CudaDevicePool>* pools = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!pools) {
    int n = 0;
    cudaGetDeviceCount(&n);
    pools = new std::vector<CudaDevicePool>(n > 0 ? n : 1);
    Kokkos::push_finalize_hook([]() {
      std::lock_guard<std::mutex> l(mutex);
      for (auto p : *pools)
        if (p.pool) cudaMemPoolDestroy(p.pool);
      delete pools;
      pools = nullptr;
    });
  }
  SPK_REQUIRE(device >= 0 && device < static_cast<int>(pools->size()), Error,
              "spk memory pool: no CUDA device ", device);
  CudaDevicePool& entry = (*pools)[device];
  cudaMemPool_t& pool = entry.pool;
  const std::uint64_t asked = settings().device_pool_keep_bytes;
  if (pool && asked != entry.keep) {
    std::uint64_t keep = cuda_pool_keep_bytes(device);
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    entry.keep = asked;
  }
  if (!pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    const cudaError_t e = cudaMemPoolCreate(&pool, &props);
    SPK_REQUIRE(e == cudaSuccess, Error, "spk memory pool: cudaMemPoolCreate on device ", device,
                ": ", cudaGetErrorString(e));
    std::uint64_t keep = cuda_pool_keep_bytes(device);
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    entry.keep = asked;
    // Memory freed on one stream is reused on another only once the free
    // has run or is ordered before by events, never by making the
    // allocating stream wait for the freeing one: work on a second stream
    // (priority_instance) must not queue behind a long kernel on the first.
    int no = 0;
    cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no);
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
  pool_report_allocation(p, bytes, label);
  return p;
}
#endif

/// A pinned host buffer of the calling thread, at least `bytes` (<= 4 KiB)
/// long, for a small result that the host waits for: a copy into it is one
/// DMA on the stream, where one into pageable memory goes through the
/// driver's staging.  Allocated on the thread's first call and never freed
/// (4 KiB per thread; cudaFreeHost at exit may find CUDA gone); portable:
/// pinned for every device the thread may use.  A caller
/// must have fenced its copy before it calls this again on the same thread.
/// Null without CUDA: the caller copies into its own host memory.
inline void* pinned_result_buffer(std::size_t bytes) {
  constexpr std::size_t capacity = 4096;
  SPK_REQUIRE(bytes <= capacity, Error, "spk::Impl::pinned_result_buffer: ", bytes,
              " bytes asked, ", capacity, " at most");
#if defined(KOKKOS_ENABLE_CUDA)
  thread_local void* p = nullptr;
  if (!p) {
    const cudaError_t e = cudaHostAlloc(&p, capacity, cudaHostAllocPortable);
    if (e != cudaSuccess) cudaGetLastError();
    SPK_REQUIRE(e == cudaSuccess, Error, "spk: cudaHostAlloc of ", capacity,
                " bytes for a result buffer: ", cudaGetErrorString(e));
  }
  return p;
#else
  return nullptr;
#endif
}

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
    if (host_pool_serves<typename device_type::memory_space>(bytes)) {
      std::size_t got = 0;
      void* p = host_pool_allocate(label, bytes, got);
      const std::string name(label);
      ptr_ = std::shared_ptr<void>(p, [name, got](void* q) { host_pool_free(q, got, name); });
      return;
    }
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
/// impl/spk_adopted_view.hpp; Settings::pooled_results) it comes from spk's
/// pool: no cudaMalloc now and no cudaFree later.  Its last copy gives the
/// memory back after a device synchronisation, the guarantee cudaFree gives
/// a Kokkos View: work still queued on any stream may use it.  Pool memory
/// cannot be shared through CUDA IPC (what a CUDA-aware MPI does with device
/// buffers between the ranks of a node), so such arrays ask for pooled =
/// false.  Otherwise a Kokkos allocation, without initialisation, ordered on
/// `space`.
template <class View, class ExecSpace>
View result_view(const ExecSpace& space, const char* label, std::size_t n, bool pooled) {
#if SPK_CAN_ADOPT_ALLOCATIONS
  const std::size_t bytes = n * sizeof(typename View::value_type);
#if defined(KOKKOS_ENABLE_CUDA)
  // Device memory only: a View in CudaUVMSpace or CudaHostPinnedSpace must
  // stay readable on the host.
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda> &&
                std::is_same_v<typename View::memory_space, Kokkos::CudaSpace>) {
    if (pooled && pooled_results_enabled() && n > 0) {
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
  // Host memory: from the host pool; the record gives back the whole block.
  if (host_result_pooled<typename View::memory_space>(bytes, pooled))
    return HostPoolBlock(label, bytes).template adopt<View>(n);
#endif
  (void)pooled;
  return View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), n);
}

}  // namespace Impl

/// Gives the memory spk's pools keep between calls back: the host pool's to
/// the system, the CUDA pool's to the device.  Call it when the application
/// needs that memory for itself.
inline void trim_memory_pool() {
  Impl::HostMemoryPool::instance().trim();
#if defined(KOKKOS_ENABLE_CUDA)
  if (Impl::memory_pool_enabled()) {
    const int dev = Kokkos::Cuda().cuda_device();
    Kokkos::fence();
    cudaMemPoolTrimTo(Impl::cuda_memory_pool(dev), 0);
  }
#endif
}

}  // namespace spk
