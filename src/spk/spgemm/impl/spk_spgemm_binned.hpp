// BinnedHash SpGEMM: rows binned by their number of products, one kernel
// shape per bin, the same binning for symbolic (count distinct columns) and
// numeric (sum products):
//   lane bins   - small tables, one row per thread, its vector lanes insert
//                 (several rows per team, each on its own scratch table);
//   team bins   - one row per team, table in team scratch;
//   long rows   - rows whose table does not fit scratch: one row per team on
//                 a bitmap of B's columns in team scratch when B is narrow
//                 enough (numeric sums on a dense value slab of B's width
//                 in global memory when the rows cover much of it, else
//                 walks the products twice: the bitmap, then each product
//                 added at its column's rank in C's row),
//                 otherwise on a slab of global memory (a hash table, or
//                 dense markers when B is narrow); slabs come from a pool
//                 sized by concurrency and a byte budget, not one per row.
// Analysis (validation, product counts, bin histogram) is one team kernel and
// one host synchronisation; rows are grouped by bin in one kernel (team
// blocks placed by atomics).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <impl/spk_atomic.hpp>
#include <impl/spk_launch.hpp>
#include <impl/spk_spgemm_common.hpp>
#include <impl/spk_spgemm_long_rows.hpp>
#include <impl/spk_spgemm_scratch_layout.hpp>
#include <impl/spk_spgemm_warp_hash.hpp>
#include <impl/spk_spgemm_warp_sort.hpp>
#include <limits>
#include <spk_error.hpp>
#include <spk_memory_pool.hpp>
#include <spk_settings.hpp>
#include <spk_spgemm_handle.hpp>
#include <tuning/spk_spgemm_tuning.hpp>
#include <tuple>
#include <utility>
#include <vector>

namespace spk::Impl {

/// The binned kernels' shared hash tables (lane, team and global-slab rows):
/// HashMix, since the low bits HashMask keeps are skewed in power-law graphs
/// (spk_hash_accumulator.hpp).  The per-thread tables of <= 64 slots keep
/// HashMask: a short row's columns rarely collide there.
template <class O, class V>
using SpgemmTable = HashAccumulator<O, V, HashMix>;

/// Per-backend parameters of the binned kernels.
struct SpgemmBinnedTuning {
  int vector_length = 1;
  int lane_threads = 1;          // threads (rows x lanes) of lane-bin teams, at most
  int team_threads = 1;          // threads (not counting vector lanes) of team-bin teams, at most
  int max_lane_log2 = 8;         // largest lane-bin table
  int max_team_log2 = 12;        // largest scratch table
  int max_slabs = 1;             // teams (and slabs) working on long rows at once
  std::size_t scratch = 0;       // team scratch bytes available
  std::size_t lane_scratch = 0;  // scratch bytes a lane-bin team should use, at most
  bool bitmap = true;            // long rows on a scratch bitmap when B's columns fit
  int max_thread_log2 = 0;       // tables up to 2^this: one row per thread (0: none)
  int max_thread_log2_sym = 0;   // the same for symbolic alone (keys only: smaller)
  int concurrency = 1;           // bins of fewer rows than concurrency / 32 get a team per row
  std::int64_t long_b_row = 0;   // B rows this long go to a whole team (0: spgemm_long_b_row)
  // Rows of at most 2^log2 products sorted by lanes of a warp
  // (spk_spgemm_warp_sort.hpp) instead of hashed, for log2 in [min, max]; 0: none.  Numeric,
  // symbolic.
  int warp_sort_min_log2 = 0, warp_sort_max_log2 = 0;
  int warp_sort_min_log2_sym = 0, warp_sort_max_log2_sym = 0;
  int warp_sort_warps = 4;  // warps per team
  int warp_sort_slots = 1;  // products per lane, at least (rows of 2^l: 2^l / slots lanes)
  // Sortable bins of few rows sorted too, not a team per row (numeric 10-35 %
  // faster on the H100's medium matrices: ca-CondMat, lhr07, delaunay_n16).
  bool warp_sort_few = false;
  bool warp_hash = false;              // warp-hashed rows (spk_spgemm_warp_hash.hpp) run here
  SpgemmLongRowTuning long_row_split;  // long rows over several teams
  SpgemmRegroupTuning regroup;         // numeric's bins by C's row lengths
  SpgemmSampleTuning sample;           // symbolic's hashed warp-sortable bins
  SpgemmWideRowTuning wide_row;        // numeric's long rows of C written through a bitmap
  /// Largest bin whose rows must fit a warp sort (their products, not their
  /// distinct columns, bound the bin).
  int sort_max_log2() const { return std::max(warp_sort_max_log2, warp_sort_max_log2_sym); }
  bool warp_sort(int log2) const {
    return log2 >= warp_sort_min_log2 && log2 <= warp_sort_max_log2;
  }
  bool warp_sort_sym(int log2) const {
    return log2 >= warp_sort_min_log2_sym && log2 <= warp_sort_max_log2_sym;
  }
  /// A bin of this many rows cannot fill the device one row per thread or
  /// lane group.
  bool few_rows(std::int64_t rows) const { return rows * 32 < concurrency; }
};

constexpr int spgemm_min_log2 = 5;  // smallest table: 32 entries
constexpr int spgemm_max_bins = 14;

/// SpGEMM's tuning overrides of one product: the options', then the
/// settings'.
inline SpgemmTuningOverrides spgemm_overrides(const SpgemmOptions& opt) {
  return opt.tuning.or_else(settings().spgemm);
}

/// The device part of the tuning: the policy of the device (or the
/// options'), with the overrides applied.
template <class S, class ExecSpace>
void spgemm_device_tuning(SpgemmBinnedTuning& t, const ExecSpace& space, const SpgemmOptions& opt,
                          double avg_b_row, std::size_t& scratch) {
  const SpgemmDevicePolicy p = opt.device_policy ? *opt.device_policy : spgemm_device_policy(space);
  const SpgemmTuningOverrides o = spgemm_overrides(opt);
  int v = static_cast<int>(next_pow2(static_cast<std::uint64_t>(avg_b_row + 0.5)));
  t.vector_length = std::clamp(v, p.min_vector_length, p.max_vector_length);
  t.lane_threads = p.lane_threads;
  t.team_threads = opt.team_size > 0 ? opt.team_size : std::max(1, p.team_lanes / t.vector_length);
  const std::size_t limit = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  if (scratch == 0 || scratch > limit) scratch = limit;
  t.lane_scratch = std::min<std::size_t>(scratch, p.lane_scratch_bytes);
  t.max_slabs = std::max(1, Impl::concurrency(space) / (t.team_threads * t.vector_length));
  if (o.max_slabs) t.max_slabs = std::max(1, *o.max_slabs);
  if (o.long_b_row) t.long_b_row = std::max<std::int64_t>(0, *o.long_b_row);
  t.max_thread_log2 = p.max_thread_log2;
  t.max_thread_log2_sym = p.max_thread_log2_sym;
  t.concurrency = Impl::concurrency(space);
  if constexpr (spgemm_warp_sort_capable<ExecSpace, S>()) {
    t.warp_sort_min_log2 = std::clamp(o.warp_sort_min_log2.value_or(p.warp_sort_min_log2), 0, 9);
    t.warp_sort_max_log2 = std::clamp(o.warp_sort_max_log2.value_or(p.warp_sort_max_log2), 0, 9);
    t.warp_sort_min_log2_sym =
        std::clamp(o.warp_sort_min_log2_sym.value_or(p.warp_sort_min_log2_sym), 0, 9);
    t.warp_sort_max_log2_sym =
        std::clamp(o.warp_sort_max_log2_sym.value_or(p.warp_sort_max_log2_sym), 0, 9);
    t.warp_sort_warps = std::clamp(o.warp_sort_warps.value_or(p.warp_sort_warps), 1, 32);
    t.warp_sort_slots = std::clamp(o.warp_sort_slots.value_or(p.warp_sort_slots), 1, 8);
    t.warp_sort_few = o.warp_sort_few.value_or(p.warp_sort_few);
    t.warp_hash = true;
  }
}

/// The binned kernels' parameters for one product: the backend's tuning
/// policy (spk_spgemm_tuning.hpp), the options and the overrides.
template <class O, class S, class F, class ExecSpace>
SpgemmBinnedTuning spgemm_binned_tuning(const ExecSpace& space, const SpgemmOptions& opt,
                                        double avg_b_row) {
  constexpr SpgemmScratchLayout layout = SpgemmScratchLayout::of<O, S, F>();
  SpgemmBinnedTuning t;
  std::size_t scratch = opt.max_scratch_bytes;
  if constexpr (is_host_space_v<ExecSpace>) {
    t.vector_length = 1;
    t.lane_threads = 1;
    t.team_threads =
        std::max(1, std::min(opt.team_size > 0 ? opt.team_size : 1, Impl::concurrency(space)));
    if (scratch == 0) scratch = SpgemmHostPolicy::scratch_bytes;
    t.lane_scratch = scratch;
    t.max_slabs = Impl::concurrency(space);
  } else {
    spgemm_device_tuning<S>(t, space, opt, avg_b_row, scratch);
  }
  t.scratch = scratch;
  // The largest table whose team-bin row (numeric's: table, key buffer,
  // list) fits the scratch.
  int lt = spgemm_min_log2;
  while (layout.request(layout.team_row(std::size_t(2) << lt)) <= scratch && lt < 16) ++lt;
  t.max_team_log2 = lt;
  t.max_lane_log2 = std::min(8, lt);
  t.bitmap = opt.long_row_bitmap;
  const SpgemmTuningOverrides o = spgemm_overrides(opt);
  t.regroup.shrink_log2 = std::clamp(o.regroup_shrink_log2.value_or(t.regroup.shrink_log2), 0, 16);
  t.regroup.min_products = o.regroup_min_products.value_or(t.regroup.min_products);
  t.regroup.warp_sorted = o.regroup_warp_sorted.value_or(t.regroup.warp_sorted);
  t.regroup.max_lane_products = o.regroup_max_lane_products.value_or(t.regroup.max_lane_products);
  t.regroup.team_products_per_column =
      o.regroup_team_products_per_column.value_or(t.regroup.team_products_per_column);
  t.sample.compression = o.sample_compression.value_or(t.sample.compression);
  t.sample.min_products = o.sample_min_products.value_or(t.sample.min_products);
  t.wide_row.max_words_per_column =
      o.wide_row_words_per_column.value_or(t.wide_row.max_words_per_column);
  t.wide_row.max_bytes = o.wide_row_max_bytes.value_or(t.wide_row.max_bytes);
  return t;
}

/// Rows per lane-bin team: as many as the lane threads and the scratch
/// allow, rounded to whole warps (32 / vector_length rows) when possible.
inline int spgemm_lane_rows(const SpgemmBinnedTuning& t, std::size_t row_bytes, std::size_t slack) {
  const int by_threads = std::max(1, t.lane_threads / t.vector_length);
  const std::size_t room = t.lane_scratch > slack ? t.lane_scratch - slack : 0;
  const int by_scratch = static_cast<int>(std::max<std::size_t>(1, room / row_bytes));
  const int rows = std::min(by_threads, by_scratch);
  const int warp_rows = std::max(1, 32 / t.vector_length);
  return rows >= warp_rows ? rows / warp_rows * warp_rows : rows;
}

/// Rows (threads) per thread-bin team: up to 128, as the scratch allows.
inline int spgemm_thread_rows(const SpgemmBinnedTuning& t, std::size_t row_bytes,
                              std::size_t slack) {
  const std::size_t room = t.lane_scratch > slack ? t.lane_scratch - slack : 0;
  const int rows =
      static_cast<int>(std::min<std::size_t>(128, std::max<std::size_t>(1, room / row_bytes)));
  return rows >= 32 ? rows / 32 * 32 : rows;
}

/// Bin of a row: -1 for rows without products, [0, nb - 1) for scratch
/// tables of 2^(bin + spgemm_min_log2) entries, nb - 1 for long rows.  Rows
/// whose products (not only their distinct columns) fit 2^sort_max_log2 go
/// by their products, so that a warp can sort them; the other rows go to
/// bins above those.
struct SpgemmBinOf {
  std::uint64_t ncols;
  int max_team_log2, nb;
  int sort_max_log2 = 0;
  KOKKOS_INLINE_FUNCTION int operator()(std::uint64_t p) const {
    if (p == 0) return -1;
    int l = spgemm_table_log2(p);
    if (l > sort_max_log2) {
      l = spgemm_table_log2(p < ncols ? p : ncols);
      if (l <= sort_max_log2) l = sort_max_log2 + 1;
    }
    return l > max_team_log2 ? nb - 1 : l - spgemm_min_log2;
  }
};

/// What the analysis gathers.  Its 64-bit words, in this order, are the
/// words the analysis kernel adds to on the device (SpgemmAnalyze).
struct SpgemmRowStats {
  std::uint64_t bins[spgemm_max_bins];
  std::uint64_t products, max_products, long_products;  // long: rows of the last bin
  std::int64_t bad_a, bad_b;  // first invalid row of A / of B, or INT64_MAX
  KOKKOS_INLINE_FUNCTION SpgemmRowStats() : products(0), max_products(0), long_products(0) {
    for (int b = 0; b < spgemm_max_bins; ++b) bins[b] = 0;
    bad_a = bad_b = INT64_MAX;
  }
};

/// Products and invalid entries of (part of) one row.
struct SpgemmRowCount {
  std::uint64_t products = 0, bad = 0;
};

/// Rows of the analysis longer than this (entries of A's or B's row) are not
/// walked by one thread: a team shares out their entries evenly.  One thread
/// per row (a RangePolicy) left Maragal_6's 5,941-entry row to a single
/// thread: 0.87 ms of a 4.3 ms product on the H100.
constexpr int spgemm_analyze_team_row = 64;

/// The analysis' result on the device: SpgemmRowStats' words, each on its
/// own 128-byte line (see SpgemmAnalyze).
constexpr int spgemm_analyze_words = sizeof(SpgemmRowStats) / sizeof(std::uint64_t);
constexpr int spgemm_analyze_stride = 16;
constexpr std::size_t spgemm_analyze_bytes =
    spgemm_analyze_words * spgemm_analyze_stride * sizeof(unsigned long long);
static_assert(sizeof(SpgemmRowStats) % sizeof(std::uint64_t) == 0);

/// BinnedHash's analysis kernel (spgemm_analyze): a team per block of rows
/// adds its rows' statistics to the result with one atomic per word.
/// (Kokkos' CUDA team reductions were slow here: a struct value ends with one
/// warp reading every team's value back, 0.7 ms for the 3,906 teams of a
/// million rows; an array value runs on at most team-size blocks, a third of
/// the H100 with teams of 256, and 512 exceed its shared memory.  Per-team
/// slots summed by a second reduction cost small products its fixed ~23 us,
/// and summed by the last team to finish, 0.24 ms of one warp's loads.)
template <class ExecSpace, class V, class Products, class Counts>
struct SpgemmAnalyze {
  // At most 64 registers: four teams of 256 threads per SM (72 held it to three).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 4>>;
  using Member = typename Policy::member_type;

