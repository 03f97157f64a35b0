// BinnedHash's split long rows: a row of C with many products is cut into
// chunks of about chunk_products products (a chunk may start and end inside a
// row of B, so hub rows of B are cut too), one team per chunk, and the teams
// of a row share accumulators in global memory:
//   symbolic  a bitmap of B's columns per row (atomic OR); the row's count is
//             its popcount, taken by one team per row once every chunk is in;
//   numeric   the same bitmap; then one team per row writes the row's
//             columns in order (C's row comes out sorted) with zero values
//             and keeps each bitmap word's first position in the row; then
//             each chunk's team adds its products straight into C's values
//             at their column's rank (word's position + set bits below).
// A product's position in its row is found through a prefix of the B-row
// lengths of the row's A entries (a binary search per thread, then a walk).
// The rows go in batches so that the bitmaps and ranks of the rows in flight
// stay under a byte cap (SpgemmLongRowTuning::max_bytes, spk_spgemm_tuning.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <impl/spk_spgemm_common.hpp>
#include <spk_memory_pool.hpp>
#include <spk_scalar_traits.hpp>
#include <spk_spgemm_handle.hpp>
#include <tuning/spk_spgemm_tuning.hpp>
#include <utility>
#include <vector>

namespace spk::Impl {

/// Bits set in x (portable; the binned kernels' spgemm_popcount).
KOKKOS_INLINE_FUNCTION int long_row_popcount(std::uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

/// Bytes of bitmap and ranks per split row in flight.
inline std::size_t long_row_split_row_bytes(std::uint64_t ncols) {
  return 2 * ((ncols + 31) / 32) * sizeof(std::uint32_t);
}

/// Arranges the rows of the long bin (the last bin) on the host: those to be
/// split move to the end of its range of perm and the bin shrinks to the
/// others (dropped when none is left); the others come first, by the size of
/// their tables, largest first, their products in `kept_products`
/// (spgemm_plan_long_rows groups them by table size).  Returns the plan of
/// the split rows.  One host synchronisation (the long rows' product
/// counts), only when there is a long bin.
template <class ExecSpace, class V, class Perm, class Products>
static SpgemmLongRowSplitPlan spgemm_long_rows_split_plan(
    const ExecSpace& space, const V& v, const Perm& perm, std::vector<SpgemmBin>& bins,
    const Products& products, std::uint64_t ncols, const SpgemmLongRowTuning& tuning,
    const SpgemmOptions& opt, int vector_length, int teams,
    std::vector<std::uint64_t>& kept_products) {
  SpgemmLongRowSplitPlan plan;
  kept_products.clear();
  if (bins.empty() || bins.back().kernel != SpgemmBinKernel::LongRows) return plan;
  // Ranks are 32-bit positions within a row.
  const bool may_split =
      opt.long_row_split != SpgemmLongRowSplit::Off && ncols < (std::uint64_t(1) << 32);
  using O = typename Perm::non_const_value_type;
  SpgemmBin& bin = bins.back();
  const std::int64_t begin = bin.begin, nr = bin.end - bin.begin;
  // Products and A's row length of each long row.
  const TempView<std::uint64_t, ExecSpace> info_mem(space, "spk::spgemm::long_row_info", 2 * nr);
  const auto info = info_mem.view;
  Kokkos::parallel_for(
      "spk::spgemm::long_row_info", Kokkos::RangePolicy<ExecSpace>(space, 0, nr),
      KOKKOS_LAMBDA(const std::int64_t r) {
        const auto i = perm(begin + r);
        info(2 * r) = products(i);
        info(2 * r + 1) = static_cast<std::uint64_t>(v.arm(i + 1) - v.arm(i));
      });
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> info_h(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "spk::spgemm::long_row_info_h"), 2 * nr);
  Kokkos::View<O*, Kokkos::HostSpace> rows_h(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "spk::spgemm::long_rows_h"), nr);
  const auto segment = Kokkos::subview(perm, std::make_pair(begin, begin + nr));
  Kokkos::deep_copy(space, info_h, info);
  Kokkos::deep_copy(space, rows_h, segment);
  space.fence();

