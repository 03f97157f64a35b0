// SpGEMM tuning policies: the hardware-dependent constants of the SpGEMM
// kernels, per backend and, for CUDA, per compute capability, kept apart
// from the algorithms (spk_spgemm_binned.hpp, spk_spgemm_thread_dense.hpp).
//
// A policy is a constexpr struct.  The CUDA policies form a table ordered by
// compute capability; a device takes the entry with the largest capability
// at most its own (as CUB's policy chains do for __CUDA_ARCH__), so a new
// GPU generation gets the entry below it until it has its own.  Adding one
// (say sm_100) is a new constexpr SpgemmDevicePolicy and a row in
// spgemm_cuda_policies below; no algorithm file changes.
//
// Every constant says what it was measured on.  Per-call overrides:
// SpgemmOptions::tuning and SpgemmOptions::device_policy; process-wide:
// Settings::spgemm (spk_settings.hpp).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <spk_compat.hpp>

namespace spk {

/// The BinnedHash parameters of a device backend (CUDA; other device
/// backends use the generic entry).
struct SpgemmDevicePolicy {
  const char* name;
  /// Lanes per row of the lane and team bins: the average length of B's
  /// rows rounded up to a power of two, clamped to [min, max].
  int min_vector_length, max_vector_length;
  /// Threads (rows x lanes) of a lane-bin team, at most.
  int lane_threads;
  /// Threads x lanes of a team-bin team (threads = this / vector length).
  int team_lanes;
  /// Scratch bytes a lane-bin or thread-bin team uses at most.
  std::size_t lane_scratch_bytes;
  /// Tables up to 2^this slots: one row per thread (numeric; symbolic).
  int max_thread_log2, max_thread_log2_sym;
  /// Rows of 2^min..2^max products sorted by the lanes of a warp instead of
  /// hashed (spk_spgemm_warp_sort.hpp), numeric and symbolic; 0: none.
  int warp_sort_min_log2, warp_sort_max_log2;
  int warp_sort_min_log2_sym, warp_sort_max_log2_sym;
  int warp_sort_warps;  ///< warps per warp-sort team
  int warp_sort_slots;  ///< products per lane, at least
  /// Sortable bins of few rows sorted too, not a team per row.
  bool warp_sort_few;
};

/// Compile-time constants of the host kernels (ThreadDense and BinnedHash
/// on Serial/OpenMP), measured on a shared 2-core Xeon, OpenMP, 1 and 2
/// threads.
struct SpgemmHostPolicy {
  /// Team scratch of BinnedHash's host teams when the options give none.
  static constexpr std::size_t scratch_bytes = std::size_t(256) << 10;
  /// ThreadDense: rows whose nonzero words of the bitset are at most this
  /// many sort them by insertion; more go through the summary bitset.
  static constexpr std::uint64_t sort_words = 16;
  /// ThreadDense: B is compressed when the (word, mask) pairs number at most
  /// this percentage of its entries.
  static constexpr std::uint64_t compress_pct = 75;
  /// ThreadDense: numeric uses the compressed pairs for the pattern below
  /// this percentage (above it, one fused pass over B's entries measured
  /// faster).
  static constexpr std::uint64_t numeric_compress_pct = 66;
  /// Work of a row beyond its products, in products (row set-up, sort,
  /// write).
  static constexpr std::uint64_t row_cost = 16;
  /// Blocks per thread (dynamic scheduling over blocks absorbs the
  /// imbalance).
  static constexpr int blocks_per_thread = 16;
  /// Numeric over an uncompressed B prefetches the row of B this many
  /// entries of A ahead, and that row's pointer twice as far (random:100000:
  /// one call 31 -> 21 ms, poisson3Da -9 %, ca-CondMat -5 %; B compressed to
  /// few pairs, whose rows are long runs that the hardware streams, lost:
  /// TSOPF +7 %).
  static constexpr std::int64_t prefetch_distance = 8;
  /// ThreadDense's accumulators: global memory allowed when the options
  /// give no slab budget.
  static constexpr std::size_t slab_budget_bytes = std::size_t(512) << 20;
};

/// Budget of BinnedHash's long-row slabs when the options give none, on
/// every backend: in proportion to the work of these rows (so that small
/// products stay small), between min and max.  Measured on the H100: 6
/// bytes per fp64 product (an entry's bytes / 2), where cuSPARSE's default
/// algorithm held 35-40; more slabs are more long rows at once (rmat:20:2's
/// 52,213 long rows on 1M columns had 61 slabs at a 512 MiB cap).
struct SpgemmSlabBudget {
  static constexpr std::size_t min_bytes = std::size_t(16) << 20;
  static constexpr std::size_t max_bytes = std::size_t(4) << 30;
  static constexpr std::size_t entry_divisor = 2;  // bytes per product: entry bytes / this
};

/// When and how BinnedHash splits a long row.  The defaults were chosen by
/// reasoning and then measured on an H100 against off and force
/// (benchmarks/cuda_h100: powerlaw:1M 17.6 -> 7.7 ms, powerlaw:4M 54 -> 30,
/// arrow:2909091 1140 -> 78, rmat:18:8 unchanged at 41 where force takes 97;
/// Maragal_6 9 % slower than off): a chunk of 4096 products gives each of a
/// team's 256 lanes 16 products (one pass over the chunk's share of A and B
/// costs about what a team's launch does); rows of 16,384 products and more
/// may be split (4 chunks or more); a row is split only when its bitmap has
/// at most two words per product (products >= B's columns / 64), since
/// every split row's bitmap is cleared, counted and (numeric) ranked in
/// full; and only when the row alone is more work than the long rows' fair
/// share of a team (their products / the teams that work on them at once):
/// below that the row is not what the long bin waits for, and a split row's
/// global bitmap and atomics cost more per product than one team's table
/// (rmat:18:8 on an H200, whose ~10^3 long rows fill the device: 37 ms with
/// no split, 83 with every long row split).  256 MiB of bitmaps and ranks in
/// flight is about 1,000 rows of 10^6 columns.
struct SpgemmLongRowTuning {
  std::uint64_t chunk_products = 4096;             ///< products per team
  std::uint64_t split_products = 16384;            ///< rows with at least this many are split
  std::uint64_t columns_per_product = 64;          ///< ... and at least B's columns / this
  std::size_t max_bytes = std::size_t(256) << 20;  ///< bitmaps and ranks in flight
  /// Numeric: a long row whose columns fit a lane group's table goes to one
  /// when it has at most this many products (a lane group of 8 lanes then
  /// takes ~500 each), else to a team (reasoning, not measured).
  std::uint64_t lane_products = 4096;
};

/// Numeric's long rows on global hash tables whose row of C is longer than
/// the team's scratch key buffer (a few thousand columns): their columns
/// are set in a bitmap of B's columns in global memory and written in order
/// from it (a scan of the bitmap's words), each value placed at its
/// column's rank, instead of compacting the table into C's row and
/// bitonic-sorting it there.  The sort's log2(n)^2 / 2 passes over the row
/// in global memory, each a dependent load per pair, held one team on such
/// a row for milliseconds: powerlaw:4000000 on an H200 spent 41 of its 66
/// ms in these rows (~10^4-10^5 columns among 4·10^6; its group of three
/// rows of 60,000 columns alone took 20 ms).  A row takes the bitmap when it
/// has at least one column per max_words_per_column words of the bitmap (a
/// coalesced read per word against ~log2(n)^2 / 2 scattered compare-swaps
/// per column); a bitmap takes B's columns/8 bytes per team, max_bytes at
/// most (teams past it sort).  Swept on an H200 (one call,
/// the Hash groups side by side): 8, 64 and 512 words per column with 1 GiB,
/// and 64 with 256 MiB, all within 1 % on powerlaw:4000000 (29.4-29.7 ms,
/// 34.5 with no bitmaps) and powerlaw:1000000 (7.5-7.7, 8.0); R-MAT, arrow
/// and SuiteSparse graphs do not take the path.  max_words_per_column = 0:
/// never.
struct SpgemmWideRowTuning {
  std::uint64_t max_words_per_column = 64;
  std::size_t max_bytes = std::size_t(256) << 20;
};

/// Numeric's regrouping by the length of C's rows, known once symbolic has
/// counted them: symbolic bins a row by its products, but a row of heavy
/// accumulation has far fewer columns (a 27-point stencil squared: 729
/// products, 125 columns), and numeric's table needs to hold only the
/// columns.  A row whose C row fits a table at least 2^shrink_log2 times
/// smaller than its bin's moves to a bin of that table:
/// - from a warp-sorted bin that symbolic's sample found of many products
///   per column (SpgemmSampleTuning; warp_sorted), to a warp-hashed table
///   (spk_spgemm_warp_hash.hpp: the warp's lanes share the products, the
///   table sized by C's row).  Without the sample's word, small SuiteSparse
///   products (2-4 products per column: TSOPF_RS_b39_c30, cage11,
///   airfoil_2d) paid the regrouping (+0.1 ms) for few moved rows.  ap:sa:stencil27:106 (~125
///   products and ~13 columns a row) on an H200: numeric 2.9 ms against 5.3 sorted (and 7.4 on
///   32-slot lane tables, where a lane group of 8 takes one A entry at a time, half its lanes idle
///   on B's rows of ~4.6).
/// - from a team bin, to a warp-hashed table when it has at least
///   team_products_per_column products per column (CUDA), else to a lane
///   table when it has at most max_lane_products products per lane (a lane
///   group takes A's entries one after the other, a team spreads them over
///   its threads).  Warp-hashed team rows, H200 numeric ms against their
///   team or lane bins: ptap:sa:stencil27:106 (~48 products per column)
///   1.16 against 1.49; fem:20:6:7 (~12) 2.00 against 1.84, fem:50:6:7
///   (~12) 26.0 against 25.2, stencil27:106 (~6: B's rows of 27 already fill
///   a lane group) 31.0 against 19.1; hence 24.  Lane tables: the team rows
///   of stencil27:106 (~23 products a lane; tables of 1,024 slots to 256)
///   19.1 against 23.4; fem:20:6:7's (~51) 1.82 against 1.72 and
///   ptap:sa:stencil27:106's (~77) 2.0 against 1.5 lost, hence 32.
/// Only when the bins that may shrink hold at least min_products products:
/// the regrouping costs two kernels and a host synchronisation (~0.1 ms on
/// 1.2·10^6 rows).  shrink_log2 = 0: never; team_products_per_column = 0:
/// no team row to a warp-hashed table.
struct SpgemmRegroupTuning {
  int shrink_log2 = 2;
  std::uint64_t min_products = std::uint64_t(1) << 22;
  std::uint64_t max_lane_products = 32;
  bool warp_sorted = true;
  double team_products_per_column = 24.0;
};

/// Symbolic's choice for the bins it would warp-sort (rows of 2^8-2^9
/// products on sm_90): a warp sort costs the same whatever the row's
/// columns; a lane group's keys-only hash table costs less the fewer distinct
/// columns the products have.  `rows` rows spread over each such bin of at
/// least min_products products have their distinct columns counted (one
/// small kernel and a host synchronisation: ~0.08 ms, 5 % of
/// banded:153846:200:13's 1.55 ms, whose bin of 2.6·10^7 products stays
/// sorted, hence 2^25); a bin whose sampled
/// rows have at least `compression` products per column is hashed.
/// Measured on an H200, symbolic ms with every such bin hashed against
/// sorted: ap:sa:stencil27:106 (~10 products per column) 3.3 against 5.0,
/// ap:sa:stencil27:42 0.42 against 0.48; rows of few repeated columns lost:
/// powerlaw:250000:8:1.5 0.90 against 0.78, rmat:16:8 1.37 against 1.18,
/// banded:153846:200:13 0.82 against 0.77.  A sweep with every bin sampled
/// (20 generated matrices, 13 SuiteSparse ones, symbolic ms; runs of one
/// setting differ by up to 15 % on the small ones): at 2, cage11 (0.45-0.53
/// -> 0.33) and airfoil_2d (0.26-0.31 -> 0.19) gain and Oregon-2 loses
/// (0.44 -> 0.58); at 4 Oregon-2 still loses 0.1 ms; at 8 only the
/// ap:sa:stencil27 products gain.  Those SuiteSparse products hold under
/// 2^24 products, so min_products keeps them sorted.
struct SpgemmSampleTuning {
  int rows = 128;
  std::uint64_t min_products = std::uint64_t(1) << 25;
  double compression = 4.0;
};

namespace Impl {

/// Hopper (sm_90), measured on H100 SXM and PCIe with CUDA 12 on spk's
/// SpGEMM suite (generated matrices and 109 SuiteSparse matrices).
inline constexpr SpgemmDevicePolicy spgemm_cuda_sm90 = {
    "cuda-sm90",
    // Lanes per row about B's row length: Kokkos Kernels' rule of thumb,
    // kept on the H100 (4..32 lanes).
    4, 32,
    // Lane-bin teams of 128 threads with about 24 KB of tables keep 9 teams
    // (1152 threads) on an H100 SM.
    128, 256, std::size_t(24) << 10,
    // Short rows one per thread: no idle lanes, no lane synchronisation
    // (tables of 32 slots numeric, 64 key-only symbolic).
    5, 6,
    // Numeric: rows of up to 512 products sorted by 4-32 lanes, 8-16 per
    // lane (the thread and lane bins' tables of values hold occupancy down:
    // 2-4x slower on H100; sorting the 512-slot bin instead of a team per
    // row gained ~4 % on the suite, about the noise).  Symbolic keeps its
    // key-only thread tables up to 64 and sorts the rows of 65-512
    // (docs/spgemm.md, "Warp-sorted rows") unless SpgemmSampleTuning finds
    // many products per column (then warp-hashed tables).  Sorting the
    // 65-128 bin instead of lane tables of 128: symbolic 4 % faster in
    // geometric mean over 20 generated and 13 SuiteSparse products on an
    // H200 (none more than 3 % slower; ap:sa:stencil27:42 0.58 -> 0.47 ms).
    5, 9, 7, 9, 4, 8,
    // Few-row sortable bins sorted too: numeric 10-35 % faster on the H100's
    // medium matrices (ca-CondMat, lhr07, delaunay_n16).
    true};

/// Any CUDA device without an entry of its own, and other device backends:
/// the sm_90 values, the only GPU spk was tuned on; not measured elsewhere.
inline constexpr SpgemmDevicePolicy spgemm_device_generic = [] {
  SpgemmDevicePolicy p = spgemm_cuda_sm90;
  p.name = "device-generic";
  return p;
}();

/// A CUDA policy and the smallest compute capability (major * 10 + minor)
/// it is for.
struct SpgemmCudaPolicyEntry {
  int min_compute_capability;
  SpgemmDevicePolicy policy;
};

/// The CUDA policies, by increasing compute capability.
inline constexpr SpgemmCudaPolicyEntry spgemm_cuda_policies[] = {
    {0, spgemm_device_generic},
    {90, spgemm_cuda_sm90},
};

/// The entry for a device of compute capability `cc` (major * 10 + minor):
/// the last entry whose capability is at most cc.
constexpr const SpgemmDevicePolicy& spgemm_cuda_policy(int cc) {
  const SpgemmDevicePolicy* best = &spgemm_cuda_policies[0].policy;
  for (const auto& e : spgemm_cuda_policies)
    if (e.min_compute_capability <= cc) best = &e.policy;
  return *best;
}

static_assert(spgemm_cuda_policy(80).name == spgemm_device_generic.name);
static_assert(spgemm_cuda_policy(90).name == spgemm_cuda_sm90.name);
static_assert(spgemm_cuda_policy(100).name == spgemm_cuda_sm90.name);

/// The device policy of the device `space` runs on.
template <class ExecSpace>
SpgemmDevicePolicy spgemm_device_policy(const ExecSpace& space) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, space.cuda_device());
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, space.cuda_device());
    return spgemm_cuda_policy(major * 10 + minor);
  }
#endif
  (void)space;
  return spgemm_device_generic;
}

}  // namespace Impl
}  // namespace spk