  decltype(std::declval<V>().arm) arm, brm;
  decltype(std::declval<V>().aci) aci, bci;
  Products products;
  Counts counts;
  SpgemmBinOf bin_of;
  std::int64_t m, k, range, nnz_a, nnz_b;
  std::uint64_t ncols;
  unsigned long long* result;  // SpgemmRowStats' words, see the end of operator()
  bool validate;
  int block, team_row;

  /// Scratch: listed rows' entry offsets (block + 1) and product sums
  /// (block), the first invalid rows (2); listed rows (block), their invalid
  /// entries (block), the bin histogram, the count.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int block) {
    return 8 * (2 * std::size_t(block) + 3) + 4 * (2 * std::size_t(block) + spgemm_max_bins + 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    auto* start =
        static_cast<std::int64_t*>(member.team_scratch(0).get_shmem(scratch_bytes(block)));
    auto* sum = reinterpret_cast<unsigned long long*>(start + block + 1);
    auto* first_bad = reinterpret_cast<std::int64_t*>(sum + block);  // of A, of B
    auto* listed = reinterpret_cast<std::int32_t*>(first_bad + 2);
    auto* bad = reinterpret_cast<std::uint32_t*>(listed + block);
    auto* hist = bad + block;
    auto* n_listed = reinterpret_cast<std::int32_t*>(hist + spgemm_max_bins);
    // This thread's sums; the histogram and the first invalid rows in scratch.
    std::uint64_t total_products = 0, max_products = 0, long_products = 0;
    // Validation of entries [b, e) of row r and their products (rows of B
    // have none).  A's four at a time: a thread's row is otherwise a chain of
    // dependent loads (column, then B's row length), one after the other.
    auto entries = [&](std::int64_t r, std::int64_t b, std::int64_t e, SpgemmRowCount& x) {
      if (r >= m) {
        for (std::int64_t kk = b; kk < e; ++kk) {
          const std::int64_t c = static_cast<std::int64_t>(bci(kk));
          if (c < 0 || static_cast<std::uint64_t>(c) >= ncols) ++x.bad;
        }
        return;
      }
      auto one = [&](std::int64_t c) {
        if (validate && (c < 0 || c >= k))
          ++x.bad;
        else
          x.products += static_cast<std::uint64_t>(brm(c + 1) - brm(c));
      };
      std::int64_t kk = b;
      for (; kk + 4 <= e; kk += 4) {
        std::int64_t c[4];
        for (int u = 0; u < 4; ++u) c[u] = static_cast<std::int64_t>(aci(kk + u));
        bool ok = true;
        if (validate)
          for (int u = 0; u < 4; ++u) ok = ok && c[u] >= 0 && c[u] < k;
        if (ok) {
          std::uint64_t p = 0;
          for (int u = 0; u < 4; ++u) p += static_cast<std::uint64_t>(brm(c[u] + 1) - brm(c[u]));
          x.products += p;
        } else {
          for (int u = 0; u < 4; ++u) one(c[u]);
        }
      }
      for (; kk < e; ++kk) one(static_cast<std::int64_t>(aci(kk)));
    };
    // What a row adds to the statistics once it is counted.
    auto record = [&](std::int64_t r, const SpgemmRowCount& x) {
      if (r >= m) {
        if (x.bad) Kokkos::atomic_fetch_min(&first_bad[1], r - m);
        return;
      }
      if (x.bad) {
        Kokkos::atomic_fetch_min(&first_bad[0], r);
        products(r) = 0;
        counts(r + 1) = 0;
        return;
      }
      const std::uint64_t p = x.products;
      products(r) = p;
      if (p == 0) counts(r + 1) = 0;  // rows in no bin: nothing else writes theirs
      total_products += p;
      if (p > max_products) max_products = p;
      const int bin = bin_of(p);
      if (bin >= 0) Kokkos::atomic_add(&hist[bin], 1u);
      if (bin == bin_of.nb - 1) long_products += p;
    };
    // Row r's first entry, and (when asked) whether its pointers are valid.
    auto row_begin = [&](std::int64_t r, std::int64_t* end, bool* ok) {
      std::int64_t b, e;
      if (r < m) {
        b = static_cast<std::int64_t>(arm(r));
        if (end) {
          e = static_cast<std::int64_t>(arm(r + 1));
          *ok = !validate ||
                (b >= 0 && b <= e && e <= nnz_a && (r > 0 || b == 0) && (r < m - 1 || e == nnz_a));
        }
      } else {
        const std::int64_t row = r - m;
        b = static_cast<std::int64_t>(brm(row));
        if (end) {
          e = static_cast<std::int64_t>(brm(row + 1));
          *ok =
              b >= 0 && b <= e && e <= nnz_b && (row > 0 || b == 0) && (row < k - 1 || e == nnz_b);
        }
      }
      if (end) *end = e;
      return b;
    };
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      *n_listed = 0;
      first_bad[0] = first_bad[1] = INT64_MAX;
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, spgemm_max_bins),
                         [&](const int b) { hist[b] = 0; });
    member.team_barrier();
    const std::int64_t r0 = static_cast<std::int64_t>(member.league_rank()) * block;
    const int rows = static_cast<int>(range - r0 < block ? range - r0 : block);
    // Each thread a row; longer ones listed with their lengths.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows), [&](const int j) {
      const std::int64_t r = r0 + j;
      std::int64_t e;
      bool ok;
      const std::int64_t b = row_begin(r, &e, &ok);
      SpgemmRowCount x;
      if (!ok) {
        x.bad = 1;
      } else if (e - b > team_row) {
        const int i = Kokkos::atomic_fetch_add(n_listed, 1);
        listed[i] = j;
        start[i] = e - b;
        return;
      } else {
        entries(r, b, e, x);
      }
      record(r, x);
    });
    member.team_barrier();
    const int n = *n_listed;
    if (n > 0) {
      // Lengths to offsets (start[n]: all listed entries); sums zeroed.
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(member, n),
                            [&](const int i, std::int64_t& run, const bool final) {
                              const std::int64_t len = start[i];
                              if (final) {
                                start[i] = run;
                                sum[i] = 0;
                                bad[i] = 0;
                                if (i == n - 1) start[n] = run + len;
                              }
                              run += len;
                            });
      member.team_barrier();
      // Thread t takes entries [lo, hi) of the listed rows, row by row.
      const std::int64_t all = start[n];
      const int nt = member.team_size(), t = member.team_rank();
      const std::int64_t lo = all / nt * t + (all % nt) * t / nt;
      const std::int64_t hi = all / nt * (t + 1) + (all % nt) * (t + 1) / nt;
      if (lo < hi) {
        int i = 0, top = n;  // the listed row holding lo: start[i] <= lo < start[i + 1]
        while (top - i > 1) {
          const int mid = (i + top) / 2;
          if (start[mid] <= lo)
            i = mid;
          else
            top = mid;
        }
        for (std::int64_t q = lo; q < hi; ++i) {
          const std::int64_t r = r0 + listed[i];
          const std::int64_t until = start[i + 1] < hi ? start[i + 1] : hi;
          const std::int64_t b = row_begin(r, nullptr, nullptr) + (q - start[i]);
          SpgemmRowCount x;
          entries(r, b, b + (until - q), x);
          if (x.products) Kokkos::atomic_add(&sum[i], static_cast<unsigned long long>(x.products));
          if (x.bad) Kokkos::atomic_add(&bad[i], static_cast<std::uint32_t>(x.bad));
          q = until;
        }
      }
      member.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const int i) {
        SpgemmRowCount x;
        x.products = sum[i];
        x.bad = bad[i];
        record(r0 + listed[i], x);
      });
    }
    member.team_reduce(Kokkos::Sum<std::uint64_t>(total_products));
    member.team_reduce(Kokkos::Sum<std::uint64_t>(long_products));
    member.team_reduce(Kokkos::Max<std::uint64_t>(max_products));
    member.team_barrier();  // the histogram and the invalid rows are complete
    // The team's statistics into the result's words (all zero before the
    // launch; a first invalid row r is kept as INT64_MAX - r, so that its min
    // is a max), a thread per word (one thread doing them all made the teams'
    // tails a chain of atomics), each word on its own 128-byte line: atomics
    // on different words go to different L2 slices.  team_reduce gave every
    // thread the team's sums.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, spgemm_analyze_words), [&](const int w) {
      constexpr int nb = spgemm_max_bins;
      const int bad_of = w - (nb + 3);  // 0: A, 1: B
      const unsigned long long x =
          w < nb        ? hist[w]
          : w == nb     ? total_products
          : w == nb + 1 ? max_products
          : w == nb + 2 ? long_products
          : first_bad[bad_of] != INT64_MAX
              ? static_cast<unsigned long long>(INT64_MAX - first_bad[bad_of])
              : 0;
      if (x)
        atomic_update_counter(result + w * spgemm_analyze_stride, x, w == nb + 1 || bad_of >= 0);
    });
  }
};

/// Rows per thread of the analysis on a device: 4, 2 or 1, the most that
/// still gives at least one wave of teams (four of 256 threads per SM).  On
/// the H100, 4 rows per thread spread a team's fixed cost (barriers, the
/// team reductions, the atomics) over 1,024 rows: the analysis of
/// poisson2d:1000 0.117 -> 0.070 ms, G3_circuit 0.177 -> 0.100 ms.  Fewer
/// teams than the GPU holds leave SMs idle: Maragal_6's 21k rows in 21 teams
/// took 0.44 ms against 0.13 ms in 83.
inline int spgemm_analyze_rows_per_thread(std::int64_t range, int threads, int concurrency) {
  const std::int64_t resident = std::max(1, concurrency / (2 * threads));
  int r = 4;
  while (r > 1 && range < resident * threads * r) r /= 2;
  return r;
}

/// One pass over A's rows (and B's when validating): products per row into
/// `products` (and a zero count for rows without products), rows per bin, total and largest row,
/// and the first row of A and of B whose pointers or columns are invalid.  One synchronisation.
/// Rows of A and B are numbered [0, m) and [m, m + k).  A team takes a block
/// of rows, a thread each; rows of more than `team_row` entries are listed,
/// and the team then splits the listed rows' entries evenly among its threads
/// (sums per row in scratch).
/// `zeroed`: spgemm_analyze_bytes of ExecSpace's memory, set to zero (the caller
/// zeroes it with its own temporaries: one memset fewer).  `rows_per_thread`:
/// 0 chooses (spgemm_analyze_rows_per_thread); tests force others.
template <class ExecSpace, class V, class Products, class Counts>
SpgemmRowStats spgemm_analyze(const ExecSpace& space, const V& v, std::int64_t m, std::int64_t k,
                              std::uint64_t ncols, bool validate, bool validate_b,
                              const SpgemmBinOf& bin_of, const Products& products,
                              const Counts& counts, void* zeroed,
                              int team_row = spgemm_analyze_team_row, int rows_per_thread = 0) {
  SpgemmRowStats stats;
  const std::int64_t range = validate && validate_b ? m + k : m;
  if (range == 0) return stats;
  constexpr bool host = is_host_space_v<ExecSpace>;
  // Device: 256 threads.  Host: teams of two threads where there are two (so
  // that the host backends test the sharing too), 512 rows per team.
  const int threads = host ? std::min(2, concurrency(space)) : 256;
  if (rows_per_thread <= 0)
    rows_per_thread =
        host ? 512 / threads : spgemm_analyze_rows_per_thread(range, threads, concurrency(space));
  const int block = threads * rows_per_thread;  // rows per team
  const std::int64_t league = (range + block - 1) / block;
  SPK_REQUIRE(league <= INT32_MAX, Overflow, "spk::spgemm: ", range,
              " rows are too many for the analysis' teams");
  using Functor = SpgemmAnalyze<ExecSpace, V, Products, Counts>;
  constexpr int n = spgemm_analyze_bytes / sizeof(unsigned long long);
  const Kokkos::View<unsigned long long*, device_t<ExecSpace>> result(
      static_cast<unsigned long long*>(zeroed), n);
  Functor f;
  f.arm = v.arm;
  f.brm = v.brm;
  f.aci = v.aci;
  f.bci = v.bci;
  f.products = products;
  f.counts = counts;
  f.result = result.data();
  f.bin_of = bin_of;
  f.m = m;
  f.k = k;
  f.range = range;
  f.nnz_a = static_cast<std::int64_t>(v.aci.extent(0));
  f.nnz_b = static_cast<std::int64_t>(v.bci.extent(0));
  f.ncols = ncols;
  f.validate = validate;
  f.block = block;
  f.team_row = team_row;
  Kokkos::parallel_for("spk::spgemm::analyze",
                       typename Functor::Policy(space, static_cast<int>(league), threads, 1)
                           .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(block))),
                       f);
  // Into pinned memory on CUDA (one DMA); host spaces' result is read as is.
  unsigned long long w[spgemm_analyze_words], staged[n];
  const unsigned long long* padded = result.data();
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            typename ExecSpace::memory_space>::accessible) {
    auto* pinned = static_cast<unsigned long long*>(pinned_result_buffer(spgemm_analyze_bytes));
    if (!pinned) pinned = staged;
    Kokkos::deep_copy(
        space,
        Kokkos::View<unsigned long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(pinned, n),
        result);
    padded = pinned;
  }
  space.fence();
  for (int i = 0; i < spgemm_analyze_words; ++i) w[i] = padded[i * spgemm_analyze_stride];
  for (int b = 0; b < spgemm_max_bins; ++b) stats.bins[b] = w[b];
  stats.products = w[spgemm_max_bins];
  stats.max_products = w[spgemm_max_bins + 1];
  stats.long_products = w[spgemm_max_bins + 2];
  stats.bad_a = INT64_MAX - static_cast<std::int64_t>(w[spgemm_max_bins + 3]);
  stats.bad_b = INT64_MAX - static_cast<std::int64_t>(w[spgemm_max_bins + 4]);
  return stats;
}

