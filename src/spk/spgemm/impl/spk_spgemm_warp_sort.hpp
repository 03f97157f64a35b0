// Warp-sorted rows (CUDA): a row of C with at most L·E products is made by a
// group of L lanes of a warp (32 / L rows per warp), E products per lane in
// registers (lane l holds products l·E … l·E + E - 1 of the row), sorted by
// column with a bitonic network (shuffles between lanes, swaps within a
// lane).  Equal columns end up next to each other, so symbolic counts the
// run heads and numeric sums each run (a segmented suffix sum) and writes
// the heads, in order.  No hash table: tables in scratch cost shared memory
// per row, which caps occupancy (random:1M:1M:8, 64 products per row on
// 128-slot tables, ran its numeric at 40 % occupancy), and the rows come out
// sorted without a separate sort.  Numeric stages only the products' values
// in shared memory (8 bytes per product) when it sorts packed keys.  CUDA
// and arithmetic scalars only (warp shuffles); the other backends keep the
// hash bins (spgemm_warp_sort_capable).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace spk::Impl {

/// Whether ExecSpace runs the warp-sorted row kernels for scalars S (the
/// shuffles move arithmetic types only).
template <class ExecSpace, class S>
constexpr bool spgemm_warp_sort_capable() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<ExecSpace, Kokkos::Cuda> && std::is_arithmetic_v<S>;
#else
  return false;
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
namespace WarpSort {

#if defined(__CUDA_ARCH__)
/// The L lanes (a power of two up to 32) of a warp that make one row: their
/// mask, the calling thread's lane among them, and shuffles within them (of
/// any arithmetic type: CUDA has int, long long, float and double).
template <int L>
struct Lanes {
  unsigned mask;
  int lane;
  __device__ __forceinline__ Lanes()
      : mask(L == 32 ? 0xffffffffu : ((1u << L) - 1) << (threadIdx.x & ~(L - 1))),
        lane(static_cast<int>(threadIdx.x & (L - 1))) {}
  template <class T, class Op>
  __device__ __forceinline__ static T as_native(T x, const Op& op) {
    if constexpr (std::is_floating_point_v<T>)
      return op(x);
    else if constexpr (sizeof(T) <= 4)
      return T(op(static_cast<int>(x)));
    else
      return T(op(static_cast<long long>(x)));
  }
  template <class T>
  __device__ __forceinline__ T shfl(T x, int src) const {
    return as_native(x, [&](auto y) { return __shfl_sync(mask, y, src, L); });
  }
  template <class T>
  __device__ __forceinline__ T shfl_xor(T x, int m) const {
    return as_native(x, [&](auto y) { return __shfl_xor_sync(mask, y, m, L); });
  }
  template <class T>
  __device__ __forceinline__ T shfl_up(T x, int d) const {
    return as_native(x, [&](auto y) { return __shfl_up_sync(mask, y, d, L); });
  }
  template <class T>
  __device__ __forceinline__ T shfl_down(T x, int d) const {
    return as_native(x, [&](auto y) { return __shfl_down_sync(mask, y, d, L); });
  }
  __device__ __forceinline__ void sync() const { __syncwarp(mask); }
};

/// One round of A's entries of a row, one per lane (entry base + lane, when
/// below a1): its B row's start b0 and A value a (when Values), the first of
/// its products among the round's (a scan of the B rows' lengths) and the
/// round's products.
template <class F, class S>
struct Round {
  F b0;
  S a;
  int first;
  int total;
};

template <int L, bool Values, class V, class F>
__device__ __forceinline__ auto load_round(const Lanes<L>& g, const V& v, F base, F a1) {
  using S = std::decay_t<decltype(v.av(0))>;
  const F ka = base + g.lane;
  int len = 0;
  F b0 = 0;
  S a = S(0);
  if (ka < a1) {
    const auto k = v.aci(ka);
    b0 = v.brm(k);
    len = static_cast<int>(v.brm(k + 1) - b0);
    if constexpr (Values) a = v.av(ka);
  }
  int incl = len;
#pragma unroll
  for (int d = 1; d < L; d <<= 1) {
    const int t = g.shfl_up(incl, d);
    if (g.lane >= d) incl += t;
  }
  return Round<F, S>{b0, a, incl - len, g.shfl(incl, L - 1)};
}

/// Product x of a round (0 <= x < r.total for a real one): its position kb
/// in B and its A value a (when Values).  Its A entry is the last lane whose
/// first product is at or before x (that lane's B row is not empty), found
/// by a binary search over the lanes (shuffles: every lane of the group
/// calls this together).
template <int L, bool Values, class F, class S>
__device__ __forceinline__ void round_product(const Lanes<L>& g, const Round<F, S>& r, int x, F& kb,
                                              S& a) {
  int t = 0;
#pragma unroll
  for (int step = L / 2; step > 0; step >>= 1) {
    const int ex = g.shfl(r.first, t + step);
    if (ex <= x) t += step;
  }
  kb = g.shfl(r.b0, t) + static_cast<F>(x - g.shfl(r.first, t));
  a = S(0);
  if constexpr (Values) a = g.shfl(r.a, t);
}

/// Calls emit(e, j, kb, a) for each slot e of this lane that holds a
/// product of row i (blocked: slot e of lane l is product j = l·E + e; kb
/// its position in B, a its A value when Values), in no particular order of
/// lanes.  A's entries go L at a time (load_round), and each slot finds its
/// entry in the round (round_product), so every lane loads at most E
/// products.  Returns the number of products.
template <int L, int E, bool Values, class V, class Emit>
__device__ __forceinline__ int for_slots(const Lanes<L>& g, const V& v, std::int64_t i,
                                         const Emit& emit) {
  using F = std::decay_t<decltype(v.arm(0))>;
  using S = std::decay_t<decltype(v.av(0))>;
  const F a0 = v.arm(i), a1 = v.arm(i + 1);
  int pos = 0;
  for (F base = a0; base < a1; base += L) {
    const auto r = load_round<L, Values>(g, v, base, a1);
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int j = g.lane * E + e;
      const int x = j - pos;  // the slot's product within this round
      F kb;
      S a;
      round_product<L, Values>(g, r, x, kb, a);
      if (x >= 0 && x < r.total) emit(e, j, kb, a);
    }
    pos += r.total;
  }
  return pos;
}