  const std::uint64_t chunk = std::max<std::uint64_t>(
      1, opt.long_row_chunk_products ? opt.long_row_chunk_products : tuning.chunk_products);
  const bool force = opt.long_row_split == SpgemmLongRowSplit::Force;
  std::uint64_t long_products = 0;
  for (std::int64_t r = 0; r < nr; ++r) long_products += info_h(2 * r);
  const std::uint64_t threshold = std::max(
      {tuning.split_products, ncols / std::max<std::uint64_t>(1, tuning.columns_per_product),
       long_products / static_cast<std::uint64_t>(std::max(1, teams))});
  // The kept rows by the size of their tables (log2 of the capacity of
  // min(products, B's columns)), largest first, in row order within a size:
  // a counting sort (a comparison sort of fem:50:6:7's 750,000 long rows
  // took ~50 ms of host time).
  auto size_class = [&](std::uint64_t p) {
    return spgemm_table_log2(std::min<std::uint64_t>(p, ncols));
  };
  // Slot 64 - log2 of each size (log2 5..64), so that larger tables go first.
  std::vector<std::int64_t> at(66, 0);
  std::vector<O> split;
  std::vector<std::int64_t> split_at;  // positions in the segment
  std::vector<char> is_split(nr, 0);
  for (std::int64_t r = 0; r < nr; ++r) {
    if (may_split && (force || info_h(2 * r) >= threshold)) {
      split.push_back(rows_h(r));
      split_at.push_back(r);
      is_split[r] = 1;
    } else {
      ++at[64 - size_class(info_h(2 * r))];
    }
  }
  std::int64_t sum = 0;
  for (auto& a : at) {
    const std::int64_t k = a;
    a = sum;
    sum += k;
  }
  const std::int64_t ns = static_cast<std::int64_t>(split.size());
  const std::int64_t nk = nr - ns;
  std::vector<O> kept_rows(nk);
  kept_products.resize(nk);
  for (std::int64_t r = 0; r < nr; ++r) {
    if (is_split[r]) continue;
    const std::int64_t q = at[64 - size_class(info_h(2 * r))]++;
    kept_rows[q] = rows_h(r);
    kept_products[q] = info_h(2 * r);
  }
  for (std::int64_t r = 0; r < nk; ++r) {
    rows_h(r) = kept_rows[r];
    plan.max_kept_products = std::max(plan.max_kept_products, kept_products[r]);
  }
  for (std::int64_t s = 0; s < ns; ++s) rows_h(nk + s) = split[s];
  Kokkos::deep_copy(space, segment, rows_h);
  if (split.empty()) {
    space.fence();  // rows_h is read by the copy above
    return plan;
  }
  plan.begin = begin + nk;
  plan.rows = ns;
  plan.chunk_products = chunk;
  plan.team_size = std::max(1, bin.team_size);
  plan.vector_length = std::max(1, vector_length);
  plan.chunk_offsets.assign(ns + 1, 0);
  plan.prefix_offsets.assign(ns + 1, 0);
  for (std::int64_t s = 0; s < ns; ++s) {
    const std::uint64_t p = info_h(2 * split_at[s]);
    const std::uint64_t alen = info_h(2 * split_at[s] + 1);
    plan.chunk_offsets[s + 1] = plan.chunk_offsets[s] + (p + chunk - 1) / chunk;
    plan.prefix_offsets[s + 1] = plan.prefix_offsets[s] + alen + 1;
  }
  const std::size_t cap = opt.long_row_split_bytes ? opt.long_row_split_bytes : tuning.max_bytes;
  const std::size_t row_bytes = long_row_split_row_bytes(ncols);
  plan.batch_rows = std::clamp<std::int64_t>(static_cast<std::int64_t>(cap / row_bytes), 1, ns);
  plan.bytes = plan.batch_rows * row_bytes +
               (plan.prefix_offsets[ns] + 2 * (ns + 1)) * sizeof(std::uint64_t);
  space.fence();  // rows_h is read by the copy above
  bin.end = bin.begin + nk;
  if (nk == 0) bins.pop_back();
  return plan;
}

/// The split rows' arrays on the device: chunk and prefix offsets (copied
/// from the plan) and, per row, the prefix of its A entries' B-row lengths
/// (global sums; a row's own prefix is relative to its first slot).
template <class ExecSpace>
struct LongRowSplitArrays {
  TempView<std::uint64_t, ExecSpace> chunk_off, pref_off, pref;
};

