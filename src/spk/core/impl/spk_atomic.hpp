// spk: atomics on 64-bit counters that many teams update at once.
#pragma once

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace spk::Impl {

/// *p = max(*p, v) when `max`, else *p += v; relaxed.  On CUDA these are the
/// hardware's 64-bit atomics (ATOMG .ADD.64 / .MAX.64 in the SASS).  Kokkos
/// 4.6's atomic_add and atomic_fetch_max on 64-bit integers, unsigned long
/// long included, compile to compare-and-swap loops there (ATOM.E.CAS.64):
/// with every team of the SpGEMM analysis adding to the same words they took
/// 2.1 ms on a million rows (H100), against 0.07 ms for the whole pass.
KOKKOS_INLINE_FUNCTION void atomic_update_counter(unsigned long long* p, unsigned long long v,
                                                  bool max) {
#if defined(__CUDA_ARCH__)
  if (max)
    atomicMax(p, v);
  else
    atomicAdd(p, v);
#else
  if (max)
    Kokkos::atomic_fetch_max(p, v);
  else
    Kokkos::atomic_add(p, v);
#endif
}

/// Returns *p and adds v to it, relaxed, for any integer type: the work
/// counter many lane groups draw from (dynamic SpMV), bucket cursors of the
/// conversions.  On CUDA 64-bit integers go through the hardware's unsigned
/// add (two's complement makes it right for signed ones too): Kokkos 4.6's
/// CAS loop made every draw of the dynamic SpMV retry against thousands of
/// others: 0.9–10 s a product on an H200, where the other CSR kernels take
/// 0.05–0.2 ms.
template <class T>
KOKKOS_INLINE_FUNCTION T atomic_fetch_add_integer(T* p, T v) {
  static_assert(std::is_integral_v<T>, "atomic_fetch_add_integer: integers only");
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8)
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
  else if constexpr (sizeof(T) == 4)
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v)));
  else
    return Kokkos::atomic_fetch_add(p, v);
#else
  return Kokkos::atomic_fetch_add(p, v);
#endif
}

}  // namespace spk::Impl
