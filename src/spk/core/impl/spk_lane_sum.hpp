// spk: the sum over the vector lanes of a team member's lane group, for row
// kernels whose lane groups each make one row.
//
// On CUDA a TeamPolicy of vector length L runs blocks of (L, team size)
// threads, lane l of a group being threadIdx.x = l, so a warp holds 32 / L
// groups.  Kokkos' vector primitives (ThreadVectorRange loops and reductions,
// single(PerThread)) synchronise each group with a mask of its own lanes,
// computed with two integer divisions by blockDim.x: ~60 instructions per
// row.  On a 27-point stencil (26.5 entries a row) that tripled the
// instructions of the CSR lane kernel and held it at 0.65 of the copy
// bandwidth, against 0.93 for the same kernel written in plain CUDA (ncu,
// H200).  The CUDA device pass here reads the lane from threadIdx.x and sums
// with shuffles over the whole warp instead; other backends and host passes
// keep Kokkos' primitives.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstring>
#include <type_traits>

namespace spk::Impl {

#if defined(__CUDA_ARCH__)
/// The threads of the calling warp that exist (a block whose size is not a
/// multiple of 32 ends in a partial warp).
__device__ __forceinline__ unsigned warp_threads_mask() {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned left = blockDim.x * blockDim.y * blockDim.z - (tid & ~31u);
  return left >= 32 ? 0xffffffffu : (1u << left) - 1;
}

/// v moved through a warp shuffle of 4-byte words, `shuffle(word)`, for
/// any trivially copyable type.
template <class T, class Shuffle>
__device__ __forceinline__ T shfl_words(const T& v, const Shuffle& shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles: trivially copyable types only");
  constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  int w[words] = {};
  memcpy(w, &v, sizeof(T));
  for (int i = 0; i < words; ++i) w[i] = shuffle(w[i]);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// Types the CUDA shuffle intrinsics move directly.
template <class T>
inline constexpr bool shfl_native_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int>;

/// v from the lane whose index differs from the caller's by `o` (xor), for
/// any trivially copyable type.
template <class T>
__device__ __forceinline__ T shfl_xor_any(const T& v, int o, unsigned mask) {
  if constexpr (shfl_native_v<T>)
    return __shfl_xor_sync(mask, v, o);
  else
    return shfl_words(v, [&](int w) { return __shfl_xor_sync(mask, w, o); });
}

/// v from the lane `o` below the caller's (the caller's own v in lanes < o),
/// for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shfl_up_any(const T& v, int o, unsigned mask) {
  if constexpr (shfl_native_v<T>)
    return __shfl_up_sync(mask, v, o);
  else
    return shfl_words(v, [&](int w) { return __shfl_up_sync(mask, w, o); });
}
#endif

/// Σ over lanes l of `lanes` of lane_value(l), the same in every lane of the
/// group.  `lanes` must be the launched vector length (a power of two).  On
/// CUDA devices each thread computes its own lane's value and the warp sums
/// with a butterfly of shuffles: every thread of the warp must call this the
/// same number of times (no lane group of the warp may have left its loop).
template <class S, class Member, class LaneValue>
KOKKOS_FORCEINLINE_FUNCTION S lane_group_sum(const Member& m, int lanes,
                                             const LaneValue& lane_value) {
#if defined(__CUDA_ARCH__)
  (void)m;
  S s = lane_value(static_cast<int>(threadIdx.x));
  const unsigned mask = warp_threads_mask();
  for (int o = lanes / 2; o > 0; o /= 2) s += shfl_xor_any(s, o, mask);
  return s;
#else
  S s = S(0);
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, lanes), [&](const int l, S& acc) { acc += lane_value(l); }, s);
  return s;
#endif
}

/// The vector length to launch for `asked` lanes on ExecSpace: the largest
/// power of two at most asked and the backend's maximum (at least 1), as
/// lane_group_sum's butterfly needs.
template <class ExecSpace>
int launch_lanes(int asked) {
  const int most =
      std::min(asked, static_cast<int>(Kokkos::TeamPolicy<ExecSpace>::vector_length_max()));
  int lanes = 1;
  while (lanes * 2 <= most) lanes *= 2;
  return lanes;
}

/// Runs f once per lane group (its first lane on CUDA devices), as
/// Kokkos::single(PerThread) does elsewhere.
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void first_lane_do(const Member& m, const F& f) {
#if defined(__CUDA_ARCH__)
  (void)m;
  if (threadIdx.x == 0) f();
#else
  Kokkos::single(Kokkos::PerThread(m), f);
#endif
}

}  // namespace spk::Impl
