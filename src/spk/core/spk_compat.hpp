// The one place where spk deals with differences between Kokkos 3.4 and 4.x
// (and between the matching Kokkos Kernels versions).  Everything else in spk
// is written against the API both versions share.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
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