template <class ExecSpace, class V, class Perm>
static LongRowSplitArrays<ExecSpace> long_row_split_arrays(const ExecSpace& space, const V& v,
                                                           const Perm& perm,
                                                           const SpgemmLongRowSplitPlan& sp) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using HostView = Kokkos::View<const std::uint64_t*, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t ns = sp.rows;
  LongRowSplitArrays<ExecSpace> a{{space, "spk::spgemm::split_chunk_offsets", std::size_t(ns + 1)},
                                  {space, "spk::spgemm::split_prefix_offsets", std::size_t(ns + 1)},
                                  {space, "spk::spgemm::split_prefix", sp.prefix_offsets[ns]}};
  Kokkos::deep_copy(space, a.chunk_off.view, HostView(sp.chunk_offsets.data(), ns + 1));
  Kokkos::deep_copy(space, a.pref_off.view, HostView(sp.prefix_offsets.data(), ns + 1));
  const auto pref_off = a.pref_off.view;
  const auto pref = a.pref.view;
  const std::int64_t begin = sp.begin;
  Kokkos::parallel_for(
      "spk::spgemm::split_lengths", Policy(space, ns, sp.team_size * sp.vector_length, 1),
      KOKKOS_LAMBDA(const Member& member) {
        const std::int64_t s = member.league_rank();
        const auto i = perm(begin + s);
        const auto a0 = v.arm(i);
        const std::int64_t alen = static_cast<std::int64_t>(v.arm(i + 1) - a0);
        std::uint64_t* out = pref.data() + pref_off(s);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, alen + 1), [&](const std::int64_t j) {
          if (j == alen) {
            out[j] = 0;
          } else {
            const auto k = v.aci(a0 + j);
            out[j] = static_cast<std::uint64_t>(v.brm(k + 1) - v.brm(k));
          }
        });
      });
  // Exclusive scan in place: each slot is read before it is written.
  Kokkos::parallel_scan(
      "spk::spgemm::split_prefix",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<std::int64_t>(pref.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t g, std::uint64_t& sum, const bool final) {
        const std::uint64_t x = pref(g);
        if (final) pref(g) = sum;
        sum += x;
      });
  return a;
}

/// Calls f(ka, kb) for the products [c0, c1) of row i (in the order of its
/// A entries and their B rows).  pref: the row's prefix slots (global sums,
/// relative to pref[0]).  The team's threads take equal slices, each found
/// by a binary search over the prefix; a thread's lanes share each B row's
/// piece of its slice.
template <class Member, class V, class Fn>
KOKKOS_INLINE_FUNCTION void long_row_chunk_products(const Member& member, const V& v,
                                                    std::int64_t i, const std::uint64_t* pref,
                                                    std::int64_t alen, std::uint64_t c0,
                                                    std::uint64_t c1, const Fn& f) {
  const int T = member.team_size();
  const std::uint64_t base = pref[0];
  const std::uint64_t per = (c1 - c0 + T - 1) / T;
  const auto a0 = v.arm(i);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, T), [&](const int t) {
    std::uint64_t pos = c0 + t * per;
    const std::uint64_t end = pos + per < c1 ? pos + per : c1;
    if (pos >= end) return;
    // The last entry j with pref[j] <= pos (pref[alen] - base > pos).
    std::int64_t lo = 0, hi = alen;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (pref[mid] - base <= pos)
        lo = mid;
      else
        hi = mid;
    }
    for (std::int64_t j = lo; pos < end; ++j) {
      const std::uint64_t q0 = pref[j] - base, q1 = pref[j + 1] - base;
      if (q1 <= pos) continue;
      const std::uint64_t stop = q1 < end ? q1 : end;
      const auto ka = a0 + j;
      const auto k = v.aci(ka);
      const auto b = v.brm(k);
      using Off = typename std::remove_const<decltype(b)>::type;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, static_cast<Off>(b + (pos - q0)),
                                                     static_cast<Off>(b + (stop - q0))),
                           [&](const Off kb) { f(ka, kb); });
      pos = stop;
    }
  });
}

