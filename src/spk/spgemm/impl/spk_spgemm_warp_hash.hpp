// Warp-hashed rows (CUDA): a row of C whose products far outnumber its
// columns (heavy accumulation: A·P with a smoothed prolongator, ~130
// products and ~13 columns a row) made by the 32 lanes of a warp on a small
// table in shared memory.  The products are spread over the lanes (lane l
// takes products l, l + 32, ... of each round of 32 A entries), each summed
// into the table with an atomic; then the table's slots, sorted by column
// in registers (a bitonic network over the table, not over the products),
// are the row.  The warp sort (spk_spgemm_warp_sort.hpp) sorts every
// product: ~3,000 instructions a lane for a row of 256 slots, where these
// rows need a sort of 32.  Numeric knows C's row lengths, so its table is
// sized by them; symbolic, which does not, sizes it by the products and
// counts the keys it inserts.  CUDA and arithmetic scalars only (the
// shuffles); spgemm_warp_sort_capable says where.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <impl/spk_spgemm_warp_sort.hpp>
#include <spk_hash_accumulator.hpp>
#include <type_traits>

namespace spk::Impl {

namespace WarpHash {
/// Lanes per row: a warp.
inline constexpr int lanes = 32;
/// Tables of 2^min_log2 … 2^max_numeric_log2 slots in numeric (its table
/// sorted in registers: 8 slots a lane at most), … 2^max_symbolic_log2 in
/// symbolic (keys only, 8 KB of 32-bit keys).
inline constexpr int min_log2 = 5, max_numeric_log2 = 8, max_symbolic_log2 = 11;
}  // namespace WarpHash

#if defined(KOKKOS_ENABLE_CUDA)
namespace WarpHash {

#if defined(__CUDA_ARCH__)
/// Calls emit(kb, a) for every product of row i (kb its position in B, a
/// its A value when Values), spread over the L lanes: A's entries go L at a
/// time (WarpSort::load_round), and lane l takes products l, l + L, … of
/// the round (consecutive lanes, consecutive entries of B).  Every lane
/// runs the same iterations (the shuffles need the whole group).
template <int L, bool Values, class V, class Emit>
__device__ __forceinline__ void for_products(const WarpSort::Lanes<L>& g, const V& v,
                                             std::int64_t i, const Emit& emit) {
  using F = std::decay_t<decltype(v.arm(0))>;
  using S = std::decay_t<decltype(v.av(0))>;
  const F a0 = v.arm(i), a1 = v.arm(i + 1);
  for (F base = a0; base < a1; base += L) {
    const auto r = WarpSort::load_round<L, Values>(g, v, base, a1);
    for (int x0 = 0; x0 < r.total; x0 += L) {
      const int x = x0 + g.lane;
      F kb;
      S a;
      WarpSort::round_product<L, Values>(g, r, x, kb, a);
      if (x < r.total) emit(kb, a);
    }
  }
}
#endif  // __CUDA_ARCH__

// The row functions are host-device (a Kokkos lambda's body must read the
// same on both passes of nvcc); on the host they are never called.

/// Symbolic: the distinct columns of row i, on a table of L·E slots (at
/// least the row's products).
template <int L, int E, class V, class K>
KOKKOS_INLINE_FUNCTION int count_row(const V& v, std::int64_t i, K* keys) {
#if defined(__CUDA_ARCH__)
  const WarpSort::Lanes<L> g;
  using Set = HashAccumulator<K, int, HashMix>;
  const Set h(keys, nullptr, L * E);
#pragma unroll
  for (int e = 0; e < E; ++e) keys[e * L + g.lane] = Set::empty_key;
  g.sync();
  int mine = 0;
  for_products<L, false>(g, v, i, [&](auto kb, auto) {
    bool is_new;
    h.insert(v.bci(kb), is_new);
    mine += is_new ? 1 : 0;
  });
  return WarpSort::lanes_sum(g, mine);
#else
  (void)v, (void)i, (void)keys;
  Kokkos::abort("spk: warp-hashed rows run on CUDA only");
  return 0;
#endif
}

/// Numeric: sums row i's products by column on a table of L·E slots (more
/// than C's row holds) and writes C's row (n entries) to cci/cv in column
/// order.
template <int L, int E, class V, class K, class S>
KOKKOS_INLINE_FUNCTION void fill_row(const V& v, std::int64_t i, K* keys, S* vals, K* cci, S* cv,
                                     int n) {
#if defined(__CUDA_ARCH__)
  const WarpSort::Lanes<L> g;
  using Map = HashAccumulator<K, S, HashMix>;
  const Map h(keys, vals, L * E);
#pragma unroll
  for (int e = 0; e < E; ++e) h.clear(e * L + g.lane);
  g.sync();
  for_products<L, true>(g, v, i, [&](auto kb, S a) { h.accumulate(v.bci(kb), a * v.bv(kb)); });
  g.sync();
  // The table in registers, empty slots as the largest key, sorted.
  constexpr K pad = std::is_signed_v<K> ? static_cast<K>(~std::make_unsigned_t<K>(0) >> 1)
                                        : static_cast<K>(~std::make_unsigned_t<K>(0));
  K key[E];
  S val[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int s = g.lane * E + e;
    const K k = keys[s];
    key[e] = k == Map::empty_key ? pad : k;
    val[e] = vals[s];
  }
  WarpSort::bitonic_sort<L, E, true>(g, key, val);
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int p = g.lane * E + e;
    if (p < n) {
      cci[p] = key[e];
      cv[p] = val[e];
    }
  }
#else
  (void)v, (void)i, (void)keys, (void)vals, (void)cci, (void)cv, (void)n;
  Kokkos::abort("spk: warp-hashed rows run on CUDA only");
#endif
}

/// Calls f(std::integral_constant<int, E>) for a table of 2^log2 slots
/// (E = 2^log2 / 32 slots per lane), log2 in [min_log2, MaxLog2].
template <int MaxLog2, class Fn>
void with_slots_per_lane(int log2, const Fn& f) {
  using std::integral_constant;
  static_assert(MaxLog2 >= 8 && MaxLog2 <= 11);
  switch (log2) {
    case 5:
      return f(integral_constant<int, 1>());
    case 6:
      return f(integral_constant<int, 2>());
    case 7:
      return f(integral_constant<int, 4>());
    case 8:
      return f(integral_constant<int, 8>());
  }
  if constexpr (MaxLog2 >= 9)
    if (log2 == 9) return f(integral_constant<int, 16>());
  if constexpr (MaxLog2 >= 10)
    if (log2 == 10) return f(integral_constant<int, 32>());
  if constexpr (MaxLog2 >= 11)
    if (log2 == 11) return f(integral_constant<int, 64>());
  Kokkos::abort("spk: warp-hashed table size out of range");
}

}  // namespace WarpHash