/// B rows at least this long go to a whole team (BalancedTeamGroup): half
/// the team's lanes (threads x vector length), and at least 4x the threads
/// (the old bound alone).  A shorter row keeps one thread's lanes busy for a
/// few passes; the team takes its listed rows one after the other, mostly
/// idle on rows of 32-64 (lhr07, teams of 8 threads x 32 lanes: 0.63 -> 0.43
/// ms on the H100).  forced > 0 (SpgemmTuningOverrides::long_b_row)
/// replaces it.
inline std::int64_t spgemm_long_b_row(int threads, int vector_length, std::int64_t forced) {
  if (forced > 0) return forced;
  return std::max<std::int64_t>(4 * threads, std::int64_t(threads) * vector_length / 2);
}

/// Entries of the balanced list of the long rows on global tables: up to
/// SpgemmScratchLayout::global_list, in a quarter of the scratch at most.
template <class F>
int spgemm_global_list(const SpgemmBinnedTuning& t) {
  const std::size_t fit = t.scratch / 4 / sizeof(F);
  return static_cast<int>(std::clamp<std::size_t>(fit, SpgemmScratchLayout::balanced_list,
                                                  SpgemmScratchLayout::global_list));
}

/// The grouping kernels' blocks of rows: a team of 256 threads (one on
/// hosts) per block, four rows a thread, `shmem` bytes of scratch a team.
template <class ExecSpace>
struct SpgemmRowBlocks {
  static constexpr int per_thread = 4;
  static int threads() { return is_host_space_v<ExecSpace> ? 1 : 256; }
  static std::int64_t block() { return std::int64_t(threads()) * per_thread; }
  static Kokkos::TeamPolicy<ExecSpace> policy(const ExecSpace& space, std::int64_t rows,
                                              std::size_t shmem) {
    return Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>((rows + block() - 1) / block()),
                                         threads())
        .set_scratch_size(0, Kokkos::PerTeam(shmem));
  }
};

struct SpgemmBinOffsets {
  std::int64_t at[spgemm_max_bins];
};

/// Groups the rows by bin into perm (a bin's rows in blocks of nearby rows,
/// in no fixed order); returns the bins (empty ones dropped).  `cursors`
/// holds bin_of.nb zeros (made before the analysis' synchronisation, so that
/// the device does not wait for their allocation after it).
template <class ExecSpace, class Products, class Perm, class Cursors>
static std::vector<SpgemmBin> spgemm_bin_rows(const ExecSpace& space, std::int64_t m,
                                              const SpgemmBinOf& bin_of,
                                              const SpgemmRowStats& stats, const Products& products,
                                              const Perm& perm, const SpgemmBinnedTuning& t,
                                              const SpgemmScratchLayout& layout,
                                              const Cursors& cursors) {
  const int nb = bin_of.nb;
  std::vector<SpgemmBin> bins;
  SpgemmBinOffsets offsets{};
  std::int64_t at = 0;
  for (int b = 0; b < nb; ++b) {
    offsets.at[b] = at;
    const std::int64_t count = static_cast<std::int64_t>(stats.bins[b]);
    if (count > 0) {
      SpgemmBin bin;
      bin.begin = at;
      bin.end = at + count;
      if (b == nb - 1) {
        bin.kernel = SpgemmBinKernel::LongRows;
        bin.log2_capacity = 0;
        bin.team_size = t.team_threads;
        bin.work = stats.long_products;
      } else {
        bin.log2_capacity = b + spgemm_min_log2;
        // A row of this bin has between half its table and its table of
        // products (more when the table is bounded by B's width).
        bin.work = static_cast<std::uint64_t>(count) * (std::uint64_t(3) << bin.log2_capacity) / 4;
        // Few rows cannot fill the device one per thread or lane group:
        // they get a team each, which finishes each row sooner; rows a
        // warp can sort are the exception when warp_sort_few says so.
        const bool few = t.few_rows(count) && !(t.warp_sort_few && t.warp_sort(bin.log2_capacity));
        using K = SpgemmBinKernel;
        bin.kernel = few                                      ? K::TeamPerRow
                     : t.warp_sort(bin.log2_capacity)         ? K::WarpSorted
                     : bin.log2_capacity <= t.max_thread_log2 ? K::ThreadPerRow
                     : bin.log2_capacity <= t.max_lane_log2   ? K::LanesPerRow
                                                              : K::TeamPerRow;
        if (bin.kernel == SpgemmBinKernel::WarpSorted) {
          bin.team_size = t.warp_sort_warps;
          bin.slots = t.warp_sort_slots;
        } else if (bin.kernel == SpgemmBinKernel::ThreadPerRow) {
          // One row per thread: rows per team as scratch allows, whole warps.
          const std::size_t row_bytes = layout.thread_rows(std::size_t(1) << bin.log2_capacity, 1);
          bin.team_size = spgemm_thread_rows(t, row_bytes, layout.slack);
        } else if (bin.kernel == SpgemmBinKernel::LanesPerRow) {
          // Rows per team: as many as the lane threads and the scratch allow
          // (numeric's tables, the larger ones).
          const std::size_t row_bytes =
              layout.lane_row(std::size_t(1) << bin.log2_capacity, t.vector_length, true);
          bin.team_size = spgemm_lane_rows(t, row_bytes, layout.slack);
        } else {
          // About two table slots per thread, up to the team size.
          const int threads = std::min<long long>(t.team_threads * t.vector_length,
                                                  std::max(1LL, (1LL << bin.log2_capacity) / 2));
          bin.team_size = std::max(1, threads / t.vector_length);
        }
      }
      bin.long_b_row = spgemm_long_b_row(bin.team_size, t.vector_length, t.long_b_row);
      bins.push_back(bin);
    }
    at += count;
  }
  if (at == 0) return bins;
  SPK_REQUIRE(m < (std::int64_t(1) << 32), Overflow,
              "spk::spgemm: BinnedHash handles at most 2^32 - 1 rows, A has ", m);
  // Each team takes a block of rows: ranks within the block's share of a bin
  // from atomics in scratch, then one global atomic per bin places the block
  // (one kernel: a stable scan cost 0.04 ms even on a hundred rows).  The
  // order of a bin's rows is not fixed; the product does not depend on it.
  using Blocks = SpgemmRowBlocks<ExecSpace>;
  constexpr int per_thread = Blocks::per_thread;
  const std::int64_t block = Blocks::block();
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const std::size_t shmem = 2 * sizeof(std::uint32_t) * nb;
  Kokkos::parallel_for(
      "spk::spgemm::group_rows", Blocks::policy(space, m, shmem),
      KOKKOS_LAMBDA(const Member& member) {
        auto* local = static_cast<std::uint32_t*>(member.team_scratch(0).get_shmem(shmem));
        auto* base = local + nb;
        const int t = member.team_rank();
        for (int b = t; b < nb; b += member.team_size()) local[b] = 0;
        member.team_barrier();
        const std::int64_t i0 = static_cast<std::int64_t>(member.league_rank()) * block;
        int bin[per_thread];
        std::uint32_t rank[per_thread];
        // Strided: a warp reads consecutive products.
        for (int j = 0; j < per_thread; ++j) {
          const std::int64_t i = i0 + t + std::int64_t(j) * member.team_size();
          bin[j] = i < m ? bin_of(products(i)) : -1;
          rank[j] = bin[j] >= 0 ? Kokkos::atomic_fetch_add(&local[bin[j]], 1u) : 0u;
        }
        member.team_barrier();
        for (int b = t; b < nb; b += member.team_size())
          base[b] = local[b] > 0 ? Kokkos::atomic_fetch_add(&cursors(b), local[b]) : 0u;
        member.team_barrier();
        for (int j = 0; j < per_thread; ++j) {
          if (bin[j] < 0) continue;
          const std::int64_t i = i0 + t + std::int64_t(j) * member.team_size();
          perm(offsets.at[bin[j]] + static_cast<std::int64_t>(base[bin[j]] + rank[j])) = i;
        }
      });
  return bins;
}

/// One group of long rows (SpgemmLongRowGroup) in a launch of numeric's
/// Hash kernel that runs several groups side by side.
struct SpgemmHashGroupSlot {
  std::int64_t row_begin = 0, rows = 0;  // the group's rows in the long bin's range of perm
  std::uint64_t capacity = 0;            // table slots per slab
  std::uint64_t slab_begin = 0;          // the group's first slot in the slab area
  int team_begin = 0, teams = 0;         // its teams (one slab each) in the launch
  int bitmap_begin = 0, bitmaps = 0;     // wide-row bitmaps of its first teams
  std::uint32_t kcap = 0;                // key buffer in scratch (SpgemmWideRowTuning)
};

/// The Hash groups of one launch: as many as the slab budget holds at once
/// (the groups of a few rows of large tables, launched one after another,
/// held most of the GPU idle: powerlaw:4000000's groups of 3, 22, 88 and 270
/// rows took 2.1, 3.1, 3.4 and 2.6 ms on an H200 with their tables' rows in
/// order through bitmaps).
struct SpgemmHashWave {
  static constexpr int max_groups = 16;
  Kokkos::Array<SpgemmHashGroupSlot, max_groups> group;
  int count = 0, teams = 0;
  std::uint64_t entries = 0;  // slab slots
  std::uint32_t kcap = 0;     // its groups' key buffer
  /// The group of the launch's team `team`.
  KOKKOS_INLINE_FUNCTION const SpgemmHashGroupSlot& group_of(int team) const {
    int q = 0;
    while (q + 1 < count && team >= group[q + 1].team_begin) ++q;
    return group[q];
  }
};

/// The Hash launches (numeric's; symbolic's of keys alone): the groups in
/// order, with their slabs, a launch taking the next group while the slabs
/// fit `limit` slots and the group has the launch's key buffer
/// (`key_room(group)`): the groups of tables larger than the scratch holds
/// share one, and a launch's teams all get the same scratch (the smaller
/// tables' groups of many rows ran slower with the largest one's:
/// blockdiag:500000:64's numeric 47 -> 52 ms on an H200).
template <class KeyRoom>
std::vector<SpgemmHashWave> spgemm_hash_waves(const std::vector<SpgemmLongRowGroup>& groups,
                                              std::uint64_t limit, const KeyRoom& key_room) {
  std::vector<SpgemmHashWave> waves;
  for (const SpgemmLongRowGroup& grp : groups) {
    const std::uint64_t entries = grp.capacity * static_cast<std::uint64_t>(grp.slabs);
    const std::uint32_t kcap = key_room(grp);
    if (waves.empty() || waves.back().count == SpgemmHashWave::max_groups ||
        waves.back().entries + entries > limit || waves.back().kcap != kcap)
      waves.emplace_back();
    SpgemmHashWave& w = waves.back();
    SpgemmHashGroupSlot& g = w.group[w.count++];
    g.row_begin = grp.begin;
    g.rows = grp.end - grp.begin;
    g.capacity = grp.capacity;
    g.slab_begin = w.entries;
    g.team_begin = w.teams;
    g.teams = grp.slabs;
    g.kcap = kcap;
    w.entries += entries;
    w.teams += grp.slabs;
    w.kcap = kcap;
  }
  return waves;
}

/// The slab slots of the largest of these launches.
inline std::uint64_t spgemm_hash_wave_entries(const std::vector<SpgemmHashWave>& waves) {
  std::uint64_t entries = 0;
  for (const SpgemmHashWave& w : waves) entries = std::max(entries, w.entries);
  return entries;
}

/// Numeric's wide-row bitmaps (SpgemmWideRowTuning): to the first teams of
/// the groups whose rows may outgrow their key buffers and be dense enough
/// in B's `words` bitmap words, as many in a launch as the byte cap holds.
/// Returns the most any launch uses.
inline int spgemm_assign_wide_row_bitmaps(std::vector<SpgemmHashWave>& waves, std::uint64_t words,
                                          const SpgemmWideRowTuning& wide) {
  if (words >= (std::uint64_t(1) << 32)) return 0;
  const std::uint64_t per_team = sizeof(std::uint32_t) * std::max<std::uint64_t>(1, words);
  const int allowed = static_cast<int>(
      std::min<std::uint64_t>(wide.max_bytes / per_team, std::numeric_limits<int>::max()));
  int most = 0;
  for (SpgemmHashWave& w : waves) {
    int used = 0;
    for (int q = 0; q < w.count; ++q) {
      SpgemmHashGroupSlot& g = w.group[q];
      if (g.capacity <= g.kcap || words > wide.max_words_per_column * g.capacity) continue;
      g.bitmap_begin = used;
      g.bitmaps = std::min(g.teams, allowed - used);
      used += g.bitmaps;
    }
    most = std::max(most, used);
  }
  return most;
}

/// The Hash groups of the long rows: `runs` (ranges of the long bin and
/// their table capacity, largest first), each with as many slabs as the
/// budget (lp.budget_entries) holds at its size, up to the teams at once and
/// its rows (one slab size for all, the largest row's, leaves ~80 teams for
/// powerlaw:4000000's 6,704 long rows, most a 20th of the largest); the slab
/// area (lp.hash_entries) holds the groups that numeric runs side by side.
inline void spgemm_set_hash_groups(SpgemmLongRowPlan& lp, const SpgemmBinnedTuning& t,
                                   std::vector<SpgemmLongRowGroup> runs) {
  std::uint64_t largest = 0;
  lp.num_slabs = 0;
  for (SpgemmLongRowGroup& grp : runs) {
    grp.slabs = static_cast<int>(std::min<std::int64_t>(
        {std::max<std::int64_t>(1, static_cast<std::int64_t>(lp.budget_entries / grp.capacity)),
         t.max_slabs, grp.end - grp.begin}));
    largest = std::max<std::uint64_t>(largest, grp.capacity * grp.slabs);
    lp.num_slabs = std::max(lp.num_slabs, grp.slabs);
  }
  // Numeric runs groups side by side while their slabs fit the budget
  // (spgemm_hash_waves, with this area as its limit; its key buffers only
  // cut launches shorter).
  lp.hash_entries = spgemm_hash_wave_entries(
      spgemm_hash_waves(runs, std::max(lp.budget_entries, largest),
                        [](const SpgemmLongRowGroup&) { return std::uint32_t(0); }));
  lp.groups = std::move(runs);
  if (!lp.groups.empty()) lp.slab_capacity = lp.groups.front().capacity;
}

