// Sorting a short list of 32-bit keys (at most 64) without branches on the
// keys: a bitonic network over one to four AVX-512 registers, for the host
// kernels' lists of touched bitset words.  Used only where the CPU has
// AVX-512F (checked once at run time; the library is built for baseline
// x86-64).  Host code only: nvcc's device pass (__CUDA_ARCH__) sees the
// fallback.
#pragma once

#include <cstdint>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define SPK_HOST_AVX512_SORT 1
#include <immintrin.h>
#endif

namespace spk::Impl {

/// Longest list host_sort_u32_avx512 sorts.
inline constexpr std::uint64_t host_avx512_sort_max = 64;

#if defined(SPK_HOST_AVX512_SORT)

inline bool host_detect_avx512() {
  __builtin_cpu_init();  // may run before other constructors
  return __builtin_cpu_supports("avx512f");
}
/// Whether the host kernels sort with host_sort_u32_avx512: where the CPU
/// has AVX-512F.  A plain global (read in row loops: no function-local
/// static guard); tests turn it off to cover the other path.
inline bool host_use_avx512_sort = host_detect_avx512();

namespace SmallSort {
// One compare-exchange stage within a register: lane i meets lane idx[i];
// the lanes set in `upper` keep the larger key.
#define SPK_SMALL_SORT_TARGET __attribute__((target("avx512f"), always_inline))
SPK_SMALL_SORT_TARGET inline __m512i stage(__m512i v, __m512i idx, __mmask16 upper) {
  const __m512i p = _mm512_permutexvar_epi32(idx, v);
  return _mm512_mask_max_epu32(_mm512_min_epu32(v, p), upper, v, p);
}
SPK_SMALL_SORT_TARGET inline __m512i lanes_xor(int x) {
  return _mm512_xor_si512(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                          _mm512_set1_epi32(x));
}
// Lanes whose index has bit b set.
constexpr __mmask16 upper_of(int b) {
  __mmask16 m = 0;
  for (int i = 0; i < 16; ++i)
    if (i & b) m = static_cast<__mmask16>(m | (1u << i));
  return m;
}
// The xor stages 8, 4, 2, 1: sorts a bitonic register.
SPK_SMALL_SORT_TARGET inline __m512i merge16(__m512i v) {
  v = stage(v, lanes_xor(8), upper_of(8));
  v = stage(v, lanes_xor(4), upper_of(4));
  v = stage(v, lanes_xor(2), upper_of(2));
  return stage(v, lanes_xor(1), upper_of(1));
}
SPK_SMALL_SORT_TARGET inline __m512i sort16(__m512i v) {
  v = stage(v, lanes_xor(1), upper_of(1));
  v = stage(v, lanes_xor(3), upper_of(2));
  v = stage(v, lanes_xor(1), upper_of(1));
  v = stage(v, lanes_xor(7), upper_of(4));
  v = stage(v, lanes_xor(2), upper_of(2));
  v = stage(v, lanes_xor(1), upper_of(1));
  v = stage(v, lanes_xor(15), upper_of(8));
  v = stage(v, lanes_xor(4), upper_of(4));
  v = stage(v, lanes_xor(2), upper_of(2));
  return stage(v, lanes_xor(1), upper_of(1));
}
SPK_SMALL_SORT_TARGET inline __m512i reverse(__m512i v) {
  return _mm512_permutexvar_epi32(lanes_xor(15), v);
}

// Sorted registers v[0, R) (R a power of two) merged into one sorted run of
// 16 R keys: bitonic merges of 2, 4, ..., R registers, each a flip stage,
// then half-cleaners between registers, then within each register.
template <int R>
SPK_SMALL_SORT_TARGET inline void merge_runs(__m512i* v) {
  for (int s = 2; s <= R; s *= 2) {
    for (int b = 0; b < R; b += s)
      for (int j = 0; j < s / 2; ++j) {
        const __m512i r = reverse(v[b + s - 1 - j]);
        const __m512i lo = _mm512_min_epu32(v[b + j], r), hi = _mm512_max_epu32(v[b + j], r);
        v[b + j] = lo;
        v[b + s - 1 - j] = reverse(hi);
      }
    for (int d = s / 4; d >= 1; d /= 2)
      for (int b = 0; b < R; b += 2 * d)
        for (int j = b; j < b + d; ++j) {
          const __m512i lo = _mm512_min_epu32(v[j], v[j + d]);
          v[j + d] = _mm512_max_epu32(v[j], v[j + d]);
          v[j] = lo;
        }
    for (int j = 0; j < R; ++j) v[j] = merge16(v[j]);
  }
}

template <int R>
SPK_SMALL_SORT_TARGET inline void sort_registers(std::uint32_t* a, std::uint64_t n) {
  __m512i v[R];
  __mmask16 m[R];
  for (int j = 0; j < R; ++j) {
    const std::uint64_t base = 16 * static_cast<std::uint64_t>(j);
    const std::uint64_t left = n > base ? n - base : 0;
    m[j] = left >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << left) - 1);
    v[j] = sort16(_mm512_mask_loadu_epi32(_mm512_set1_epi32(-1), m[j], a + base));
  }
  merge_runs<R>(v);
  for (int j = 0; j < R; ++j) _mm512_mask_storeu_epi32(a + 16 * j, m[j], v[j]);
}
#undef SPK_SMALL_SORT_TARGET
}  // namespace SmallSort

/// Sorts a[0, n) ascending, n <= host_avx512_sort_max (AVX-512F only).
__attribute__((target("avx512f"), noinline)) inline void host_sort_u32_avx512(std::uint32_t* a,
                                                                              std::uint64_t n) {
  if (n <= 16)
    SmallSort::sort_registers<1>(a, n);
  else if (n <= 32)
    SmallSort::sort_registers<2>(a, n);
  else
    SmallSort::sort_registers<4>(a, n);
}

#else
inline bool host_use_avx512_sort = false;
inline void host_sort_u32_avx512(std::uint32_t*, std::uint64_t) {}
#endif

}  // namespace spk::Impl