/// Sorts the L·E slots by key, ascending (values move with their keys).
template <int L, int E, bool Values, class K, class S>
__device__ __forceinline__ void bitonic_sort(const Lanes<L>& g, K (&key)[E], S (&val)[E]) {
  const int lane = g.lane;
#pragma unroll
  for (int k = 2; k <= L * E; k <<= 1) {
#pragma unroll
    for (int s = k >> 1; s > 0; s >>= 1) {
      if (s < E) {
        // Partners in the same lane.
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int p = e ^ s;
          if (p > e) {
            const bool up = ((lane * E + e) & k) == 0;
            if (up ? key[e] > key[p] : key[e] < key[p]) {
              const K tk = key[e];
              key[e] = key[p];
              key[p] = tk;
              if constexpr (Values) {
                const S tv = val[e];
                val[e] = val[p];
                val[p] = tv;
              }
            }
          }
        }
      } else {
        // Partners in lane ^ (s / E), same slot; the lower one keeps the
        // smaller key in an ascending block.
        const int ls = s / E;
        const bool lower = (lane & ls) == 0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const bool up = ((lane * E + e) & k) == 0;
          const K ok = g.shfl_xor(key[e], ls);
          S ov = S(0);
          if constexpr (Values) ov = g.shfl_xor(val[e], ls);
          if (lower == up ? ok < key[e] : ok > key[e]) {
            key[e] = ok;
            if constexpr (Values) val[e] = ov;
          }
        }
      }
    }
  }
}

/// Run heads of the sorted slots: a slot whose key differs from the slot
/// before it and is not padding.  Returns a bit per slot.
template <int L, int E, class K>
__device__ __forceinline__ unsigned heads(const Lanes<L>& g, const K (&key)[E], K pad) {
  const int lane = g.lane;
  const K before = g.shfl_up(key[E - 1], 1);
  unsigned h = 0;
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const bool first = e == 0 ? (lane == 0 || key[0] != before) : key[e] != key[e - 1];
    if (first && key[e] != pad) h |= 1u << e;
  }
  return h;
}