/// A segment of the permutation regrouped by class: each class's rows and
/// its first position in the segment.
struct SpgemmRegrouped {
  std::vector<std::int64_t> size, at;
};

/// Reorders perm[b0, b0 + n) by class, class_of(r, i) in [0, nc) for the row
/// i at position b0 + r: the classes follow each other in `order`'s order
/// (every class with rows must be in it), a class's rows in blocks of nearby
/// positions.  Each team ranks a block of rows in scratch, then one global
/// atomic per class places the block (as spgemm_bin_rows does).  Two
/// kernels and one host synchronisation (the classes' sizes); when
/// worth(sizes) says no, the rows are not moved and false is returned.  (A
/// function pointer: nvcc rejects a host lambda's type as a template
/// argument of a function with device lambdas.)
template <class ExecSpace, class Perm, class ClassOf>
static bool spgemm_regroup_segment(const ExecSpace& space, const Perm& perm, std::int64_t b0,
                                   std::int64_t n, int nc, const ClassOf& class_of,
                                   const std::vector<int>& order,
                                   bool (*worth)(const std::vector<std::int64_t>&),
                                   SpgemmRegrouped& out) {
  using O = typename Perm::non_const_value_type;
  const TempView<std::uint32_t, ExecSpace> sizes_mem(space, "spk::spgemm::regroup_sizes", 2 * nc);
  const auto sizes = Kokkos::subview(sizes_mem.view, std::make_pair(0, nc));
  const auto cursors = Kokkos::subview(sizes_mem.view, std::make_pair(nc, 2 * nc));
  Kokkos::deep_copy(space, sizes_mem.view, 0u);
  using Blocks = SpgemmRowBlocks<ExecSpace>;
  constexpr int per_thread = Blocks::per_thread;
  const std::int64_t block = Blocks::block();
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const std::size_t shmem = 2 * sizeof(std::uint32_t) * nc;
  const auto policy = Blocks::policy(space, n, shmem);
  auto block_classes = [=] KOKKOS_FUNCTION(const Member& member, int* cls, std::uint32_t* rank,
                                           std::uint32_t* local) {
    const int tr = member.team_rank();
    for (int c = tr; c < nc; c += member.team_size()) local[c] = 0;
    member.team_barrier();
    const std::int64_t r0 = static_cast<std::int64_t>(member.league_rank()) * block;
    for (int j = 0; j < per_thread; ++j) {
      const std::int64_t r = r0 + tr + std::int64_t(j) * member.team_size();
      cls[j] = r < n ? class_of(r, static_cast<O>(perm(b0 + r))) : -1;
      rank[j] = cls[j] >= 0 ? Kokkos::atomic_fetch_add(&local[cls[j]], 1u) : 0u;
    }
    member.team_barrier();
  };
  Kokkos::parallel_for(
      "spk::spgemm::regroup_count", policy, KOKKOS_LAMBDA(const Member& member) {
        auto* local = static_cast<std::uint32_t*>(member.team_scratch(0).get_shmem(shmem));
        int cls[per_thread];
        std::uint32_t rank[per_thread];
        block_classes(member, cls, rank, local);
        for (int c = member.team_rank(); c < nc; c += member.team_size())
          if (local[c] > 0) Kokkos::atomic_add(&sizes(c), local[c]);
      });
  Kokkos::View<std::uint32_t*, Kokkos::HostSpace> sizes_h("spk::spgemm::regroup_sizes_h", nc);
  Kokkos::deep_copy(space, sizes_h, sizes);
  space.fence();
  out.size.assign(nc, 0);
  out.at.assign(nc, 0);
  for (int c = 0; c < nc; ++c) out.size[c] = sizes_h(c);
  if (worth && !worth(out.size)) return false;
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> at_h("spk::spgemm::regroup_at_h", nc);
  std::int64_t at = 0;
  for (const int c : order) {
    out.at[c] = at_h(c) = at;
    at += out.size[c];
  }
  const TempView<std::int64_t, ExecSpace> at_mem(space, "spk::spgemm::regroup_at", nc);
  const TempView<O, ExecSpace> moved_mem(space, "spk::spgemm::regroup_rows", n);
  const auto at_d = at_mem.view;
  const auto moved = moved_mem.view;
  Kokkos::deep_copy(space, at_d, at_h);
  Kokkos::parallel_for(
      "spk::spgemm::regroup_place", policy, KOKKOS_LAMBDA(const Member& member) {
        auto* local = static_cast<std::uint32_t*>(member.team_scratch(0).get_shmem(shmem));
        auto* base = local + nc;
        int cls[per_thread];
        std::uint32_t rank[per_thread];
        block_classes(member, cls, rank, local);
        for (int c = member.team_rank(); c < nc; c += member.team_size())
          base[c] = local[c] > 0 ? Kokkos::atomic_fetch_add(&cursors(c), local[c]) : 0u;
        member.team_barrier();
        const std::int64_t r0 = static_cast<std::int64_t>(member.league_rank()) * block;
        for (int j = 0; j < per_thread; ++j) {
          if (cls[j] < 0) continue;
          const std::int64_t r = r0 + member.team_rank() + std::int64_t(j) * member.team_size();
          moved(at_d(cls[j]) + static_cast<std::int64_t>(base[cls[j]] + rank[j])) = perm(b0 + r);
        }
      });
  Kokkos::deep_copy(space, Kokkos::subview(perm, std::make_pair(b0, b0 + n)), moved);
  space.fence();  // at_h is read by the copy above
  return true;
}

/// A bin of numeric's regroupings: lane rows (as many a team as the lane
/// threads and numeric's tables allow) or team rows (full teams), 2^log2
/// slots, rows [begin, end).
inline SpgemmBin spgemm_regrouped_bin(const SpgemmBinnedTuning& t,
                                      const SpgemmScratchLayout& layout, SpgemmBinKernel kernel,
                                      int log2, std::int64_t begin, std::int64_t end,
                                      std::uint64_t work) {
  SpgemmBin bin;
  bin.begin = begin;
  bin.end = end;
  bin.log2_capacity = std::max(spgemm_min_log2, log2);
  bin.work = work;
  bin.kernel = kernel;
  bin.team_size =
      kernel == SpgemmBinKernel::LanesPerRow
          ? spgemm_lane_rows(
                t, layout.lane_row(std::size_t(1) << bin.log2_capacity, t.vector_length, true),
                layout.slack)
      : kernel == SpgemmBinKernel::WarpHashed ? t.warp_sort_warps
                                              : t.team_threads;
  bin.long_b_row = spgemm_long_b_row(bin.team_size, t.vector_length, t.long_b_row);
  return bin;
}

/// The scratch bins' bounds in a regrouped segment (relative to its start);
/// for each bin, the largest warp-hashed table its rows may move to (-1:
/// none) and the products per column a row needs for it, the largest lane
/// table (-1: none) and the most products a row on it may have.
struct SpgemmShrinkableBins {
  std::int64_t end[spgemm_max_bins];
  int hash_log2[spgemm_max_bins];
  double hash_products_per_column[spgemm_max_bins];
  int lane_log2[spgemm_max_bins];
  std::uint64_t lane_products[spgemm_max_bins];
  int count;
};

/// Classes of numeric's regrouping: a moved row's class is its table's log2
/// (below warp_hashed_class) or warp_hashed_class + that log2 (a
/// warp-hashed table); rows that stay have kept_class + their bin.
inline constexpr int spgemm_warp_hashed_class = 32, spgemm_kept_class = 64;

/// Numeric's grouping of the scratch bins' rows by their length in C, once
/// symbolic has counted them (SpgemmRegroupTuning): a row whose C row needs
/// a table 2^shrink_log2 times smaller than its bin's, or less, moves to a
/// bin of that table: a warp-hashed bin when it comes from a warp-sorted
/// bin that symbolic's sample hashed (the products spread over a warp, as
/// they were) or from a team bin with many products per column, else a
/// lane bin when its products are few enough for a lane group (which takes
/// A's entries one after the other, where a team spreads them over its
/// threads); the other rows keep their bins.  Bins of one row per thread
/// are left alone (their tables are the smallest), so are bins of few rows
/// (their team per row is for parallelism).
template <class ExecSpace, class Perm, class Counts, class Products>
static void spgemm_regroup_compressed_rows(const ExecSpace& space, const Perm& perm,
                                           const Counts& counts, const Products& products,
                                           std::vector<SpgemmBin>& bins,
                                           const SpgemmBinnedTuning& t,
                                           const SpgemmScratchLayout& layout) {
  const int shrink = t.regroup.shrink_log2;
  if (shrink <= 0) return;
  using K = SpgemmBinKernel;
  // The largest warp-hashed and lane tables a bin's rows may move to (-1:
  // none).
  auto limits_of = [&](const SpgemmBin& bin) {
    std::pair<int, int> none{-1, -1};
    // A warp-sorted bin only when symbolic's sample found many products per
    // column there: on others few rows move and the regrouping's ~0.1 ms is
    // lost (TSOPF_RS_b39_c30, cage11, airfoil_2d: +0.1 ms symbolic).
    const bool sorted_stays =
        bin.kernel == K::WarpSorted && !(t.regroup.warp_sorted && bin.symbolic_hash);
    if (bin.kernel == K::LongRows || bin.kernel == K::ThreadPerRow || bin.kernel == K::WarpHashed ||
        sorted_stays || t.few_rows(bin.end - bin.begin))
      return none;
    auto valid = [](int l) { return l >= spgemm_min_log2 ? l : -1; };
    const int hash_log2 = valid(std::min(bin.log2_capacity - shrink, WarpHash::max_numeric_log2));
    const int lane_log2 = valid(std::min(bin.log2_capacity - shrink, t.max_lane_log2));
    if (bin.kernel == K::WarpSorted) return std::pair{hash_log2, -1};
    const bool team_hash =
        bin.kernel == K::TeamPerRow && t.warp_hash && t.regroup.team_products_per_column > 0;
    return std::pair{team_hash ? hash_log2 : -1, lane_log2};
  };
  std::size_t first = bins.size(), last = 0;
  std::uint64_t work = 0;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    const auto [h, l] = limits_of(bins[b]);
    if (h >= 0 || l >= 0) {
      first = std::min(first, b);
      last = b;
      work += bins[b].work;
    }
  }
  if (first > last || work < t.regroup.min_products ||
      last - first + 1 > static_cast<std::size_t>(spgemm_max_bins))
    return;
  using O = typename Perm::non_const_value_type;
  SpgemmShrinkableBins sb{};
  sb.count = static_cast<int>(last - first + 1);
  const std::int64_t b0 = bins[first].begin, n = bins[last].end - b0;
  for (int j = 0; j < sb.count; ++j) {
    const SpgemmBin& bin = bins[first + j];
    sb.end[j] = bin.end - b0;
    std::tie(sb.hash_log2[j], sb.lane_log2[j]) = limits_of(bin);
    sb.hash_products_per_column[j] =
        bin.kernel == K::WarpSorted ? 0.0 : t.regroup.team_products_per_column;
    sb.lane_products[j] = t.regroup.max_lane_products * static_cast<std::uint64_t>(t.vector_length);
  }
  constexpr int hashed = spgemm_warp_hashed_class, kept = spgemm_kept_class;
  const int nc = kept + sb.count;
  auto class_of = [=] KOKKOS_FUNCTION(const std::int64_t r, const O i) {
    int j = 0;
    while (sb.end[j] <= r) ++j;
    const auto columns = static_cast<std::uint64_t>(counts(i + 1));
    const auto p = static_cast<std::uint64_t>(products(i));
    const int l = spgemm_table_log2(columns);
    if (l <= sb.hash_log2[j] && double(p) >= sb.hash_products_per_column[j] * double(columns))
      return hashed + l;
    if (l <= sb.lane_log2[j] && p <= sb.lane_products[j]) return l;
    return kept + j;
  };
  std::vector<int> order;
  for (int j = 0; j < sb.count; ++j) order.push_back(kept + j);
  for (int l = spgemm_min_log2; l < kept; ++l) order.push_back(l);
  // Nothing to place when no row moves.
  auto some_move = [](const std::vector<std::int64_t>& size) {
    return std::any_of(size.begin(), size.begin() + kept, [](std::int64_t x) { return x > 0; });
  };
  SpgemmRegrouped g;
  if (!spgemm_regroup_segment(space, perm, b0, n, nc, class_of, order, +some_move, g)) return;
  std::vector<SpgemmBin> range;
  for (int j = 0; j < sb.count; ++j) {
    const SpgemmBin& was = bins[first + j];
    const std::int64_t rows = g.size[kept + j];
    if (rows == 0) continue;
    SpgemmBin bin = was;
    bin.begin = b0 + g.at[kept + j];
    bin.end = bin.begin + rows;
    bin.work = was.work / static_cast<std::uint64_t>(was.end - was.begin) * rows;
    range.push_back(bin);
  }
  for (int c = spgemm_min_log2; c < kept; ++c) {
    if (g.size[c] == 0) continue;
    const bool warp = c >= hashed;
    const int l = warp ? c - hashed : c;
    range.push_back(spgemm_regrouped_bin(
        t, layout, warp ? K::WarpHashed : K::LanesPerRow, l, b0 + g.at[c], b0 + g.at[c] + g.size[c],
        static_cast<std::uint64_t>(g.size[c]) * (std::uint64_t(3) << (l + shrink)) / 4));
  }
  bins.erase(bins.begin() + first, bins.begin() + last + 1);
  bins.insert(bins.begin() + first, range.begin(), range.end());
}

