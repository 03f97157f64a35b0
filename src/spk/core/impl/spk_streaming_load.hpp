// spk: loads of data a kernel reads once (a sparse matrix's entries in SpMV).
//
// On CUDA devices these are ld.global.cs (cache streaming: evict first in L1
// and L2), so that the matrix streaming through L2 does not push out the
// lines that are read again (x in SpMV).  Other backends, host passes and
// types without a CUDA streaming load read the View as usual.
#pragma once

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace spk::Impl {

/// v(k), read with a streaming load where the backend has one.
template <class View, class I>
KOKKOS_FORCEINLINE_FUNCTION typename View::non_const_value_type streaming_load(const View& v,
                                                                               const I k) {
#if defined(__CUDA_ARCH__)
  using T = typename View::non_const_value_type;
  const T* p = &v(k);
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return __ldcs(p);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == sizeof(int)) {
    return static_cast<T>(__ldcs(reinterpret_cast<const int*>(p)));
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == sizeof(long long)) {
    return static_cast<T>(__ldcs(reinterpret_cast<const long long*>(p)));
  } else {
    return *p;
  }
#else
  return v(k);
#endif
}

}  // namespace spk::Impl