/// Sum of x over the lanes (every lane gets it).
template <int L>
__device__ __forceinline__ int lanes_sum(const Lanes<L>& g, int x) {
#pragma unroll
  for (int d = L / 2; d > 0; d >>= 1) x += g.shfl_xor(x, d);
  return x;
}

#endif  // __CUDA_ARCH__

/// The calling thread's group of L lanes within its warp, and its lane in
/// that group (0 on the host, where nothing runs).
template <int L>
KOKKOS_INLINE_FUNCTION int spgemm_lane_group() {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(threadIdx.x) / L;
#else
  return 0;
#endif
}
template <int L>
KOKKOS_INLINE_FUNCTION int spgemm_lane_in_group() {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(threadIdx.x) & (L - 1);
#else
  return 0;
#endif
}

// The row functions are host-device (a Kokkos lambda's body must read the
// same on both passes of nvcc); on the host they are never called.

/// Symbolic: the number of distinct columns of row i (made by the calling
/// thread's group of L vector lanes).
template <int L, int E, class V, class K>
KOKKOS_INLINE_FUNCTION int count_row(const V& v, std::int64_t i, K pad) {
#if defined(__CUDA_ARCH__)
  const Lanes<L> g;
  K key[E];
  char unused[E];
#pragma unroll
  for (int e = 0; e < E; ++e) key[e] = pad;
  for_slots<L, E, false>(g, v, i, [&](int e, int, auto kb, auto) { key[e] = v.bci(kb); });
  bitonic_sort<L, E, false>(g, key, unused);
  return lanes_sum(g, __popc(heads(g, key, pad)));
#else
  (void)v, (void)i, (void)pad;
  Kokkos::abort("spk: warp-sorted rows run on CUDA only");
  return 0;
#endif
}

#if defined(__CUDA_ARCH__)
/// Numeric's second half: sums the runs of equal keys of the sorted slots
/// and writes one entry per run, in order, to cci/cv.
template <int L, int E, class K, class S>
__device__ __forceinline__ void write_runs(const Lanes<L>& g, K (&key)[E], S (&val)[E], K pad,
                                           K* cci, S* cv) {
  const int lane = g.lane;
  // Suffix sums of each run within the lane.
#pragma unroll
  for (int e = E - 2; e >= 0; --e)
    if (key[e] == key[e + 1]) val[e] += val[e + 1];
  // The lanes' first runs, summed over the lanes they continue into: a
  // segmented suffix sum over lanes, segments by first key (the keys are
  // sorted, so equal first keys are contiguous lanes).
  const K first = key[0];
  S w = val[0];
#pragma unroll
  for (int d = 1; d < L; d <<= 1) {
    const K ok = g.shfl_down(first, d);
    const S ow = g.shfl_down(w, d);
    if (lane + d < L && ok == first) w += ow;
  }
  // The lane's last run goes on in the next lanes when their first key is
  // its key: add what they hold of it.
  const K next_first = g.shfl_down(first, 1);
  const S next_w = g.shfl_down(w, 1);
  if (lane < L - 1 && next_first == key[E - 1]) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      if (key[e] == key[E - 1]) val[e] += next_w;
  }
  // Heads in order: a scan of the lanes' head counts gives each its place.
  const unsigned h = heads(g, key, pad);
  const int n = __popc(h);
  int incl = n;
#pragma unroll
  for (int d = 1; d < L; d <<= 1) {
    const int t = g.shfl_up(incl, d);
    if (lane >= d) incl += t;
  }
  int at = incl - n;
#pragma unroll
  for (int e = 0; e < E; ++e) {
    if (h & (1u << e)) {
      cci[at] = key[e];
      cv[at] = val[e];
      ++at;
    }
  }
}
#endif  // __CUDA_ARCH__