/// Numeric's grouping of the long bin's rows (those not split), once
/// symbolic has counted them.  A row whose products overflow every scratch
/// table may have few columns in C (a 6-dof FEM row: 1,764 products, 150
/// columns), and numeric's table holds only the columns: such rows move to
/// bins of their own, on lane groups when their products are few enough
/// (SpgemmLongRowTuning::lane_products), else a team each, never one thread
/// or a warp sort (both need the products to fit).  The others stay long,
/// ordered by their tables' size, largest first (the Hash groups, each with
/// the slabs the budget holds at its size).
template <class ExecSpace, class Perm, class Counts, class Products>
static void spgemm_regroup_long_rows(const ExecSpace& space, const Perm& perm, const Counts& counts,
                                     const Products& products, std::vector<SpgemmBin>& bins,
                                     const SpgemmBinnedTuning& t, const SpgemmScratchLayout& layout,
                                     SpgemmLongRowPlan& lp) {
  if (bins.empty() || bins.back().kernel != SpgemmBinKernel::LongRows) return;
  // Only long rows on global memory: the scratch bitmaps' numeric was as
  // fast or faster than lane tables (blockdiag:31250:64 1.5 against 1.9 ms).
  if (lp.kind != SpgemmLongRows::Hash && lp.kind != SpgemmLongRows::DenseMarker) return;
  using O = typename Perm::non_const_value_type;
  const SpgemmBin long_bin = bins.back();
  const std::int64_t b0 = long_bin.begin, n = long_bin.end - long_bin.begin;
  // Classes: 64 * kind + log2 of the table (kind 0 lanes, 1 team, 2 long).
  constexpr int nc = 3 * 64;
  const int lane_max = t.max_lane_log2, team_max = t.max_team_log2;
  const std::uint64_t lane_products = t.long_row_split.lane_products;
  auto class_of = [=] KOKKOS_FUNCTION(const std::int64_t, const O i) {
    const int l = spgemm_table_log2(static_cast<std::uint64_t>(counts(i + 1)));
    if (l > team_max) return 128 + l;
    return l <= lane_max && products(i) <= lane_products ? l : 64 + l;
  };
  // Order in the segment: long rows (largest tables first), then team rows,
  // then lane rows.
  std::vector<int> order;
  for (int l = 63; l > team_max; --l) order.push_back(128 + l);
  for (int l = 0; l <= team_max; ++l) order.push_back(64 + l);
  for (int l = 0; l <= team_max; ++l) order.push_back(l);
  SpgemmRegrouped g;
  spgemm_regroup_segment(space, perm, b0, n, nc, class_of, order, nullptr, g);
  std::int64_t long_rows = 0;
  for (int l = team_max + 1; l < 64; ++l) long_rows += g.size[128 + l];

  // The bins: the moved rows' (before the long bin, which stays last).
  bins.pop_back();
  const std::uint64_t work_per_row = n > 0 ? long_bin.work / static_cast<std::uint64_t>(n) : 0;
  for (const int c : order) {
    if (c >= 128 || g.size[c] == 0) continue;
    const std::int64_t begin = b0 + g.at[c], end = begin + g.size[c];
    const std::uint64_t work = work_per_row * static_cast<std::uint64_t>(g.size[c]);
    const auto kernel = c < 64 ? SpgemmBinKernel::LanesPerRow : SpgemmBinKernel::TeamPerRow;
    bins.push_back(spgemm_regrouped_bin(t, layout, kernel, c % 64, begin, end, work));
  }
  if (long_rows == 0) return;
  SpgemmBin rest = long_bin;
  rest.end = rest.begin + long_rows;
  rest.work = work_per_row * static_cast<std::uint64_t>(long_rows);
  bins.push_back(rest);
  if (lp.kind != SpgemmLongRows::Hash) return;
  // Hash: one group per table size.
  std::vector<SpgemmLongRowGroup> runs;
  for (const int c : order)
    if (c >= 128 && g.size[c] > 0)
      runs.push_back({g.at[c], g.at[c] + g.size[c], std::uint64_t(1) << (c - 128), 0});
  spgemm_set_hash_groups(lp, t, std::move(runs));
}

/// The arrays of A, B and C the kernels read and write.
template <class S, class O, class F, class Dev>
struct SpgemmViews {
  Kokkos::View<const F*, Dev> arm, brm, crm;
  Kokkos::View<const O*, Dev> aci, bci;
  Kokkos::View<const S*, Dev> av, bv;
  Kokkos::View<O*, Dev> cci;
  Kokkos::View<S*, Dev> cv;
};

/// Bits set in x (portable).
KOKKOS_INLINE_FUNCTION int spgemm_popcount(std::uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

/// A lane group whose A entries are staged in scratch V at a time: lane q
/// loads entry q's B row bounds, so the group waits for one round of loads
/// per V entries instead of one per entry.
template <class Member, class F>
struct StagedLaneGroup : LaneGroup<Member> {
  F* b0;  // V staged B row starts
  F* b1;  // V staged B row ends
  int lanes;
  template <class ARm, class ACi, class BRm, class Fn>
  KOKKOS_FORCEINLINE_FUNCTION void for_products(std::int64_t i, const ARm& arm, const ACi& aci,
                                                const BRm& brm, const Fn& f) const {
    const auto a0 = arm(i), a1 = arm(i + 1);
    for (auto base = a0; base < a1; base += lanes) {
      const int cnt = static_cast<int>(a1 - base < lanes ? a1 - base : lanes);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(this->member, cnt), [&](const int q) {
        const auto k = aci(base + q);
        b0[q] = brm(k);
        b1[q] = brm(k + 1);
      });
      for (int q = 0; q < cnt; ++q) {
        const auto ka = base + q;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(this->member, b0[q], b1[q]),
                             [&](const auto kb) { f(ka, kb); });
      }
      // Every vector loop ends with the lanes synchronised, so the stage is
      // read by all of them before the next round overwrites it.
    }
  }
};

/// A team group that hands A entries with long B rows (power-law hubs) to
/// the whole team, one after the other, instead of to one thread's lanes:
/// the other threads would otherwise wait for that thread.  The long entries
/// are listed in scratch (list_capacity of them; more stay with their
/// thread).
template <class Member, class F>
struct BalancedTeamGroup : TeamGroup<Member> {
  F* list;          // A entry positions with long B rows
  int* list_count;  // how many were listed
  int list_capacity;
  std::int64_t long_len;  // B rows at least this long go to the whole team (spgemm_long_b_row)

  static constexpr int default_capacity = SpgemmScratchLayout::balanced_list;
  static std::size_t scratch_bytes(int capacity) { return capacity * sizeof(F) + 8; }
  KOKKOS_INLINE_FUNCTION static BalancedTeamGroup carve(const Member& member, char* at,
                                                        int capacity, std::int64_t long_len) {
    return {{member}, reinterpret_cast<F*>(at + 8), reinterpret_cast<int*>(at), capacity, long_len};
  }

  template <class ARm, class ACi, class BRm, class Fn>
  KOKKOS_FORCEINLINE_FUNCTION void for_products(std::int64_t i, const ARm& arm, const ACi& aci,
                                                const BRm& brm, const Fn& f) const {
    const Member& member = this->member;
    Kokkos::single(Kokkos::PerTeam(member), [&]() { *list_count = 0; });
    member.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, arm(i), arm(i + 1)), [&](const auto ka) {
      const auto k = aci(ka);
      const auto b0 = brm(k), b1 = brm(k + 1);
      int slot = list_capacity;
      if (static_cast<std::int64_t>(b1 - b0) >= long_len) {
        Kokkos::single(
            Kokkos::PerThread(member),
            [&](int& s) {
              s = Kokkos::atomic_fetch_add(list_count, 1);
              if (s < list_capacity) list[s] = static_cast<F>(ka);
            },
            slot);
      }
      if (slot >= list_capacity)
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, b0, b1),
                             [&](const auto kb) { f(ka, kb); });
    });
    member.team_barrier();
    const int listed = *list_count < list_capacity ? *list_count : list_capacity;
    for (int q = 0; q < listed; ++q) {
      const auto ka = list[q];
      const auto k = aci(ka);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(member, brm(k), brm(k + 1)),
                           [&](const auto kb) { f(ka, kb); });
    }
  }
};

/// Scratch of one lane-bin row (SpgemmScratchLayout::lane_row): table keys
/// (and values), numeric's key buffer, the stage of V B-row bounds, a
/// counter.
template <class O, class S, class F>
struct LaneRowScratch {
  static std::size_t bytes(std::uint32_t cap, int lanes, bool values) {
    return SpgemmScratchLayout::of<O, S, F>().lane_row(cap, lanes, values);
  }
  /// A row's pieces of scratch and its lane group.
  template <class Member>
  struct Row {
    StagedLaneGroup<Member, F> g;
    O* keys;
    S* vals;  // numeric only
    O* kbuf;  // numeric only
    int* counter;
  };
  template <class Member>
  KOKKOS_INLINE_FUNCTION static Row<Member> row(const Member& member, char* base, std::uint32_t cap,
                                                int lanes, bool values) {
    constexpr SpgemmScratchLayout layout = SpgemmScratchLayout::of<O, S, F>();
    O* keys = reinterpret_cast<O*>(base);
    S* vals = values ? reinterpret_cast<S*>(base + layout.round(cap * sizeof(O))) : nullptr;
    char* p = base + layout.table(cap, values);
    O* kbuf = values ? reinterpret_cast<O*>(p) : nullptr;
    if (values) p += layout.round(cap * sizeof(O));
    F* b0 = reinterpret_cast<F*>(p);
    int* counter = reinterpret_cast<int*>(p + layout.round(2 * std::size_t(lanes) * sizeof(F)));
    return {{{member}, b0, b0 + lanes, lanes}, keys, vals, kbuf, counter};
  }
};

/// The execution space instances the kernels of the bins run on: bins are
/// independent, so their kernels may overlap on separate streams (small bins
/// alone would leave most of a GPU idle).  The bins are launched most work
/// first, each on the instance with the least work so far (longest
/// processing time first): round robin had put lhr07's two slowest symbolic
/// kernels on one stream.  The instances start after the work queued on
/// `space` and join() makes `space`'s later work wait for theirs: events on
/// CUDA, no host synchronisation.
template <class ExecSpace>
class SpgemmBinStreams {
 public:
  struct Launch {
    const SpgemmBin* bin;
    int instance;
  };
  SpgemmBinStreams(const ExecSpace& space, const std::vector<SpgemmBin>& bins)
      : space_(space),
        spaces_(
            concurrent_instances(space, static_cast<int>(std::min<std::size_t>(4, bins.size())))) {
    for (const auto& x : spaces_) stream_wait(x, space_);
    // Indices, not pointers: ADL on SpgemmBin* would find Impl::swap.
    std::vector<std::size_t> order(bins.size());
    for (std::size_t b = 0; b < bins.size(); ++b) order[b] = b;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return bins[a].work > bins[b].work; });
    std::vector<std::uint64_t> load(spaces_.size(), 0);
    for (const std::size_t b : order) {
      const int k = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      load[k] += bins[b].work;
      launches_.push_back({&bins[b], k});
    }
  }
  /// The bins in launch order, with their instances.
  const std::vector<Launch>& launches() const { return launches_; }
  const ExecSpace& instance(int k) const { return spaces_[k]; }
  void join() const {
    for (const auto& x : spaces_) stream_wait(space_, x);
  }

 private:
  ExecSpace space_;
  std::vector<ExecSpace> spaces_;
  std::vector<Launch> launches_;
};

// ---- symbolic ---------------------------------------------------------------

/// The distinct columns of row i, counted on a table of cap slots (every
/// thread of the group gets the count).
template <class Group, class V, class O>
KOKKOS_INLINE_FUNCTION long long spgemm_count_row(const Group& g, const V& v, std::int64_t i,
                                                  O* keys, std::uint32_t cap) {
  using Acc = SpgemmTable<O, int>;
  const Acc h(keys, nullptr, cap);
  g.for_each(cap, [&](const std::uint32_t s) { keys[s] = Acc::empty_key; });
  g.barrier();
  g.for_products(i, v.arm, v.aci, v.brm, [&](const auto, const auto kb) {
    bool is_new;
    h.insert(v.bci(kb), is_new);
  });
  g.barrier();
  long long count = 0;  // a global table may hold more than 2^31
  g.reduce_sum(
      cap, [&](const std::uint32_t s, long long& c) { c += keys[s] != Acc::empty_key ? 1 : 0; },
      count);
  return count;
}

/// Counts the distinct columns of row i on a table of cap slots into
/// counts(i + 1).
template <class Group, class V, class O, class Counts>
KOKKOS_INLINE_FUNCTION void spgemm_symbolic_row(const Group& g, const V& v, std::int64_t i, O* keys,
                                                std::uint32_t cap, const Counts& counts) {
  const long long count = spgemm_count_row(g, v, i, keys, cap);
  g.single([&]() { counts(i + 1) = count; });
}

/// The bins spgemm_sample_compression samples: where their rows are in the
/// permutation, the step between sampled rows, their tables' size.
struct SpgemmSampledBins {
  std::int64_t begin[spgemm_max_bins], end[spgemm_max_bins], step[spgemm_max_bins];
  int log2[spgemm_max_bins];
  int count;
};