/// Runs body(member, s, i, c0, c1, pref, alen) on one team per chunk of the
/// split rows [s0, s1) (rows of the plan), chunks [q0, q1).
template <class ExecSpace, class V, class Perm, class Body>
static void long_row_for_chunks(const ExecSpace& space, const char* label, const V& v,
                                const Perm& perm, const SpgemmLongRowSplitPlan& sp,
                                const LongRowSplitArrays<ExecSpace>& a, std::int64_t s0,
                                std::int64_t s1, const Body& body) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const std::uint64_t q0 = sp.chunk_offsets[s0], q1 = sp.chunk_offsets[s1];
  const auto chunk_off = a.chunk_off.view;
  const auto pref_off = a.pref_off.view;
  const std::uint64_t* pref = a.pref.view.data();
  const std::uint64_t C = sp.chunk_products;
  const std::int64_t begin = sp.begin;
  Kokkos::parallel_for(
      label, Policy(space, static_cast<std::int64_t>(q1 - q0), sp.team_size, sp.vector_length),
      KOKKOS_LAMBDA(const Member& member) {
        const std::uint64_t q = q0 + member.league_rank();
        // The row of chunk q: the last s with chunk_off(s) <= q.
        std::int64_t lo = s0, hi = s1;
        while (hi - lo > 1) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (chunk_off(mid) <= q)
            lo = mid;
          else
            hi = mid;
        }
        const std::int64_t s = lo;
        const std::int64_t i = perm(begin + s);
        const std::uint64_t* row_pref = pref + pref_off(s);
        const std::int64_t alen = static_cast<std::int64_t>(pref_off(s + 1) - pref_off(s)) - 1;
        const std::uint64_t total = row_pref[alen] - row_pref[0];
        const std::uint64_t c0 = (q - chunk_off(s)) * C;
        const std::uint64_t c1 = c0 + C < total ? c0 + C : total;
        body(member, s, i, row_pref, alen, c0, c1);
      });
}

/// The columns of split rows s0..s1 of a batch as bits (cleared first):
/// every chunk's team ORs its products' columns into its row's bitmap.
/// Symbolic and numeric both start a batch with it.
template <class ExecSpace, class V, class Perm, class Arrays, class Bits>
static void long_rows_mark_columns(const ExecSpace& space, const char* label, const V& v,
                                   const Perm& perm, const SpgemmLongRowSplitPlan& sp,
                                   const Arrays& a, const Bits& bits, std::uint64_t words,
                                   std::int64_t s0, std::int64_t s1) {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kokkos::deep_copy(space, Kokkos::subview(bits, std::make_pair(std::size_t(0), (s1 - s0) * words)),
                    0u);
  long_row_for_chunks(
      space, label, v, perm, sp, a, s0, s1,
      KOKKOS_LAMBDA(const Member& member, const std::int64_t s, const std::int64_t i,
                    const std::uint64_t* pref, const std::int64_t alen, const std::uint64_t c0,
                    const std::uint64_t c1) {
        std::uint32_t* row_bits = bits.data() + (s - s0) * words;
        long_row_chunk_products(member, v, i, pref, alen, c0, c1, [&](const auto, const auto kb) {
          const auto c = static_cast<std::uint64_t>(v.bci(kb));
          Kokkos::atomic_or(&row_bits[c >> 5], std::uint32_t(1) << (c & 31));
        });
      });
}

/// Symbolic: counts(i + 1) = the distinct columns of each split row.
template <class ExecSpace, class V, class Perm, class Counts>
static void spgemm_long_rows_symbolic(const ExecSpace& space, const V& v, const Perm& perm,
                                      const Counts& counts, std::uint64_t ncols,
                                      const SpgemmLongRowSplitPlan& sp) {
  if (sp.rows == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto a = long_row_split_arrays(space, v, perm, sp);
  const std::uint64_t words = (ncols + 31) / 32;
  const TempView<std::uint32_t, ExecSpace> bits_mem(space, "spk::spgemm::split_bits",
                                                    sp.batch_rows * words);
  const auto bits = bits_mem.view;
  const std::int64_t begin = sp.begin;
  for (std::int64_t s0 = 0; s0 < sp.rows; s0 += sp.batch_rows) {
    const std::int64_t s1 = std::min(sp.rows, s0 + sp.batch_rows);
    long_rows_mark_columns(space, "spk::spgemm::symbolic_split_mark", v, perm, sp, a, bits, words,
                           s0, s1);
    Kokkos::parallel_for(
        "spk::spgemm::symbolic_split_count",
        Policy(space, s1 - s0, sp.team_size * sp.vector_length, 1),
        KOKKOS_LAMBDA(const Member& member) {
          const std::int64_t r = member.league_rank();
          const std::uint32_t* row_bits = bits.data() + r * words;
          long long count = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(member, static_cast<std::int64_t>(words)),
              [&](const std::int64_t w, long long& n) { n += long_row_popcount(row_bits[w]); },
              count);
          Kokkos::single(Kokkos::PerTeam(member),
                         [&]() { counts(perm(begin + s0 + r) + 1) = count; });
        });
  }
}