/// Symbolic for the rows perm(begin … begin + nr - 1), at most 32·E
/// products each: counts(i + 1) = distinct columns of row i.  A warp per
/// row, `warps` warps per team at most (as many tables as max_bytes of
/// scratch hold).
template <int E, class ExecSpace, class V, class Perm, class Counts>
static void spgemm_warp_hash_symbolic(const ExecSpace& space, const V& v, const Perm& perm,
                                      std::int64_t begin, std::int64_t nr, const Counts& counts,
                                      int warps, std::size_t max_bytes) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using O = typename decltype(v.bci)::non_const_value_type;
  constexpr int L = WarpHash::lanes;
  constexpr std::size_t row_bytes = std::size_t(L) * E * sizeof(O);
  warps = std::max(1, std::min<int>(warps, static_cast<int>(max_bytes / row_bytes)));
  const int bytes = static_cast<int>(warps * row_bytes);
  Kokkos::parallel_for(
      "spk::spgemm::symbolic_warp_hash",
      Policy(space, (nr + warps - 1) / warps, warps, L).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& member) {
        O* keys =
            static_cast<O*>(member.team_scratch(0).get_shmem(bytes)) + member.team_rank() * L * E;
        const std::int64_t r = std::int64_t(member.league_rank()) * warps + member.team_rank();
        if (r >= nr) return;  // the warp together
        const std::int64_t i = perm(begin + r);
        const int n = WarpHash::count_row<L, E>(v, i, keys);
        if (WarpSort::spgemm_lane_in_group<L>() == 0) counts(i + 1) = n;
      });
}

/// Numeric for the rows perm(begin … begin + nr - 1), whose rows of C fit a
/// table of 32·E slots: C's columns, in order, and values.
template <int E, class ExecSpace, class V, class Perm>
static void spgemm_warp_hash_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                                     std::int64_t begin, std::int64_t nr, int warps) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  constexpr int L = WarpHash::lanes;
  constexpr int T = L * E;
  // Every warp's keys, then every warp's values (the keys' bytes are a
  // multiple of 8: T is).
  const int kbytes = static_cast<int>(warps * T * sizeof(O));
  const int bytes = kbytes + static_cast<int>(warps * T * sizeof(S));
  Kokkos::parallel_for(
      "spk::spgemm::numeric_warp_hash",
      Policy(space, (nr + warps - 1) / warps, warps, L).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& member) {
        char* base = static_cast<char*>(member.team_scratch(0).get_shmem(bytes));
        O* keys = reinterpret_cast<O*>(base) + member.team_rank() * T;
        S* vals = reinterpret_cast<S*>(base + kbytes) + member.team_rank() * T;
        const std::int64_t r = std::int64_t(member.league_rank()) * warps + member.team_rank();
        if (r >= nr) return;
        const std::int64_t i = perm(begin + r);
        const auto start = v.crm(i);
        WarpHash::fill_row<L, E>(v, i, keys, vals, v.cci.data() + start, v.cv.data() + start,
                                 static_cast<int>(v.crm(i + 1) - start));
      });
}

/// The kernels above for a table of 2^log2 slots (log2 in [min_log2,
/// max_symbolic_log2], [min_log2, max_numeric_log2]).
template <class ExecSpace, class V, class Perm, class Counts>
void spgemm_warp_hash_symbolic(const ExecSpace& space, int log2, const V& v, const Perm& perm,
                               std::int64_t begin, std::int64_t nr, const Counts& counts, int warps,
                               std::size_t max_bytes) {
  WarpHash::with_slots_per_lane<WarpHash::max_symbolic_log2>(log2, [&](auto e) {
    spgemm_warp_hash_symbolic<decltype(e)::value>(space, v, perm, begin, nr, counts, warps,
                                                  max_bytes);
  });
}

template <class ExecSpace, class V, class Perm>
void spgemm_warp_hash_numeric(const ExecSpace& space, int log2, const V& v, const Perm& perm,
                              std::int64_t begin, std::int64_t nr, int warps) {
  WarpHash::with_slots_per_lane<WarpHash::max_numeric_log2>(log2, [&](auto e) {
    spgemm_warp_hash_numeric<decltype(e)::value>(space, v, perm, begin, nr, warps);
  });
}
#endif  // KOKKOS_ENABLE_CUDA

}  // namespace spk::Impl