/// Symbolic's choice for the bins it would warp-sort (SpgemmSampleTuning): a
/// warp sort costs the same whatever the row's columns, a keys-only hash
/// table less the fewer distinct columns there are.  `rows` rows spread over
/// each such bin of enough products have their distinct columns counted (a
/// team per row, one kernel and one host synchronisation); a bin whose
/// sampled rows have at least `compression` products per column is hashed
/// (SpgemmBin::symbolic_hash).  Team bins whose tables a warp's scratch
/// holds are sampled too, hashed on a warp's table from
/// SpgemmRegroupTuning::team_products_per_column products per column.
/// CUDA only: no other backend warp-sorts.
template <class ExecSpace, class V, class Perm, class Products>
static void spgemm_sample_compression(const ExecSpace& space, const V& v, const Perm& perm,
                                      const Products& products, std::vector<SpgemmBin>& bins,
                                      const SpgemmBinnedTuning& t) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  if constexpr (!spgemm_warp_sort_capable<ExecSpace, S>()) {
    return;
  } else {
    using K = SpgemmBinKernel;
    const int per_bin = t.sample.rows;
    if (per_bin <= 0) return;
    SpgemmSampledBins sb{};
    std::vector<std::size_t> which;
    std::vector<double> compression;  // products per column a sampled bin needs
    for (std::size_t b = 0; b < bins.size(); ++b) {
      const SpgemmBin& bin = bins[b];
      const std::int64_t nr = bin.end - bin.begin;
      const bool sorted = (bin.kernel == K::WarpSorted || bin.kernel == K::LanesPerRow ||
                           bin.kernel == K::ThreadPerRow) &&
                          t.warp_sort_sym(bin.log2_capacity);
      // Team rows of heavy accumulation, on warp tables that hold their
      // products (SpgemmRegroupTuning::team_products_per_column).
      const bool team = bin.kernel == K::TeamPerRow && t.regroup.team_products_per_column > 0 &&
                        bin.log2_capacity <= WarpHash::max_symbolic_log2;
      if (!(sorted || team) || t.few_rows(nr) || bin.work < t.sample.min_products ||
          sb.count == spgemm_max_bins)
        continue;
      compression.push_back(sorted ? t.sample.compression : t.regroup.team_products_per_column);
      sb.begin[sb.count] = bin.begin;
      sb.end[sb.count] = bin.end;
      sb.step[sb.count] = std::max<std::int64_t>(1, nr / per_bin);
      sb.log2[sb.count] = bin.log2_capacity;
      ++sb.count;
      which.push_back(b);
    }
    if (sb.count == 0) return;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = typename Policy::member_type;
    int max_log2 = 0;
    for (int j = 0; j < sb.count; ++j) max_log2 = std::max(max_log2, sb.log2[j]);
    const std::size_t bytes = (std::size_t(1) << max_log2) * sizeof(O);
    const TempView<unsigned long long, ExecSpace> sums_mem(space, "spk::spgemm::sample_sums",
                                                           2 * sb.count);
    const auto sums = sums_mem.view;
    Kokkos::deep_copy(space, sums, 0ull);
    const int lanes = t.vector_length;
    Kokkos::parallel_for(
        "spk::spgemm::sample_rows",
        Policy(space, sb.count * per_bin, std::max(1, 128 / lanes), lanes)
            .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(bytes))),
        KOKKOS_LAMBDA(const Member& member) {
          const int j = member.league_rank() / per_bin;
          const std::int64_t at = sb.begin[j] + (member.league_rank() % per_bin) * sb.step[j];
          const std::int64_t i = perm(at < sb.end[j] ? at : sb.end[j] - 1);
          O* keys = static_cast<O*>(member.team_scratch(0).get_shmem(bytes));
          const TeamGroup<Member> g{member};
          const long long n = spgemm_count_row(g, v, i, keys, 1u << sb.log2[j]);
          g.single([&]() {
            atomic_update_counter(&sums(2 * j), static_cast<unsigned long long>(products(i)),
                                  false);
            atomic_update_counter(&sums(2 * j + 1), static_cast<unsigned long long>(n), false);
          });
        });
    const auto sums_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
    for (int j = 0; j < sb.count; ++j)
      bins[which[j]].symbolic_hash =
          double(sums_h(2 * j)) >= compression[j] * double(sums_h(2 * j + 1));
  }
}

/// Sets the bits of row i's columns in a bitmap of B's columns (cleared
/// first), calling also(ka, kb, column) on each product; ends in a barrier.
template <class Group, class V, class Also>
KOKKOS_INLINE_FUNCTION void spgemm_bitmap_mark(const Group& g, const V& v, std::int64_t i,
                                               std::uint32_t* bits, std::uint32_t words,
                                               const Also& also) {
  g.for_each(words, [&](const std::uint32_t w) { bits[w] = 0; });
  g.barrier();
  g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
    const auto c = static_cast<std::uint64_t>(v.bci(kb));
    also(ka, kb, c);
    Kokkos::atomic_or(&bits[c >> 5], std::uint32_t(1) << (c & 31));
  });
  g.barrier();
}

/// Counts the distinct columns of row i on a bitmap of B's columns.
template <class Group, class V, class Counts>
KOKKOS_INLINE_FUNCTION void spgemm_symbolic_bitmap_row(const Group& g, const V& v, std::int64_t i,
                                                       std::uint32_t* bits, std::uint32_t words,
                                                       const Counts& counts) {
  spgemm_bitmap_mark(g, v, i, bits, words, [](const auto, const auto, std::uint64_t) {});
  int count = 0;
  g.reduce_sum(
      words, [&](const std::uint32_t w, int& n) { n += spgemm_popcount(bits[w]); }, count);
  g.single([&]() { counts(i + 1) = count; });
}

/// Team scratch of a symbolic team row: a key table of cap slots (the
/// first bytes), then the balanced group's list.
template <class O>
std::size_t spgemm_symbolic_team_keys_bytes(std::uint64_t cap) {
  return (SpgemmTable<O, int>::keys_bytes(cap) + 7) / 8 * 8;
}
template <class O, class F>
std::size_t spgemm_symbolic_team_bytes(std::uint64_t cap) {
  using Balanced = BalancedTeamGroup<typename Kokkos::TeamPolicy<>::member_type, F>;
  return spgemm_symbolic_team_keys_bytes<O>(cap) +
         Balanced::scratch_bytes(Balanced::default_capacity);
}

/// Counts the distinct columns of rows perm(begin .. begin + nr) on tables
/// of cap keys in team scratch, a team of `threads` x `lanes` per row.
template <class ExecSpace, class V, class Perm, class Counts>
static void spgemm_symbolic_team_rows(const ExecSpace& space, const V& v, const Perm& perm,
                                      std::int64_t begin, std::int64_t nr, std::uint32_t cap,
                                      int threads, int lanes, std::int64_t long_b,
                                      const Counts& counts) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using F = typename decltype(v.crm)::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Balanced = BalancedTeamGroup<Member, F>;
  const std::size_t kbytes = spgemm_symbolic_team_keys_bytes<O>(cap);
  const int lc = Balanced::default_capacity;
  const std::size_t bytes = spgemm_symbolic_team_bytes<O, F>(cap);
  Kokkos::parallel_for(
      "spk::spgemm::symbolic_team",
      Policy(space, nr, threads, lanes)
          .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(bytes))),
      KOKKOS_LAMBDA(const Member& member) {
        char* base = static_cast<char*>(member.team_scratch(0).get_shmem(bytes));
        spgemm_symbolic_row(Balanced::carve(member, base + kbytes, lc, long_b), v,
                            perm(begin + member.league_rank()), reinterpret_cast<O*>(base), cap,
                            counts);
      });
}

template <class ExecSpace, class V, class Perm, class Counts, class Products>
static void spgemm_binned_symbolic(const ExecSpace& space, const V& v, const Perm& perm,
                                   const std::vector<SpgemmBin>& bins, const Counts& counts,
                                   const Products& products, std::uint64_t ncols,
                                   const SpgemmBinnedTuning& t, const SpgemmLongRowPlan& lp) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  using F = typename decltype(v.crm)::non_const_value_type;
  using Acc = SpgemmTable<O, int>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = LaneRowScratch<O, S, F>;
  using Balanced = BalancedTeamGroup<Member, F>;
  const int V_ = t.vector_length;
  const SpgemmBinStreams<ExecSpace> streams(space, bins);
  for (const auto& launch : streams.launches()) {
    const SpgemmBin& bin = *launch.bin;
    const ExecSpace& sp = streams.instance(launch.instance);
    const std::int64_t begin = bin.begin, nr = bin.end - bin.begin;
    const std::int64_t long_b = bin.long_b_row;
    using K = SpgemmBinKernel;
    const K kernel = bin.kernel;
    const bool many_short_rows =
        kernel == K::LanesPerRow || kernel == K::ThreadPerRow || kernel == K::WarpSorted;
    if constexpr (spgemm_warp_sort_capable<ExecSpace, S>()) {
      // Few sortable rows are sorted too: a thread per row waits for one
      // load per product (lhr07's 249 rows of <= 64 products took 0.1 ms).
      if (many_short_rows && !bin.symbolic_hash &&
          (t.warp_sort_sym(bin.log2_capacity) || (kernel == K::WarpSorted && t.few_rows(nr)))) {
        spgemm_warp_sort_symbolic(sp, bin.log2_capacity, t.warp_sort_slots, v, perm, begin, nr,
                                  counts, t.warp_sort_warps);
        continue;
      }
      // The sampled bins of many products per column (warp-sortable or
      // team bins): a warp's table of as many slots as products.
      if (bin.symbolic_hash && bin.log2_capacity >= WarpHash::min_log2 &&
          bin.log2_capacity <= WarpHash::max_symbolic_log2) {
        spgemm_warp_hash_symbolic(sp, bin.log2_capacity, v, perm, begin, nr, counts,
                                  t.warp_sort_warps, t.scratch);
        continue;
      }
    }
    if (kernel == K::ThreadPerRow || ((kernel == K::LanesPerRow || kernel == K::WarpSorted) &&
                                      bin.log2_capacity <= t.max_thread_log2_sym)) {
      // One row per thread, tables interleaved (slot s of thread t at
      // s * T + t) so that the threads of a warp hit different banks.
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const int T = spgemm_thread_rows(t, cap * sizeof(O), 0);
      using Set = HashAccumulator<O, int, HashMask, LinearProbing, ExclusiveInsert>;
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_threads",
          Policy(sp, (nr + T - 1) / T, T, 1)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(T * cap * sizeof(O)))),
          KOKKOS_LAMBDA(const Member& member) {
            O* base = static_cast<O*>(member.team_scratch(0).get_shmem(T * cap * sizeof(O)));
            const int tr = member.team_rank();
            const std::int64_t r = std::int64_t(member.league_rank()) * T + tr;
            if (r >= nr) return;
            const std::int64_t i = perm(begin + r);
            const Set h(base + tr, nullptr, cap, static_cast<std::uint32_t>(T));
            for (std::uint32_t q = 0; q < cap; ++q) h.key(q) = Set::empty_key;
            int count = 0;
            for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
              const auto k = v.aci(ka);
              for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb) {
                bool is_new;
                h.insert(v.bci(kb), is_new);
                count += is_new ? 1 : 0;
              }
            }
            counts(i + 1) = count;
          });
    } else if (kernel == K::LanesPerRow || kernel == K::WarpSorted) {
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t bytes = Scratch::bytes(cap, V_, false);
      // Keys only: more rows per team than numeric's tables allow.
      const int T = spgemm_lane_rows(t, bytes, 0);
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_lanes",
          Policy(sp, (nr + T - 1) / T, T, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(T * bytes))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base = static_cast<char*>(member.team_scratch(0).get_shmem(T * bytes));
            const std::int64_t r = std::int64_t(member.league_rank()) * T + member.team_rank();
            if (r >= nr) return;
            const auto row =
                Scratch::row(member, base + member.team_rank() * bytes, cap, V_, false);
            spgemm_symbolic_row(row.g, v, perm(begin + r), row.keys, cap, counts);
          });
    } else if (kernel == K::TeamPerRow) {
      spgemm_symbolic_team_rows(sp, v, perm, begin, nr, 1u << bin.log2_capacity, bin.team_size, V_,
                                long_b, counts);
    } else if (lp.kind == SpgemmLongRows::Bitmap || lp.kind == SpgemmLongRows::BitmapRanks) {
      const std::uint32_t words = static_cast<std::uint32_t>((ncols + 31) / 32);
      const int lc = Balanced::default_capacity;
      const std::size_t lbytes = Balanced::scratch_bytes(lc);
      const std::size_t bytes = lbytes + words * sizeof(std::uint32_t);
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_bitmap",
          Policy(sp, nr, bin.team_size, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(bytes))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base = static_cast<char*>(member.team_scratch(0).get_shmem(bytes));
            spgemm_symbolic_bitmap_row(
                Balanced::carve(member, base, lc, long_b), v, perm(begin + member.league_rank()),
                reinterpret_cast<std::uint32_t*>(base + lbytes), words, counts);
          });
    } else if (lp.kind == SpgemmLongRows::DenseMarker) {
      // A bitmap of B's columns per slab in global memory: a product whose
      // atomic OR sets a new bit is a new column of the row.
      const std::uint64_t words = (ncols + 31) / 32;
      const int L = static_cast<int>(std::min<std::int64_t>(lp.num_symbolic_slabs, nr));
      const TempView<std::uint32_t, ExecSpace> slab_mem(sp, "spk::spgemm::slab_bits", L * words);
      const auto slab = slab_mem.view;
      Kokkos::deep_copy(sp, slab, 0u);
      Kokkos::parallel_for(
          "spk::spgemm::symbolic_global_bitmap", Policy(sp, L, bin.team_size, V_),
          KOKKOS_LAMBDA(const Member& member) {
            std::uint32_t* bits = slab.data() + member.league_rank() * words;
            const TeamGroup<Member> g{member};
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              long long count = 0;
              Kokkos::parallel_reduce(
                  Kokkos::TeamThreadRange(member, v.arm(i), v.arm(i + 1)),
                  [&](const auto ka, long long& sum) {
                    const auto kk = v.aci(ka);
                    long long mine = 0;
                    Kokkos::parallel_reduce(
                        Kokkos::ThreadVectorRange(member, v.brm(kk), v.brm(kk + 1)),
                        [&](const auto kb, long long& n) {
                          const auto c = static_cast<std::uint64_t>(v.bci(kb));
                          const std::uint32_t bit = std::uint32_t(1) << (c & 31);
                          if (!(Kokkos::atomic_fetch_or(&bits[c >> 5], bit) & bit)) ++n;
                        },
                        mine);
                    sum += mine;
                  },
                  count);
              g.single([&]() { counts(i + 1) = count; });
              g.barrier();
              g.for_each(static_cast<std::uint32_t>(words),
                         [&](const std::uint32_t w) { bits[w] = 0; });
              g.barrier();
            }
          });
    } else {
      // Keys-only tables: a group whose tables fit team scratch counts
      // there, a team per row; the others on hash tables in global memory,
      // one per team (slab), cleared before each row, side by side in as few
      // launches as the budget allows (spgemm_hash_waves, as numeric).
      auto in_scratch = [&](const SpgemmLongRowGroup& grp) {
        return spgemm_symbolic_team_bytes<O, F>(grp.capacity) <= t.scratch;
      };
      // Keys alone: the budget (counted in numeric's keys and values) holds
      // more slabs here.
      const std::uint64_t key_budget = lp.budget_entries * ((sizeof(O) + sizeof(S)) / sizeof(O));
      std::vector<SpgemmLongRowGroup> global;
      std::uint64_t largest = 0;
      for (const SpgemmLongRowGroup& grp : lp.groups) {
        if (in_scratch(grp)) continue;
        SpgemmLongRowGroup g = grp;
        g.slabs = static_cast<int>(std::min<std::int64_t>(
            {std::max<std::int64_t>(grp.slabs,
                                    static_cast<std::int64_t>(key_budget / grp.capacity)),
             t.max_slabs, grp.end - grp.begin}));
        largest = std::max<std::uint64_t>(largest, g.capacity * g.slabs);
        global.push_back(g);
      }
      const std::vector<SpgemmHashWave> waves =
          spgemm_hash_waves(global, std::max(key_budget, largest),
                            [](const SpgemmLongRowGroup&) { return std::uint32_t(0); });
      const TempView<O, ExecSpace> slab_mem(sp, "spk::spgemm::slab_keys",
                                            spgemm_hash_wave_entries(waves));
      const auto slab = slab_mem.view;
      const int lc = spgemm_global_list<F>(t);
      const std::size_t lbytes = Balanced::scratch_bytes(lc);
      for (const SpgemmHashWave& w : waves) {
        Kokkos::parallel_for(
            "spk::spgemm::symbolic_global",
            light_weight(Policy(sp, w.teams, bin.team_size, V_)
                             .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(lbytes)))),
            KOKKOS_LAMBDA(const Member& member) {
              const SpgemmHashGroupSlot& grp = w.group_of(member.league_rank());
              const int lr = member.league_rank() - grp.team_begin;
              O* keys = slab.data() + grp.slab_begin + lr * grp.capacity;
              const auto g = Balanced::carve(
                  member, static_cast<char*>(member.team_scratch(0).get_shmem(lbytes)), lc, long_b);
              for (std::int64_t r = lr; r < grp.rows; r += grp.teams) {
                const std::int64_t i = perm(begin + grp.row_begin + r);
                const std::uint64_t p = products(i);
                spgemm_symbolic_row(
                    g, v, i, keys,
                    static_cast<std::uint32_t>(spgemm_table_capacity(p < ncols ? p : ncols)),
                    counts);
                g.barrier();
              }
            });
      }
      for (const SpgemmLongRowGroup& grp : lp.groups)
        if (in_scratch(grp))
          spgemm_symbolic_team_rows(sp, v, perm, begin + grp.begin, grp.end - grp.begin,
                                    static_cast<std::uint32_t>(grp.capacity), bin.team_size, V_,
                                    long_b, counts);
    }
  }
  spgemm_long_rows_symbolic(space, v, perm, counts, ncols, lp.split);
  streams.join();
}

