// The one place where spk deals with differences between Kokkos 3.4 and 4.x
// (and between the matching Kokkos Kernels versions).  Everything else in spk
// is written against the API both versions share.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <spk_config.hpp>
#include <string>
#include <utility>
#include <vector>

#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
#define SPK_KOKKOS_4 1
#else
#define SPK_KOKKOS_4 0
#endif

namespace spk::Impl {

/// Kokkos::kokkos_swap (4.3+) / Kokkos::Experimental::swap (3.x) / by hand.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void swap(T& a, T& b) noexcept {
  T t = a;
  a = b;
  b = t;
}

/// Concurrency of an execution space instance.  Kokkos 4 made concurrency()
/// a non-static member; calling it on an instance works in both.
template <class ExecSpace>
int concurrency(const ExecSpace& space) {
  return static_cast<int>(space.concurrency());
}

/// Whether code running in ExecSpace can dereference MemSpace pointers.
template <class ExecSpace, class MemSpace>
inline constexpr bool is_accessible_v = Kokkos::SpaceAccessibility<ExecSpace, MemSpace>::accessible;

/// Whether the execution space runs on the host (Serial, OpenMP, Threads).
template <class ExecSpace>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

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
/// streams with Kokkos 4 on devices (4 at most, at the priority of `space`'s
/// stream; each instance of `space` gets streams of its own, so that the
/// work of two instances does not queue on shared streams), the given
/// instance n times otherwise (Kokkos 3.4 has no partition_space; on hosts
/// it would split the threads).
template <class ExecSpace>
std::vector<ExecSpace> concurrent_instances(const ExecSpace& space, int n) {
#if SPK_KOKKOS_4
  if constexpr (!is_host_space_v<ExecSpace>) {
    if (n > 1) {
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
/// stream_wait (spk_memory_pool.hpp).
template <class ExecSpace>
ExecSpace priority_instance(const ExecSpace& space) {
#if SPK_KOKKOS_4 && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    return cuda_instances_for(space, StreamRole::Priority, 1).front();
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
    return cuda_instances_for(space, StreamRole::Helper, 1).front();
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

/// Short lowercase name used in test names, JSON and the command line.
template <class ExecSpace>
const char* space_name() {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Serial>) return "serial";
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) return "openmp";
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Threads>) return "threads";
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return "cuda";
#endif
  return ExecSpace::name();
}

// ---- Views over memory spk allocates itself --------------------------------
// A managed View normally owns memory Kokkos allocated.  spk hands the caller
// Views over memory from its own pool (C's arrays on CUDA): they must behave
// like any managed View (copies share ownership, label(), use_count()) and
// give the memory back when the last copy goes.  That takes a Kokkos
// allocation record of spk's own, which Kokkos 3.x and 4.x (legacy View, not a
// debug build, which links records into a checked list) allow through their
// internal SharedAllocationRecord<void, void> and View(tracker, mapping)
// constructor.  Elsewhere adopt_allocation is not available and callers
// allocate with Kokkos.
#if KOKKOS_VERSION < 50000 && !defined(KOKKOS_ENABLE_DEBUG)
#define SPK_CAN_ADOPT_ALLOCATIONS 1
#else
#define SPK_CAN_ADOPT_ALLOCATIONS 0
#endif

#if SPK_CAN_ADOPT_ALLOCATIONS
/// The record behind adopted memory: Kokkos calls destroy() when the last
/// View copy goes; it calls `release` on the memory (with release_bytes).
class AdoptedAllocationRecord final : public Kokkos::Impl::SharedAllocationRecord<void, void> {
  using Base = Kokkos::Impl::SharedAllocationRecord<void, void>;
  using Header = Kokkos::Impl::SharedAllocationHeader;

 public:
  using Release = void (*)(void* ptr, std::size_t bytes, const std::string& label);
  static AdoptedAllocationRecord* make(void* ptr, std::size_t bytes, const std::string& label,
                                       Release release, std::size_t release_bytes) {
    return new AdoptedAllocationRecord(ptr, bytes, label, release, release_bytes);
  }
  std::string get_label() const override { return label_; }

 private:
  // Kokkos' records keep a header just before the data; it is never read
  // through a View, so the record points at where it would be.
  AdoptedAllocationRecord(void* ptr, std::size_t bytes, const std::string& label, Release release,
                          std::size_t release_bytes)
#if SPK_KOKKOS_4
      : Base(reinterpret_cast<Header*>(ptr) - 1, bytes + sizeof(Header), &destroy, label),
#else
      // (3.x: the base keeps no label)
      : Base(reinterpret_cast<Header*>(ptr) - 1, bytes + sizeof(Header), &destroy),
#endif
        ptr_(ptr),
        release_bytes_(release_bytes),
        release_(release),
        label_(label) {
  }
  static void destroy(Base* r) {
    auto* self = static_cast<AdoptedAllocationRecord*>(r);
    self->release_(self->ptr_, self->release_bytes_, self->label_);
    delete self;
  }
  void* ptr_;
  std::size_t release_bytes_;
  Release release_;
  std::string label_;
};

/// A managed rank-1 View over n values at ptr that calls
/// release(ptr, release_bytes, label) when its last copy goes
/// (release_bytes: by default the View's bytes).
template <class View>
View adopt_allocation(typename View::pointer_type ptr, std::size_t n, const std::string& label,
                      AdoptedAllocationRecord::Release release, std::size_t release_bytes = 0) {
  const View unmanaged(ptr, n);
  const std::size_t bytes = n * sizeof(typename View::value_type);
  Kokkos::Impl::SharedAllocationTracker track;
  track.assign_allocated_record_to_uninitialized(AdoptedAllocationRecord::make(
      ptr, bytes, label, release, release_bytes ? release_bytes : bytes));
  return View(track, unmanaged.impl_map());
}
#endif

}  // namespace spk::Impl