/// Numeric: sums row i's products by column and writes the row of C to
/// cci/cv, in column order.  Packed (B's columns fit beside a product number
/// in 32 bits): the sort moves 32-bit keys column · L·E + product, and the
/// values wait in `stage` (L·E per row, shared memory) to be read back by
/// product: one shuffle per exchange instead of three (column and a double).
/// Otherwise columns and values move together.
template <int L, int E, bool Packed, class V, class K, class S>
KOKKOS_INLINE_FUNCTION void fill_row(const V& v, std::int64_t i, K pad, K* cci, S* cv, S* stage) {
#if defined(__CUDA_ARCH__)
  const Lanes<L> g;
  K key[E];
  S val[E];
  if constexpr (Packed) {
    constexpr int N = L * E;
    constexpr int bits = N == 32 ? 5 : N == 64 ? 6 : N == 128 ? 7 : N == 256 ? 8 : 9;
    static_assert(N == (1 << bits), "L·E is 32, 64, 128, 256 or 512");
    constexpr std::uint32_t none = 0xffffffffu;
    std::uint32_t packed[E];
    char unused[E];
#pragma unroll
    for (int e = 0; e < E; ++e) packed[e] = none;
    for_slots<L, E, true>(g, v, i, [&](int e, int j, auto kb, S a) {
      packed[e] = (static_cast<std::uint32_t>(v.bci(kb)) << bits) | static_cast<std::uint32_t>(j);
      stage[j] = a * v.bv(kb);
    });
    g.sync();
    bitonic_sort<L, E, false>(g, packed, unused);
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const bool used = packed[e] != none;
      key[e] = used ? static_cast<K>(packed[e] >> bits) : pad;
      val[e] = used ? stage[packed[e] & ((1u << bits) - 1)] : S(0);
    }
  } else {
    (void)stage;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      key[e] = pad;
      val[e] = S(0);
    }
    for_slots<L, E, true>(g, v, i, [&](int e, int, auto kb, S a) {
      key[e] = v.bci(kb);
      val[e] = a * v.bv(kb);
    });
    bitonic_sort<L, E, true>(g, key, val);
  }
  write_runs(g, key, val, pad, cci, cv);
#else
  (void)v, (void)i, (void)pad, (void)cci, (void)cv, (void)stage;
  Kokkos::abort("spk: warp-sorted rows run on CUDA only");
#endif
}

}  // namespace WarpSort

/// Symbolic for the rows perm(begin … begin + nr - 1), at most L·E
/// products each: counts(i + 1) = distinct columns of row i.  L lanes per
/// row (32 / L rows per warp), `warps` warps per team.
template <int L, int E, class ExecSpace, class V, class Perm, class Counts>
static void spgemm_warp_sort_symbolic(const ExecSpace& space, const V& v, const Perm& perm,
                                      std::int64_t begin, std::int64_t nr, const Counts& counts,
                                      int warps) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using O = typename decltype(v.bci)::non_const_value_type;
  const O pad = std::numeric_limits<O>::max();
  constexpr int G = 32 / L;  // rows per warp
  const std::int64_t rows_per_team = std::int64_t(warps) * G;
  Kokkos::parallel_for(
      "spk::spgemm::symbolic_warp_sort",
      Policy(space, (nr + rows_per_team - 1) / rows_per_team, warps, 32),
      KOKKOS_LAMBDA(const Member& member) {
        const std::int64_t r =
            (std::int64_t(member.league_rank()) * warps + member.team_rank()) * G +
            WarpSort::spgemm_lane_group<L>();
        if (r >= nr) return;  // the row's lanes together
        const std::int64_t i = perm(begin + r);
        const int n = WarpSort::count_row<L, E>(v, i, pad);
        if (WarpSort::spgemm_lane_in_group<L>() == 0) counts(i + 1) = n;
      });
}