/// Numeric: each split row of C, sorted.
template <class ExecSpace, class V, class Perm>
static void spgemm_long_rows_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                                     std::uint64_t ncols, const SpgemmLongRowSplitPlan& sp) {
  if (sp.rows == 0) return;
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto a = long_row_split_arrays(space, v, perm, sp);
  const std::uint64_t words = (ncols + 31) / 32;
  const TempView<std::uint32_t, ExecSpace> bits_mem(space, "spk::spgemm::split_bits",
                                                    sp.batch_rows * words);
  const TempView<std::uint32_t, ExecSpace> ranks_mem(space, "spk::spgemm::split_ranks",
                                                     sp.batch_rows * words);
  const auto bits = bits_mem.view;
  const auto ranks = ranks_mem.view;
  const std::int64_t begin = sp.begin;
  const int T = sp.team_size * sp.vector_length;
  for (std::int64_t s0 = 0; s0 < sp.rows; s0 += sp.batch_rows) {
    const std::int64_t s1 = std::min(sp.rows, s0 + sp.batch_rows);
    // 1. The row's columns.
    long_rows_mark_columns(space, "spk::spgemm::numeric_split_mark", v, perm, sp, a, bits, words,
                           s0, s1);
    // 2. C's columns in order, zero values, each word's first position.
    // Each thread takes a contiguous run of words; a scan of the threads'
    // counts in scratch gives the runs' first positions.
    Kokkos::parallel_for(
        "spk::spgemm::numeric_split_ranks",
        Policy(space, s1 - s0, T, 1)
            .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(T * sizeof(long long)))),
        KOKKOS_LAMBDA(const Member& member) {
          long long* part =
              static_cast<long long*>(member.team_scratch(0).get_shmem(T * sizeof(long long)));
          const std::int64_t r = member.league_rank();
          const std::int64_t i = perm(begin + s0 + r);
          const std::uint32_t* row_bits = bits.data() + r * words;
          std::uint32_t* row_ranks = ranks.data() + r * words;
          const auto start = v.crm(i);
          O* cci = v.cci.data() + start;
          S* cv = v.cv.data() + start;
          const int nt = member.team_size();
          const std::uint64_t per = (words + nt - 1) / nt;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nt), [&](const int t) {
            const std::uint64_t w0 = t * per, w1 = w0 + per < words ? w0 + per : words;
            long long n = 0;
            for (std::uint64_t w = w0; w < w1; ++w) n += long_row_popcount(row_bits[w]);
            part[t] = n;
          });
          member.team_barrier();
          Kokkos::single(Kokkos::PerTeam(member), [&]() {
            long long sum = 0;
            for (int t = 0; t < nt; ++t) {
              const long long n = part[t];
              part[t] = sum;
              sum += n;
            }
          });
          member.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, nt), [&](const int t) {
            const std::uint64_t w0 = t * per, w1 = w0 + per < words ? w0 + per : words;
            long long p = part[t];
            for (std::uint64_t w = w0; w < w1; ++w) {
              row_ranks[w] = static_cast<std::uint32_t>(p);
              for (std::uint32_t x = row_bits[w]; x; x &= x - 1) {
                cci[p] = static_cast<O>(w * 32 + long_row_popcount((x & (0u - x)) - 1));
                cv[p] = S(0);
                ++p;
              }
            }
          });
        });
    // 3. Each product added at its column's position in C's row.
    long_row_for_chunks(
        space, "spk::spgemm::numeric_split_add", v, perm, sp, a, s0, s1,
        KOKKOS_LAMBDA(const Member& member, const std::int64_t s, const std::int64_t i,
                      const std::uint64_t* pref, const std::int64_t alen, const std::uint64_t c0,
                      const std::uint64_t c1) {
          const std::uint32_t* row_bits = bits.data() + (s - s0) * words;
          const std::uint32_t* row_ranks = ranks.data() + (s - s0) * words;
          S* cv = v.cv.data() + v.crm(i);
          long_row_chunk_products(
              member, v, i, pref, alen, c0, c1, [&](const auto ka, const auto kb) {
                const auto c = static_cast<std::uint64_t>(v.bci(kb));
                const std::uint64_t w = c >> 5;
                const std::uint32_t below = row_bits[w] & ((std::uint32_t(1) << (c & 31)) - 1u);
                atomic_add_scalar(&cv[row_ranks[w] + long_row_popcount(below)],
                                  v.av(ka) * v.bv(kb));
              });
        });
  }
}

}  // namespace spk::Impl