// ---- numeric ----------------------------------------------------------------

/// Clears the table h and sums the products of row i into it, with the
/// group's threads; the sums are complete (and seen by the group) on return.
template <class Group, class V, class Acc>
KOKKOS_INLINE_FUNCTION void spgemm_accumulate_row(const Group& g, const V& v, std::int64_t i,
                                                  const Acc& h) {
  g.for_each(h.capacity(), [&](const std::uint32_t s) { h.clear(s); });
  g.barrier();
  g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
    h.accumulate(v.bci(kb), v.av(ka) * v.bv(kb));
  });
  g.barrier();
}

/// Sums the products of row i on a scratch table and writes the row of C:
/// the keys are compacted into kbuf, sorted there (unless unsorted output is
/// asked for) and written with their values, found in the table, in one
/// pass over the row of C.
template <class Group, class V, class O, class S>
KOKKOS_INLINE_FUNCTION void spgemm_numeric_row(const Group& g, const V& v, std::int64_t i, O* keys,
                                               S* vals, O* kbuf, int* counter, std::uint32_t cap,
                                               bool sorted) {
  using Acc = SpgemmTable<O, S>;
  const Acc h(keys, vals, cap);
  g.single([&]() { *counter = 0; });
  spgemm_accumulate_row(g, v, i, h);
  g.for_each(cap, [&](const std::uint32_t s) {
    if (keys[s] != Acc::empty_key) kbuf[Kokkos::atomic_fetch_add(counter, 1)] = keys[s];
  });
  g.barrier();
  const auto start = v.crm(i);
  const std::uint32_t n = static_cast<std::uint32_t>(v.crm(i + 1) - start);
  if (sorted) group_bitonic_sort(g, kbuf, static_cast<S*>(nullptr), n);
  O* cci = v.cci.data() + start;
  S* cv = v.cv.data() + start;
  g.for_each(n, [&](const std::uint32_t q) {
    const O c = kbuf[q];
    cci[q] = c;
    cv[q] = vals[h.find(c)];
  });
}

/// Ordered compaction by a team over `units` items: count(u) is how many
/// outputs item u makes, emit(u, pos) writes them from position pos on, in
/// item order.  Each thread takes a contiguous chunk of items; its lanes count
/// them, part[] (a count per thread) is scanned, then the lanes scan their
/// chunk again and emit.  Vector ranges start at 0 (Kokkos 4.6's CUDA vector
/// scan ignores a range's start).
template <class Member, class Count, class Emit>
KOKKOS_INLINE_FUNCTION void spgemm_team_ordered(const Member& member, std::uint64_t units,
                                                long long* part, const Count& count,
                                                const Emit& emit) {
  const int T = member.team_size();
  const std::uint64_t chunk = (units + T - 1) / T;
  auto range = [&](const int t, std::uint64_t& u0) {
    u0 = t * chunk;
    const std::uint64_t u1 = u0 + chunk < units ? u0 + chunk : units;
    return u0 < u1 ? static_cast<int>(u1 - u0) : 0;
  };
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, T), [&](const int t) {
    std::uint64_t u0;
    const int len = range(t, u0);
    long long k = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, len),
        [&](const int q, long long& sum) { sum += count(u0 + q); }, k);
    Kokkos::single(Kokkos::PerThread(member), [&]() { part[t] = k; });
  });
  member.team_barrier();
  Kokkos::single(Kokkos::PerTeam(member), [&]() {
    long long sum = 0;
    for (int t = 0; t < T; ++t) {
      const long long k = part[t];
      part[t] = sum;
      sum += k;
    }
  });
  member.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, T), [&](const int t) {
    std::uint64_t u0;
    const int len = range(t, u0);
    const long long base = part[t];
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(member, len),
                          [&](const int q, long long& pos, const bool final) {
                            const long long n = count(u0 + q);
                            if (final && n > 0) emit(u0 + q, base + pos);
                            pos += n;
                          });
  });
}

/// Writes the columns set in a bitmap (and their values from the dense slab,
/// which it zeroes) to cci/cv in increasing order.  A lane reads the values
/// of up to 8 columns of its word before it writes any: one column at a time,
/// each lane waited for one slab read (mostly from DRAM) after another, a
/// third of rmat:18:8's long-row numeric on the H100 (ncu).
template <class Member, class O, class S>
KOKKOS_INLINE_FUNCTION void spgemm_bitmap_extract(const Member& member, const std::uint32_t* bits,
                                                  std::uint32_t words, S* vals, O* cci, S* cv,
                                                  long long* part) {
  spgemm_team_ordered(
      member, words, part, [&](const std::uint64_t w) { return spgemm_popcount(bits[w]); },
      [&](const std::uint64_t w, long long p) {
        constexpr int batch = 8;
        S* wv = vals + w * 32;
        for (std::uint32_t x = bits[w]; x;) {
          int c[batch];  // bit positions in the word, 32 past the last set bit
          S y[batch];
          for (int q = 0; q < batch; ++q) {
            c[q] = x ? spgemm_popcount((x & (0u - x)) - 1) : 32;
            x &= x - 1;
          }
          for (int q = 0; q < batch; ++q)
            if (c[q] < 32) y[q] = wv[c[q]];
          for (int q = 0; q < batch; ++q) {
            if (c[q] < 32) {
              cci[p] = static_cast<O>(w * 32 + c[q]);
              cv[p] = y[q];
              wv[c[q]] = S(0);
              ++p;
            }
          }
        }
      });
}

/// Writes the entries of a global hash table (keys, vals, cap slots) to
/// cci/cv in increasing column order through `bits`, a bitmap of B's columns
/// (`words` words, zero on entry and on return): the table's columns set
/// their bits, then a team scan of the words writes each word's columns in
/// order with their values, found in the table, and clears the word
/// (SpgemmWideRowTuning).
template <class Member, class O, class S>
KOKKOS_INLINE_FUNCTION void spgemm_wide_row_by_bitmap(const Member& member, O* keys, S* vals,
                                                      std::uint32_t cap, std::uint32_t* bits,
                                                      std::uint32_t words, long long* part, O* cci,
                                                      S* cv) {
  using Acc = SpgemmTable<O, S>;
  const Acc h(keys, vals, cap);
  const TeamGroup<Member> g{member};
  g.for_each(cap, [&](const std::uint32_t s) {
    const O c = keys[s];
    if (c != Acc::empty_key) {
      const auto u = static_cast<std::uint64_t>(c);
      Kokkos::atomic_or(&bits[u >> 5], std::uint32_t(1) << (u & 31));
    }
  });
  g.barrier();
  spgemm_team_ordered(
      member, words, part, [&](const std::uint64_t w) { return spgemm_popcount(bits[w]); },
      [&](const std::uint64_t w, long long p) {
        for (std::uint32_t x = bits[w]; x; x &= x - 1) {
          const O c = static_cast<O>(w * 32 + spgemm_popcount((x & (0u - x)) - 1));
          cci[p] = c;
          cv[p] = vals[h.find(c)];
          ++p;
        }
        bits[w] = 0;
      });
  g.barrier();
}

/// Team scratch of the numeric bitmap kernels: a partial sum per thread
/// (spgemm_team_ordered), the BalancedTeamGroup's lists, the bitmap.
template <class Policy, class Balanced>
struct BitmapNumericScratch {
  struct Parts {
    Balanced g;
    long long* part;
    std::uint32_t* bits;
  };
  std::uint32_t words;
  int team_size;
  std::size_t part_bytes, group_bytes;
  BitmapNumericScratch(std::uint64_t ncols, int team)
      : words(static_cast<std::uint32_t>((ncols + 31) / 32)),
        team_size(team),
        part_bytes(sizeof(long long) * team),
        group_bytes(Balanced::scratch_bytes(Balanced::default_capacity)) {}
  KOKKOS_INLINE_FUNCTION std::size_t bytes() const {
    return part_bytes + group_bytes + words * sizeof(std::uint32_t);
  }
  /// L teams with this scratch.
  template <class Space>
  Policy policy(const Space& space, int L, int vector_length) const {
    return Policy(space, L, team_size, vector_length)
        .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(bytes())));
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION Parts carve(const Member& member, std::int64_t long_b) const {
    char* base = static_cast<char*>(member.team_scratch(0).get_shmem(bytes()));
    return {Balanced::carve(member, base + part_bytes, Balanced::default_capacity, long_b),
            reinterpret_cast<long long*>(base),
            reinterpret_cast<std::uint32_t*>(base + part_bytes + group_bytes)};
  }
};