/// Numeric for the same rows: C's columns (in order) and values.
template <int L, int E, bool Packed, class ExecSpace, class V, class Perm>
static void spgemm_warp_sort_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                                     std::int64_t begin, std::int64_t nr, int warps) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  const O pad = std::numeric_limits<O>::max();
  constexpr int N = L * E;
  constexpr int G = 32 / L;
  const std::int64_t rows_per_team = std::int64_t(warps) * G;
  const int bytes = Packed ? static_cast<int>(rows_per_team * N * sizeof(S)) : 0;
  Kokkos::parallel_for(
      Packed ? "spk::spgemm::numeric_warp_sort_packed" : "spk::spgemm::numeric_warp_sort",
      Policy(space, (nr + rows_per_team - 1) / rows_per_team, warps, 32)
          .set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& member) {
        const int row_in_team = member.team_rank() * G + WarpSort::spgemm_lane_group<L>();
        S* stage = Packed
                       ? static_cast<S*>(member.team_scratch(0).get_shmem(bytes)) + row_in_team * N
                       : nullptr;
        const std::int64_t r = std::int64_t(member.league_rank()) * rows_per_team + row_in_team;
        if (r >= nr) return;
        const std::int64_t i = perm(begin + r);
        const auto start = v.crm(i);
        WarpSort::fill_row<L, E, Packed>(v, i, pad, v.cci.data() + start, v.cv.data() + start,
                                         stage);
      });
}

/// Packed when B's columns fit beside a product number in 32 bits.
template <int L, int E, class ExecSpace, class V, class Perm>
void spgemm_warp_sort_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                              std::int64_t begin, std::int64_t nr, std::uint64_t ncols, int warps) {
  if (ncols + 1 < (std::uint64_t(1) << 32) / (L * E))
    spgemm_warp_sort_numeric<L, E, true>(space, v, perm, begin, nr, warps);
  else
    spgemm_warp_sort_numeric<L, E, false>(space, v, perm, begin, nr, warps);
}

/// Calls f(std::integral_constant<int, L>, std::integral_constant<int, E>)
/// for rows of at most 2^log2 products (32 … 512) and about `slots`
/// products per lane: E = max(slots, 2^log2 / 32) (at most 16), L = 2^log2 / E
/// lanes.
template <class Fn>
void spgemm_warp_sort_shape(int log2, int slots, const Fn& f) {
  using std::integral_constant;
  const int n = 1 << log2;
  const int e = std::clamp(std::max(slots, n / 32), 1, std::min(16, n / 4));
  switch (n / e) {
    case 32:
      if (e == 16) return f(integral_constant<int, 32>(), integral_constant<int, 16>());
      if (e == 1) return f(integral_constant<int, 32>(), integral_constant<int, 1>());
      if (e == 2) return f(integral_constant<int, 32>(), integral_constant<int, 2>());
      if (e == 4) return f(integral_constant<int, 32>(), integral_constant<int, 4>());
      return f(integral_constant<int, 32>(), integral_constant<int, 8>());
    case 16:
      if (e == 2) return f(integral_constant<int, 16>(), integral_constant<int, 2>());
      if (e == 4) return f(integral_constant<int, 16>(), integral_constant<int, 4>());
      return f(integral_constant<int, 16>(), integral_constant<int, 8>());
    case 8:
      if (e == 4) return f(integral_constant<int, 8>(), integral_constant<int, 4>());
      return f(integral_constant<int, 8>(), integral_constant<int, 8>());
    default:
      return f(integral_constant<int, 4>(), integral_constant<int, 8>());
  }
}

/// The kernels above for a bin: rows of at most 2^log2 products.
template <class ExecSpace, class V, class Perm, class Counts>
void spgemm_warp_sort_symbolic(const ExecSpace& space, int log2, int slots, const V& v,
                               const Perm& perm, std::int64_t begin, std::int64_t nr,
                               const Counts& counts, int warps) {
  spgemm_warp_sort_shape(log2, slots, [&](auto l, auto e) {
    spgemm_warp_sort_symbolic<decltype(l)::value, decltype(e)::value>(space, v, perm, begin, nr,
                                                                      counts, warps);
  });
}

template <class ExecSpace, class V, class Perm>
void spgemm_warp_sort_numeric(const ExecSpace& space, int log2, int slots, const V& v,
                              const Perm& perm, std::int64_t begin, std::int64_t nr,
                              std::uint64_t ncols, int warps) {
  spgemm_warp_sort_shape(log2, slots, [&](auto l, auto e) {
    spgemm_warp_sort_numeric<decltype(l)::value, decltype(e)::value>(space, v, perm, begin, nr,
                                                                     ncols, warps);
  });
}
#endif  // KOKKOS_ENABLE_CUDA

}  // namespace spk::Impl