// ---- Kokkos Kernels ---------------------------------------------------------
// Kokkos Kernels versions follow Kokkos': 3.4 builds only against Kokkos 3.x
// and 4.x only against Kokkos 4.x, so the Kokkos version tells them apart.
#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <KokkosSparse_CrsMatrix.hpp>
#if SPK_KOKKOS_4
#include <KokkosSparse_Utils.hpp>
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif

namespace spk::Impl {

/// Kokkos Kernels' CSR transpose (KokkosKernels::Impl in 3.x, KokkosSparse::Impl in 4.x).
template <class KKMatrix>
KKMatrix kk_transpose_matrix(const KKMatrix& A) {
#if SPK_KOKKOS_4
  return KokkosSparse::Impl::transpose_matrix(A);
#else
  return KokkosKernels::Impl::transpose_matrix(A);
#endif
}

}  // namespace spk::Impl
#endif

// ---- Kokkos Kernels spmv (perf drivers and cross-checks) --------------------
#if defined(SPK_HAVE_KOKKOSKERNELS) && defined(SPK_COMPAT_KK_SPMV)
#include <KokkosSparse_spmv.hpp>

namespace spk::Impl {

/// Kokkos Kernels' own SpMV kernel.  4.x would hand CUDA matrices to cuSPARSE
/// unless asked (SPMVHandle(SPMV_NATIVE)); 3.4 on the host has only its own.
template <class ExecSpace, class KKMatrix, class X, class Y>
void kk_spmv_native(const ExecSpace& space, typename Y::non_const_value_type alpha,
                    const KKMatrix& A, const X& x, typename Y::non_const_value_type beta,
                    const Y& y) {
#if SPK_KOKKOS_4
  KokkosSparse::SPMVHandle<ExecSpace, KKMatrix, X, Y> handle(KokkosSparse::SPMV_NATIVE);
  KokkosSparse::spmv(space, &handle, "N", alpha, A, x, beta, y);
#else
  (void)space;
  KokkosSparse::spmv("N", alpha, A, x, beta, y);
#endif
}

}  // namespace spk::Impl
#endif

// ---- Kokkos Kernels SpGEMM (perf drivers and cross-checks) ------------------
#if defined(SPK_HAVE_KOKKOSKERNELS) && defined(SPK_COMPAT_KK_SPGEMM)
#include <KokkosSparse_spgemm.hpp>

namespace spk::Impl {

/// Where Kokkos Kernels' spgemm_symbolic / spgemm_numeric live: 4.x promoted
/// them out of Experimental (the old names are deprecated there), 3.4 has
/// only the Experimental ones.
#if SPK_KOKKOS_4
namespace kk_spgemm = ::KokkosSparse;
#else
namespace kk_spgemm = ::KokkosSparse::Experimental;
#endif

}  // namespace spk::Impl
#endif