template <class ExecSpace, class V, class Perm>
static void spgemm_binned_numeric(const ExecSpace& space, const V& v, const Perm& perm,
                                  const std::vector<SpgemmBin>& bins, std::uint64_t ncols,
                                  const SpgemmBinnedTuning& t, const SpgemmLongRowPlan& lp,
                                  bool sorted) {
  using O = typename decltype(v.cci)::non_const_value_type;
  using S = typename decltype(v.cv)::non_const_value_type;
  using F = typename decltype(v.crm)::non_const_value_type;
  using Acc = SpgemmTable<O, S>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = LaneRowScratch<O, S, F>;
  using Balanced = BalancedTeamGroup<Member, F>;
  constexpr SpgemmScratchLayout layout = SpgemmScratchLayout::of<O, S, F>();
  const int V_ = t.vector_length;
  const SpgemmBinStreams<ExecSpace> streams(space, bins);
  for (const auto& launch : streams.launches()) {
    const SpgemmBin& bin = *launch.bin;
    const ExecSpace& sp = streams.instance(launch.instance);
    const std::int64_t begin = bin.begin, nr = bin.end - bin.begin;
    const std::int64_t long_b = bin.long_b_row;
    if (bin.kernel == SpgemmBinKernel::WarpSorted) {
      if constexpr (spgemm_warp_sort_capable<ExecSpace, S>()) {
        spgemm_warp_sort_numeric(sp, bin.log2_capacity, bin.slots, v, perm, begin, nr, ncols,
                                 bin.team_size);
      } else {
        SPK_REQUIRE(false, Error, "spk::spgemm_numeric: the handle's symbolic ran on a backend ",
                    "with warp-sorted rows, ", ExecSpace::name(), " has none");
      }
    } else if (bin.kernel == SpgemmBinKernel::WarpHashed) {
      if constexpr (spgemm_warp_sort_capable<ExecSpace, S>()) {
        spgemm_warp_hash_numeric(sp, bin.log2_capacity, v, perm, begin, nr, bin.team_size);
      } else {
        SPK_REQUIRE(false, Error, "spk::spgemm_numeric: the handle's symbolic ran on a backend ",
                    "with warp-hashed rows, ", ExecSpace::name(), " has none");
      }
    } else if (bin.kernel == SpgemmBinKernel::ThreadPerRow) {
      // One row per thread on interleaved tables (see symbolic): sum, compact
      // in place, insertion-sort the few entries, write the row.
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const int T = bin.team_size;
      using Map = HashAccumulator<O, S, HashMask, LinearProbing, ExclusiveInsert>;
      const std::size_t kbytes = layout.round(std::size_t(cap) * T * sizeof(O));
      const std::size_t bytes = layout.thread_rows(cap, T);
      Kokkos::parallel_for(
          "spk::spgemm::numeric_threads",
          Policy(sp, (nr + T - 1) / T, T, 1)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(layout.request(bytes)))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base = spgemm_team_scratch(member, bytes, layout);
            const int tr = member.team_rank();
            const std::int64_t r = std::int64_t(member.league_rank()) * T + tr;
            if (r >= nr) return;
            const std::int64_t i = perm(begin + r);
            const Map h(reinterpret_cast<O*>(base) + tr, reinterpret_cast<S*>(base + kbytes) + tr,
                        cap, static_cast<std::uint32_t>(T));
            for (std::uint32_t q = 0; q < cap; ++q) h.clear(q);
            for (auto ka = v.arm(i); ka < v.arm(i + 1); ++ka) {
              const auto k = v.aci(ka);
              const S a = v.av(ka);
              for (auto kb = v.brm(k); kb < v.brm(k + 1); ++kb)
                h.accumulate(v.bci(kb), a * v.bv(kb));
            }
            std::uint32_t n = 0;
            for (std::uint32_t q = 0; q < cap; ++q) {
              const O c = h.key(q);
              if (c == Map::empty_key) continue;
              const S x = h.value(q);
              if (sorted) {
                // Insertion into the sorted prefix [0, n) (n <= q: no overlap
                // with the slots still to be read).
                std::uint32_t p = n;
                while (p > 0 && h.key(p - 1) > c) {
                  h.key(p) = h.key(p - 1);
                  h.value(p) = h.value(p - 1);
                  --p;
                }
                h.key(p) = c;
                h.value(p) = x;
              } else {
                h.key(n) = c;
                h.value(n) = x;
              }
              ++n;
            }
            const auto start = v.crm(i);
            for (std::uint32_t q = 0; q < n; ++q) {
              v.cci(start + q) = h.key(q);
              v.cv(start + q) = h.value(q);
            }
          });
    } else if (bin.kernel == SpgemmBinKernel::LanesPerRow) {
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t bytes = Scratch::bytes(cap, V_, true);
      const int T = bin.team_size;
      Kokkos::parallel_for(
          "spk::spgemm::numeric_lanes",
          Policy(sp, (nr + T - 1) / T, T, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(layout.request(T * bytes)))),
          KOKKOS_LAMBDA(const Member& member) {
            char* base = spgemm_team_scratch(member, T * bytes, layout);
            const std::int64_t r = std::int64_t(member.league_rank()) * T + member.team_rank();
            if (r >= nr) return;
            const auto row = Scratch::row(member, base + member.team_rank() * bytes, cap, V_, true);
            spgemm_numeric_row(row.g, v, perm(begin + r), row.keys, row.vals, row.kbuf, row.counter,
                               cap, sorted);
          });
    } else if (bin.kernel == SpgemmBinKernel::TeamPerRow) {
      // Table, key buffer, counter, the balanced group's list
      // (SpgemmScratchLayout::team_row).
      const std::uint32_t cap = 1u << bin.log2_capacity;
      const std::size_t kbytes = layout.round(cap * sizeof(O));  // the keys, and the key buffer
      const std::size_t tbytes = layout.table(cap, true);
      const int lc = SpgemmScratchLayout::balanced_list;
      const std::size_t bytes = layout.team_row(cap);
      Kokkos::parallel_for(
          "spk::spgemm::numeric_team",
          Policy(sp, nr, bin.team_size, V_)
              .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(layout.request(bytes)))),
          KOKKOS_LAMBDA(const Member& member) {
            char* mine = spgemm_team_scratch(member, bytes, layout);
            O* keys = reinterpret_cast<O*>(mine);
            S* vals = reinterpret_cast<S*>(mine + kbytes);
            O* kbuf = reinterpret_cast<O*>(mine + tbytes);
            int* counter = reinterpret_cast<int*>(mine + tbytes + kbytes);
            char* list = mine + tbytes + kbytes + layout.align;
            spgemm_numeric_row(Balanced::carve(member, list, lc, long_b), v,
                               perm(begin + member.league_rank()), keys, vals, kbuf, counter, cap,
                               sorted);
          });
    } else if (lp.kind == SpgemmLongRows::Bitmap) {
      // Bitmap in scratch says which columns the row has, a dense slab of
      // B's width per team in global memory holds their sums; the row comes
      // out sorted from the bitmap (also when sorting was not asked for).
      const int L = static_cast<int>(std::min<std::int64_t>(lp.num_slabs, nr));
      const std::uint64_t n = ncols;
      const TempView<S, ExecSpace> vals_mem(sp, "spk::spgemm::slab_values", L * n);
      const auto slab_vals = vals_mem.view;
      Kokkos::deep_copy(sp, slab_vals, S(0));
      const BitmapNumericScratch<Policy, Balanced> sc(ncols, bin.team_size);
      Kokkos::parallel_for(
          "spk::spgemm::numeric_bitmap", sc.policy(sp, L, V_), KOKKOS_LAMBDA(const Member& member) {
            const auto t = sc.carve(member, long_b);
            const auto& g = t.g;
            S* vals = slab_vals.data() + member.league_rank() * n;
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              spgemm_bitmap_mark(g, v, i, t.bits, sc.words,
                                 [&](const auto ka, const auto kb, const std::uint64_t c) {
                                   atomic_add_scalar(&vals[c], v.av(ka) * v.bv(kb));
                                 });
              const auto start = v.crm(i);
              spgemm_bitmap_extract(member, t.bits, sc.words, vals, v.cci.data() + start,
                                    v.cv.data() + start, t.part);
              g.barrier();
            }
          });
    } else if (lp.kind == SpgemmLongRows::BitmapRanks) {
      // Two passes over the row's products.  The first sets the row's
      // columns in a bitmap in scratch; C's columns come out of it in order
      // (also when sorting was not asked for), their values zeroed, and
      // each word's first position in the row is kept (`ranks`, per team,
      // in global memory: a 32nd of B's width in 32-bit words).  The second
      // adds each product straight into C's value at its column's position:
      // the word's rank plus the set bits below the column.  For long rows
      // that cover little of B's width (spgemm_symbolic's choice): there
      // the dense slabs (1,056 of rmat:18:8's 262k columns: 2.2 GB) missed L2
      // on nearly every product, 57 ms against 35 here and 3.7 for symbolic.
      const int L = static_cast<int>(std::min<std::int64_t>(lp.num_slabs, nr));
      const BitmapNumericScratch<Policy, Balanced> sc(ncols, bin.team_size);
      const std::uint32_t words = sc.words;
      const TempView<std::uint32_t, ExecSpace> ranks_mem(sp, "spk::spgemm::bitmap_ranks",
                                                         std::size_t(L) * words);
      const auto slab_ranks = ranks_mem.view;
      Kokkos::parallel_for(
          "spk::spgemm::numeric_bitmap_ranks", sc.policy(sp, L, V_),
          KOKKOS_LAMBDA(const Member& member) {
            const auto t = sc.carve(member, long_b);
            const auto& g = t.g;
            std::uint32_t* ranks = slab_ranks.data() + std::size_t(member.league_rank()) * words;
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              spgemm_bitmap_mark(g, v, i, t.bits, words,
                                 [](const auto, const auto, const std::uint64_t) {});
              const auto start = v.crm(i);
              O* cci = v.cci.data() + start;
              S* cv = v.cv.data() + start;
              spgemm_team_ordered(
                  member, words, t.part,
                  [&](const std::uint64_t w) { return spgemm_popcount(t.bits[w]); },
                  [&](const std::uint64_t w, long long p) {
                    ranks[w] = static_cast<std::uint32_t>(p);
                    for (std::uint32_t x = t.bits[w]; x; x &= x - 1) {
                      cci[p] = static_cast<O>(w * 32 + spgemm_popcount((x & (0u - x)) - 1));
                      cv[p] = S(0);
                      ++p;
                    }
                  });
              g.barrier();  // the ranks and the zeroed values are seen by the team
              g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
                const auto c = static_cast<std::uint64_t>(v.bci(kb));
                const std::uint32_t w = static_cast<std::uint32_t>(c >> 5);
                const std::uint32_t below = t.bits[w] & ((std::uint32_t(1) << (c & 31)) - 1u);
                atomic_add_scalar(&cv[ranks[w] + spgemm_popcount(below)], v.av(ka) * v.bv(kb));
              });
              g.barrier();
            }
          });
    } else if (lp.kind == SpgemmLongRows::DenseMarker) {
      // A dense value slab of B's width per team and a bitmap of the row's
      // columns: the row comes out of the bitmap in order (also when
      // sorting was not asked for: listing first touches through a marker
      // per column measured 5x slower on rmat:20:2).
      const int L = static_cast<int>(std::min<std::int64_t>(lp.num_slabs, nr));
      const std::uint64_t words = (ncols + 31) / 32;
      const TempView<S, ExecSpace> vals_mem(sp, "spk::spgemm::slab_values", L * ncols);
      const TempView<std::uint32_t, ExecSpace> bits_mem(sp, "spk::spgemm::slab_bits", L * words);
      const auto slab_vals = vals_mem.view;
      const auto slab_bits = bits_mem.view;
      Kokkos::deep_copy(sp, slab_vals, S(0));
      Kokkos::deep_copy(sp, slab_bits, 0u);
      Kokkos::parallel_for(
          "spk::spgemm::numeric_global",
          light_weight(Policy(sp, L, bin.team_size, V_)
                           .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(
                                                    sizeof(long long) * (1 + bin.team_size))))),
          KOKKOS_LAMBDA(const Member& member) {
            long long* part = static_cast<long long*>(
                member.team_scratch(0).get_shmem(sizeof(long long) * (1 + member.team_size())));
            S* vals = slab_vals.data() + member.league_rank() * ncols;
            std::uint32_t* bits = slab_bits.data() + member.league_rank() * words;
            const TeamGroup<Member> g{member};
            for (std::int64_t r = member.league_rank(); r < nr; r += L) {
              const std::int64_t i = perm(begin + r);
              const auto start = v.crm(i);
              // vals[c] accumulates column c (zero between rows).
              g.for_products(i, v.arm, v.aci, v.brm, [&](const auto ka, const auto kb) {
                const auto c = static_cast<std::uint64_t>(v.bci(kb));
                atomic_add_scalar(&vals[c], v.av(ka) * v.bv(kb));
                Kokkos::atomic_or(&bits[c >> 5], std::uint32_t(1) << (c & 31));
              });
              g.barrier();
              spgemm_bitmap_extract(member, bits, static_cast<std::uint32_t>(words), vals,
                                    v.cci.data() + start, v.cv.data() + start, part + 1);
              g.barrier();
              g.for_each(static_cast<std::uint32_t>(words),
                         [&](const std::uint32_t w) { bits[w] = 0; });
              g.barrier();
            }
          });
    } else {
      // Hash tables in global memory, one per team (slab), sized to the row
      // of C (its length is known here); the groups of one table size
      // (SpgemmLongRowGroup) side by side in as few launches as the slab
      // budget allows (spgemm_hash_waves).  A row of up to `kcap` columns
      // (scratch) is listed, sorted and written as a team-bin row is
      // (spgemm_numeric_row), its values found in the table.  A longer one
      // goes to C's row in order through a bitmap of B's columns when it is
      // dense enough in them and the team has one (SpgemmWideRowTuning),
      // else it is compacted into C's row and sorted there.
      const int lc = spgemm_global_list<F>(t);
      // The list, the scratch path's counter, a partial sum per thread
      // (spgemm_team_ordered).
      const std::size_t head =
          layout.list(lc) + layout.align + layout.round(sizeof(long long) * bin.team_size);
      const std::size_t room =
          t.scratch > head + layout.slack ? t.scratch - head - layout.slack : 0;
      const std::uint64_t words = (ncols + 31) / 32;
      std::vector<SpgemmHashWave> waves =
          spgemm_hash_waves(lp.groups, lp.hash_entries, [&](const SpgemmLongRowGroup& grp) {
            return static_cast<std::uint32_t>(
                std::min<std::uint64_t>(grp.capacity, room / sizeof(O)));
          });
      const int bitmap_teams =
          sorted ? spgemm_assign_wide_row_bitmaps(waves, words, t.wide_row) : 0;
      const std::uint64_t entries = spgemm_hash_wave_entries(waves);
      const TempView<O, ExecSpace> keys_mem(sp, "spk::spgemm::slab_keys", entries);
      const TempView<S, ExecSpace> vals_mem(sp, "spk::spgemm::slab_values", entries);
      const TempView<std::uint32_t, ExecSpace> bits_mem(sp, "spk::spgemm::wide_row_bits",
                                                        std::size_t(bitmap_teams) * words);
      const auto slab_keys = keys_mem.view;
      const auto slab_vals = vals_mem.view;
      const auto wide_bits = bits_mem.view;
      if (bitmap_teams > 0) Kokkos::deep_copy(sp, wide_bits, 0u);
      const std::uint64_t max_wpc = t.wide_row.max_words_per_column;
      for (const SpgemmHashWave& w : waves) {
        const std::size_t bytes = head + layout.round(std::size_t(w.kcap) * sizeof(O));
        Kokkos::parallel_for(
            "spk::spgemm::numeric_global",
            light_weight(
                Policy(sp, w.teams, bin.team_size, V_)
                    .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(layout.request(bytes))))),
            KOKKOS_LAMBDA(const Member& member) {
              const SpgemmHashGroupSlot& grp = w.group_of(member.league_rank());
              const int lr = member.league_rank() - grp.team_begin;
              char* mine = spgemm_team_scratch(member, bytes, layout);
              int* counter = reinterpret_cast<int*>(mine + layout.list(lc));
              long long* part = reinterpret_cast<long long*>(mine + layout.list(lc) + layout.align);
              O* kbuf = reinterpret_cast<O*>(mine + head);
              O* keys = slab_keys.data() + grp.slab_begin + lr * grp.capacity;
              S* vals = slab_vals.data() + grp.slab_begin + lr * grp.capacity;
              const bool has_bitmap = lr < grp.bitmaps;
              std::uint32_t* bits =
                  has_bitmap ? wide_bits.data() + std::size_t(grp.bitmap_begin + lr) * words
                             : nullptr;
              const auto g = Balanced::carve(member, mine, lc, long_b);
              for (std::int64_t r = lr; r < grp.rows; r += grp.teams) {
                const std::int64_t i = perm(begin + grp.row_begin + r);
                const auto start = v.crm(i);
                const std::uint32_t n = static_cast<std::uint32_t>(v.crm(i + 1) - start);
                const std::uint32_t cap = static_cast<std::uint32_t>(spgemm_table_capacity(n));
                if (n <= grp.kcap) {
                  spgemm_numeric_row(g, v, i, keys, vals, kbuf, counter, cap, sorted);
                } else {
                  O* cci = v.cci.data() + start;
                  S* cv = v.cv.data() + start;
                  const Acc h(keys, vals, cap);
                  spgemm_accumulate_row(g, v, i, h);
                  if (has_bitmap && words <= max_wpc * n) {
                    spgemm_wide_row_by_bitmap(member, keys, vals, cap, bits,
                                              static_cast<std::uint32_t>(words), part, cci, cv);
                  } else {
                    // In slot order (no atomics on one counter: 64-bit ones
                    // on scratch are compare-and-swap loops on sm_90).
                    spgemm_team_ordered(
                        member, cap, part,
                        [&](const std::uint64_t u) { return keys[u] != Acc::empty_key ? 1 : 0; },
                        [&](const std::uint64_t u, const long long pos) {
                          cci[pos] = keys[u];
                          cv[pos] = vals[u];
                        });
                    g.barrier();
                    if (sorted) group_bitonic_sort(g, cci, cv, n);
                  }
                }
                g.barrier();
              }
            });
      }
    }
  }
  spgemm_long_rows_numeric(space, v, perm, ncols, lp.split);
  streams.join();
}

}  // namespace spk::Impl
