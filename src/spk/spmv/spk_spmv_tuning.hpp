// SpMV tuning: per-backend policies (the values of SpmvTuning) and the rule
// that turns options + row-length statistics into a launch.  No kernel lives
// here and no kernel reads a tuning value except through SpmvLaunch, so a new
// architecture's entry (an H200-, sm_100- or CPU-specific one) is a new
// function below and one line in spmv_tuning_cuda / spmv_tuning.
//
// Row-length classes and what each gets by default:
//   short, regular rows (mean ≤ scalar_max_mean, cv ≤ scalar_max_cv): a thread
//     per row (GPU), whose neighbours' loads share cache lines;
//   rows whose lengths vary (cv > stream_min_cv: medium rows, or short
//     irregular ones) up to stream_max_mean: `stream`, blocks of whole rows
//     whose entries a team loads with fully coalesced loads into scratch,
//     then sums row by row;
//   other rows: `vector` with a group of lanes per row sized so that each
//     lane takes about entries_per_lane entries (two steps of the kernel's
//     four independent loads), several rows per warp;
//   skewed rows (a row far longer than the mean): a full warp per row while
//     the longest row is short enough, else merge_path's equal shares;
//   host spaces: one block of whole rows per thread unless a row is a large
//     part of a block, then merge_path;
//   GPU plans on skewed rows: rows longer than split_row_min are split into
//     pieces (a team each, added to y with atomics) when the other rows, by
//     their own statistics, take one of the row kernels above; when they
//     would still take merge_path, nothing is split.
#pragma once

#include <algorithm>
#include <limits>
#include <spk_compat.hpp>
#include <spk_spmv_options.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <atomic>
#endif

namespace spk {

/// CPU (Serial, OpenMP) policy.
inline SpmvTuning spmv_tuning_host() {
  SpmvTuning t;
  // Measured (2 OpenMP threads, docs/spmv.md): row blocks ran 1.13-1.19×
  // faster than merge_path over the suite on a shared 2-core workstation.
  // The 1/8 overshoot allowed here is reasoning (a block overshoots its
  // share by at most one row), not a measured optimum.
  t.host_block_imbalance_max = 1.125;
  // Measured: merge_path with 8 segments per thread was 1.10× Kokkos Kernels
  // on a quiet 16-core Xeon (9 matrices); other counts were not compared.
  t.host_merge_segments_per_thread = 8;
  // `stream` runs on host spaces only when asked for (tests, comparisons):
  // a team of one thread per block of about 1024 nonzeros.
  t.stream_team_threads = 1;
  t.stream_block_nnz = 1024;
  t.stream_entries_per_lane = 4;
  t.stream_max_lanes = 1;
  // The long-row split runs on host spaces only when asked for
  // (SpmvLongRows::Split): merge_path already balances skewed rows there.
  // Reasoning, not measured: pieces of 16384 entries (~200 KB, fp64) keep a
  // thread's run long enough for the prefetchers.
  t.split_row_min = 65536;
  t.split_piece_nnz = 16384;
  t.split_team_threads = 1;
  // Reasoning, not measured: a host team is one thread, so a piece is one
  // thread's run; 16384 entries (~200 KB, fp64) keep the pieces long enough
  // for the prefetchers and a hub row of 10⁵ entries on several threads.
  t.sell_spill_chunk_nnz = 16384;
  t.sell_spill_lanes = 1;
  t.sell_spill_team_threads = 1;
  // Measured (2 OpenMP threads, sell:8:4096): powerlaw:1000000 ran fastest
  // at spill widths of 128-256, 1.2-1.3× faster than at 64.  FEM and stencil
  // rows (within 2× the mean) never reach 16 × the mean; spilling them all
  // cost 2-6×.
  t.sell_spill_width_per_mean = 16;
  t.sell_spill_width_min = 64;
  // The GPU fields stay zero: host spaces run `vector` as row blocks (a
  // thread per block, the row loop's partial sums as its lanes) and choose
  // between row blocks and merge_path from the blocks themselves.
  return t;
}

/// Compile-time sizes of the padded and block formats' host kernels (their
/// accumulators are arrays of this many rows).
struct FormatHostTuning {
  /// Rows an ELL host task sums side by side.  ELL is column-major, so each
  /// slot column k of a task is a separate run of memory m values away from
  /// the next: short runs defeat the prefetchers and take a TLB miss per
  /// column.  Measured (2 OpenMP threads, perf_spmv --formats ell against
  /// Kokkos Kernels' CSR, with the one-column-at-a-time loop): 32 rows 0.23×
  /// on fem:51:3:27 (81 slots a row) and stencil27:80, 0.71× on
  /// poisson3d:100; 512 rows 0.29-0.30× and 0.46×; 4096 rows 0.42×, 0.42×
  /// and 0.61×.  The accumulators then take 32 KB (fp64), so larger tasks
  /// were not tried.
  static constexpr int ell_rows_per_task = 4096;
  /// Slot columns an ELL host task sums together (a row's accumulator moves
  /// once per this many products; the last columns go in fours).  Measured
  /// (one OpenMP thread, perf_spmv --formats ell, min of 20): 8 with the
  /// plain sums of padding-free groups took fem:51:3:27 from 25.7-26.9 ms
  /// (4 columns, every slot selected) to 20.7-23.3; 8 without a group of 4
  /// after it ran poisson3d:100's 7 slots one by one, 15 % slower.
  static constexpr int ell_columns_per_pass = 8;
};

/// NVIDIA Hopper (sm_90: H100, H200).
inline SpmvTuning spmv_tuning_cuda_sm90() {
  SpmvTuning t;
  // Measured on an H100 (perf_spmv --sweep 1, docs/spmv.md): a thread per
  // row streams 5- and 7-point stencils at 88-92 % of the device copy; the
  // boundary between 7 and ~14 entries was not measured finer.
  t.scalar_max_mean = 10;
  // Reasoning, to be measured on an H100: rows of a thread-per-row warp that
  // vary by more than their mean leave most of the warp idle.
  t.scalar_max_cv = 1.0;
  // Measured (perf_spmv --sweep 1 on an H200, lanes 1-32 × 128-512 threads
  // × 1-4 rows a group, with the lane sums shuffled over the whole warp):
  // the fastest lane counts were 2 for banded rows of 13 entries (146 µs on
  // 2.5M rows, 4 lanes 151), 4 for the 27-point stencil (26.5 a row: 143
  // µs on 106³, 8 lanes 153, 2 lanes 160), 8 for 6-dof FEM rows of 41
  // (138 µs, 4 lanes 141) and 3-dof rows of 78 (134 µs, 16 lanes 135), 16
  // for dense 64-blocks (131 µs, 8 lanes 137).  The smallest power of two
  // ≥ mean / 8 is within 3 % of the fastest on each but the 64-blocks (7 %):
  // a lane takes about eight entries, two steps of the kernel's four
  // independent loads, and a warp has 32 / lanes rows in flight.
  t.entries_per_lane = 8;
  t.min_lanes = 2;
  t.max_lanes = 32;
  // Measured on an H100 (sweep 3): small power-law matrices whose longest
  // row has a few hundred entries (ca-CondMat, PGPgiantcompo,
  // p2p-Gnutella04) ran faster with a warp per row than on the two-launch
  // merge path; rmat:21:16 (rows of 10⁴+) needs merge_path.
  t.skew_min_longest = 64;
  t.skew_ratio = 16;
  t.wide_row_max_longest = 512;
  // Measured on an H100 (sweeps 1-3): 256 threads a team, about 4096
  // nonzeros per team but at least ~1024 teams (small matrices got tens of
  // teams otherwise), at most 64 rows per lane group.  On an H200 (the
  // sweep above, rows a group fixed at 1, 2 or 4) this rule was within 3 %
  // of the best count on each matrix but the 6-dof FEM rows (3 rows a
  // group: 144 µs, 2 rows: 138).
  t.vector_team_threads = 256;
  t.nnz_per_team = 4096;
  t.min_teams = 1024;
  t.max_rows_per_group = 64;
  // Measured on an H100 (sweep 3): merge-path tiles of 128 threads × 4
  // items (rmat:21:16 0.335 ms vs 0.48 ms with 8 items); 2048 items (24 KiB
  // of scratch) at most.
  t.merge_path_team_size = 128;
  t.merge_path_items_per_thread = 4;
  t.merge_path_tile_max = 2048;
  // Measured on an H200 (perf_spmv --sweep 1, the sweep-stream rows; to be
  // repeated on an H100): `stream` ran best with about four nonzeros a
  // thread (blocks of 512 under 128 threads, 1024 under 256; 8+ a thread
  // was up to 1.6× slower) and one or two lanes a row.  On random columns
  // (random:2000000:2000000:16) it ran 0.270 ms against the lane kernel's
  // 0.368 ms (cuSPARSE CSR ALG1 0.269 ms), but it lost by 3-10 % on the
  // regular stencil and banded rows, and row lengths alone do not tell
  // those apart from uniform random rows: automatic takes it for rows whose
  // lengths vary (cv above 0.15, reasoning: the lane kernel's groups idle
  // there), the regular ones keep `vector`.  Skewed (power-law) rows keep
  // their own paths.
  t.stream_max_mean = 64;
  t.stream_min_cv = 0.15;
  // Measured (perf_spmv --sweep 1 on an H200): on uniformly random columns
  // stream ran 265 µs against vector's best 305 (random:2000000:2000000:16)
  // and 349 against scalar's 396 (random:4000000:4000000:8), where the
  // 27-point stencil, FEM and banded rows lost 10-30 % with it.  Their
  // neighbour shares are near 0 against 0.3 for banded rows of 13 entries
  // within ±200 columns (the least local of the others; reasoning: a lower
  // bound between them, not swept).
  t.stream_max_neighbour_share = 0.1;
  t.stream_team_threads = 128;
  t.stream_block_nnz = 512;
  t.stream_entries_per_lane = 8;
  t.stream_max_lanes = 2;
  // Long-row split: rows of more than 4096 entries, when the other rows then
  // take a row kernel (not merge_path), in pieces of a team of 128 threads.
  // Measured (perf_spmv --sweep split on an H200, thresholds 1024-16384 ×
  // pieces 2048-16384 × 128 or 256 threads): the arrow matrices (4 dense
  // rows and columns, 7 entries in the other rows) ran 0.138 ms on 2.9M
  // rows against merge_path's 0.320 (cuSPARSE CSR ALG1 0.210) and 0.020
  // against 0.033 on 181,818 rows; the threshold did not matter there, 128
  // threads were up to 8 % faster than 256, and the best piece grew with
  // the split rows' entries: 2048 for 7.3·10⁵ of them (355 pieces), 16384
  // for 1.2·10⁷ (710 pieces; 4096 was 6 % slower, 2048 9 %), so about 512
  // pieces in all.  Power-law and R-MAT rows, whose other rows stay skewed,
  // ran 1-35 % slower split with `stream` for the rest than on merge_path
  // (Maragal_6, rmat:20:8, powerlaw at 2.5·10⁵-4·10⁶ rows): they stay whole.
  t.split_row_min = 4096;
  t.split_piece_nnz = 16384;
  t.split_piece_nnz_min = 2048;
  t.split_target_pieces = 512;
  t.split_team_threads = 128;
  t.host_block_imbalance_max = 0;
  t.host_merge_segments_per_thread = 0;
  // SELL spill: 16 lanes per piece of at most 128 entries, eight pieces a
  // team.  Measured (perf_spmv --sweep 1 on an H200, sell:32:4096 with the
  // default spill width; powerlaw at 2.5·10⁵ and 10⁶ rows, rmat:20,
  // wiki-Vote, p2p-Gnutella04; benchmarks/cuda_h200/perf_spmv_formats_sweep
  // .json): 128 × 16 was the fastest or within 5 % of it on each (powerlaw:
  // 1000000 0.103 ms); 512 × 32 up to 1.08× slower, pieces of 2048 up to
  // 1.6×, a piece per row (a hub row of 3·10⁴ entries on one lane group) up
  // to 7×.
  t.sell_spill_chunk_nnz = 128;
  t.sell_spill_lanes = 16;
  t.sell_spill_team_threads = 128;
  // SELL spill width.  A slice is as slow as its longest row, while the
  // spill's pieces run on lane groups.  Measured (perf_spmv --sweep 1 on an
  // H200, sell:32:4096, widths 16-256): power-law and R-MAT matrices of
  // 2.5·10⁵-10⁶ rows (mean 8, 2-8 entries per resident thread) ran fastest
  // at 64 (up to 1.6× faster than at 16 or 256); wiki-Vote and
  // p2p-Gnutella04 (10⁴ rows, under one entry per resident thread) at 16
  // (wiki-Vote 25 µs against 41 at 8 × the mean), where the GPU holds every
  // row at once and the widest slice's chain of loads is the product's time.
  // Eight entries per resident thread sets the cap between them.
  t.sell_spill_width_per_mean = 8;
  t.sell_spill_width_min = 32;
  t.sell_spill_width_per_resident = 8;
  t.sell_spill_width_small = 16;
  // Lanes per row of the formats' kernels.  Measured (perf_spmv --sweep 1
  // --formats ell,bsr:3,sell:32:4096 on an H200, lanes 1-16;
  // benchmarks/cuda_h200/perf_spmv_formats_sweep.json):
  //  - BSR 3: 4 lanes on fem:51:3:27 (81 stored entries a row: 98 µs against
  //    116 with one), 2 on the 27-point stencils (695 µs against 830 on
  //    stencil27:160), one on the 7-point stencil; lanes read consecutive
  //    blocks, so a warp's loads are whole runs of values.  About 16 entries
  //    a lane fits the three.
  //  - ELL and SELL: one lane on every FEM and stencil matrix (with 2 lanes
  //    ELL ran 1.2-1.9× slower, SELL up to 1.6×: a lane's slots lie a column
  //    apart).  Only a matrix whose rows all fit on the device at once gains,
  //    its time being its longest row's chain of loads: p2p-Gnutella04 in ELL
  //    (10⁴ rows, width 100) ran 14.5 µs with 8 lanes against 36 with one.
  //    SELL's slices are no wider than its spill width, and 2 lanes were as
  //    fast or slower on every matrix of the sweep (within 6 % on the
  //    10⁴-row graphs): one lane.
  t.format_max_lanes = 8;
  t.bsr_min_entries_per_lane = 16;
  t.padded_min_slots_per_lane = 8;
  t.padded_max_waves = 1;
  // Reasoning, not swept: the lane kernels' teams as `vector`'s (256 threads).
  t.format_team_threads = 256;
  return t;
}

/// Any other GPU: the sm_90 values, measured on nothing else yet.
inline SpmvTuning spmv_tuning_gpu_generic() { return spmv_tuning_cuda_sm90(); }

/// CUDA policy by compute capability (major · 10 + minor).
inline SpmvTuning spmv_tuning_cuda(int compute_capability) {
  if (compute_capability >= 90) return spmv_tuning_cuda_sm90();
  return spmv_tuning_gpu_generic();
}

namespace Impl {

#if defined(KOKKOS_ENABLE_CUDA)
/// The compute capability of `space`'s device, looked up once per device.
inline int cuda_compute_capability(const Kokkos::Cuda& space) {
  static std::atomic<int> cache[64] = {};
  const int dev = space.cuda_device();
  const bool cached = dev >= 0 && dev < 64;
  if (cached) {
    const int c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) return c;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  const int cc = major * 10 + minor;
  if (cached) cache[dev].store(cc, std::memory_order_relaxed);
  return cc;
}
#endif

}  // namespace Impl

/// The policy for `space`: host spaces, CUDA by compute capability, any other
/// GPU backend the generic entry.
template <class ExecSpace>
SpmvTuning spmv_tuning(const ExecSpace& space) {
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    (void)space;
    return spmv_tuning_host();
  }
#if defined(KOKKOS_ENABLE_CUDA)
  else if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    return spmv_tuning_cuda(Impl::cuda_compute_capability(space));
  }
#endif
  else {
    (void)space;
    return spmv_tuning_gpu_generic();
  }
}

namespace Impl {

/// The SELL spill's launch values: the options' tuning where it sets them
/// (> 0), else the backend's policy.
struct SellSpillTuning {
  long long chunk_nnz = 1;
  int lanes = 1, team_threads = 1;
};
template <class ExecSpace>
SellSpillTuning sell_spill_tuning(const ExecSpace& space, const SpmvOptions& options) {
  const SpmvTuning policy = spmv_tuning(space);
  const SpmvTuning& asked = options.tuning ? *options.tuning : policy;
  const auto pick = [](auto a, auto p) { return std::max<decltype(p)>(1, a > 0 ? a : p); };
  return {pick(asked.sell_spill_chunk_nnz, policy.sell_spill_chunk_nnz),
          pick(asked.sell_spill_lanes, policy.sell_spill_lanes),
          pick(asked.sell_spill_team_threads, policy.sell_spill_team_threads)};
}

/// The formats' lane values (format_max_lanes ... format_team_threads): the
/// options' tuning where it sets them (> 0), else the backend's policy.
template <class ExecSpace>
SpmvTuning format_lane_tuning(const ExecSpace& space, const SpmvOptions& options) {
  SpmvTuning t = spmv_tuning(space);
  if (!options.tuning) return t;
  const SpmvTuning& a = *options.tuning;
  const auto keep = [](auto& value, const auto asked) {
    if (asked > 0) value = asked;
  };
  keep(t.format_max_lanes, a.format_max_lanes);
  keep(t.bsr_min_entries_per_lane, a.bsr_min_entries_per_lane);
  keep(t.padded_min_slots_per_lane, a.padded_min_slots_per_lane);
  keep(t.padded_max_waves, a.padded_max_waves);
  keep(t.format_team_threads, a.format_team_threads);
  return t;
}

/// Threads the device keeps resident at once (GPUs: multiprocessors × their
/// thread slots), the unit of padded_max_waves and of the SELL spill cap.
template <class ExecSpace>
long long resident_threads(const ExecSpace& space) {
  return std::max<long long>(1, space.concurrency());
}

/// csr_to_sell's default spill width on `space` for a matrix of `rows` rows
/// and `nnz` entries (SpmvTuning::sell_spill_width_*).
template <class ExecSpace>
long long sell_spill_width(const ExecSpace& space, const SpmvTuning& t, long long rows,
                           long long nnz) {
  const double mean = rows > 0 ? double(nnz) / double(rows) : 0.0;
  double w = std::max(double(t.sell_spill_width_min), t.sell_spill_width_per_mean * mean);
  if (t.sell_spill_width_per_resident > 0)
    w = std::min(w, std::max(double(t.sell_spill_width_small),
                             t.sell_spill_width_per_resident * double(nnz) /
                                 double(resident_threads(space))));
  return w > 9.0e18 ? std::numeric_limits<long long>::max() : std::max(1LL, (long long)w);
}

/// The formats whose GPU row kernels take lanes (format_lanes).
enum class FormatKernel { Bsr, Ell, Sell };

/// Lanes per row for a format's GPU row kernel (normal mode): `rows` rows of
/// `entries_per_row` stored entries (BSR: a row's share of its blocks; ELL:
/// the width) on a device of `resident` threads (SpmvTuning's format
/// fields).
inline int format_row_lanes(const SpmvTuning& t, FormatKernel kind, long long rows,
                            double entries_per_row, long long resident) {
  int lanes = 1;
  const auto more = [&](const int next) {
    switch (kind) {
      case FormatKernel::Bsr:
        return entries_per_row / next >= t.bsr_min_entries_per_lane;
      case FormatKernel::Ell:
        return entries_per_row / next >= t.padded_min_slots_per_lane &&
               double(rows) * next <= t.padded_max_waves * double(resident);
      case FormatKernel::Sell:
        return false;
    }
    return false;
  };
  while (lanes < t.format_max_lanes && more(2 * lanes)) lanes *= 2;
  return lanes;
}

/// Smallest power of two ≥ v, clamped to [lo, hi].
inline int pow2_at_least(double v, int lo, int hi) {
  int p = std::max(1, lo);
  while (p < hi && p < v) p *= 2;
  return std::min(p, std::max(1, hi));
}

/// Whether the rows are skewed enough that row-parallel kernels leave most
/// threads waiting on a few long rows.
inline bool spmv_is_skewed(const SpmvTuning& t, const SpmvRowStats& s) {
  return s.max_length > t.skew_min_longest &&
         double(s.max_length) > t.skew_ratio * std::max(s.mean, 1.0);
}

/// Whether a plan with options `opt` on a host (or GPU) space splits the rows
/// of more than t.split_row_min entries (s: the whole matrix's statistics).
/// Throws when the options ask for a split their algorithm cannot take.
inline bool spmv_wants_split(const SpmvTuning& t, const SpmvOptions& opt, const SpmvRowStats& s,
                             bool host) {
  const bool takes =
      opt.algorithm == SpmvAlgorithm::Auto || opt.algorithm == SpmvAlgorithm::Scalar ||
      opt.algorithm == SpmvAlgorithm::Vector || opt.algorithm == SpmvAlgorithm::Stream;
  switch (opt.long_rows) {
    case SpmvLongRows::Keep:
      return false;
    case SpmvLongRows::Split:
      if (!takes)
        throw Error(std::string("spmv: long_rows = split works with the auto, scalar, vector and "
                                "stream algorithms, not ") +
                    to_string(opt.algorithm));
      return s.max_length > std::max(0LL, t.split_row_min);
    case SpmvLongRows::Auto:
      return takes && !host && t.split_row_min > 0 && s.max_length > t.split_row_min &&
             spmv_is_skewed(t, s);
  }
  return false;
}

/// Lanes per row for `vector` on a GPU: a full group for skewed rows, else
/// about entries_per_lane entries of a mean row per lane.
inline int spmv_lanes(const SpmvTuning& t, const SpmvRowStats& s, bool have_stats) {
  // A zero max_lanes (an all-zero or host policy) still gives one lane.
  if (have_stats && spmv_is_skewed(t, s)) return std::max(1, t.max_lanes);
  return pow2_at_least(s.mean / std::max(t.entries_per_lane, 1e-9), t.min_lanes, t.max_lanes);
}

/// Lanes per row of `stream`'s scratch reduction: about
/// stream_entries_per_lane entries of a mean row each.
inline int spmv_stream_lanes(const SpmvTuning& t, const SpmvRowStats& s) {
  return pow2_at_least(s.mean / std::max(t.stream_entries_per_lane, 1e-9), 1,
                       std::max(1, t.stream_max_lanes));
}

/// The GPU algorithm for the row-length class of s (have_stats: max and
/// stddev known, not only the mean).
inline SpmvAlgorithm spmv_gpu_class(const SpmvTuning& t, const SpmvRowStats& s, bool have_stats) {
  if (have_stats && spmv_is_skewed(t, s))
    return s.max_length <= t.wide_row_max_longest ? SpmvAlgorithm::Vector
                                                  : SpmvAlgorithm::MergePath;
  // Scattered columns (few of a row's lines of x shared with the previous
  // row): neighbouring rows in a warp do not share x's cache lines, and
  // stream's coalesced loads keep more gathers in flight than one thread or
  // lane group per row.
  if (have_stats && s.mean <= t.stream_max_mean && s.neighbour_share < t.stream_max_neighbour_share)
    return SpmvAlgorithm::Stream;
  const bool regular = !have_stats || s.cv() <= t.scalar_max_cv;
  if (s.mean <= t.scalar_max_mean && regular) return SpmvAlgorithm::Scalar;
  // stream needs its row blocks, which only a plan (have_stats) has cut.
  if (have_stats && s.mean <= t.stream_max_mean && s.cv() > t.stream_min_cv)
    return SpmvAlgorithm::Stream;
  return SpmvAlgorithm::Vector;
}

/// Whether automatic keeps a split chosen on the whole matrix's statistics
/// once the other rows' statistics (kept) are known: not when those would
/// still take merge_path on a GPU (their skew is merge_path's to balance).
inline bool spmv_keeps_split(const SpmvTuning& t, const SpmvOptions& opt, const SpmvRowStats& kept,
                             bool host) {
  if (opt.long_rows != SpmvLongRows::Auto || opt.algorithm != SpmvAlgorithm::Auto || host)
    return true;
  return spmv_gpu_class(t, kept, true) != SpmvAlgorithm::MergePath;
}

/// Entries a piece of the split rows (split_nnz entries in all) takes.
inline long long spmv_split_piece_nnz(const SpmvTuning& t, long long split_nnz) {
  const long long most = std::max(1LL, t.split_piece_nnz);
  if (t.split_target_pieces <= 0) return most;
  const long long least = std::min(most, std::max(1LL, t.split_piece_nnz_min));
  long long p = least;
  while (p < most && double(p) * t.split_target_pieces < double(split_nnz)) p *= 2;
  return std::min(p, most);
}

/// Whether contiguous row blocks of about (rows + nnz) / blocks items each are
/// balanced enough by the statistics alone: a block overshoots its share by
/// at most one row, so a longest row of an eighth of a share is enough.
inline bool spmv_host_rows_balance(const SpmvTuning& t, const SpmvRowStats& s, long long blocks) {
  const double share = double(s.num_rows + s.nnz) / double(std::max(1LL, blocks));
  return double(s.max_length + 1) <= (t.host_block_imbalance_max - 1.0) * share;
}

/// The tuning in force: the options' override or the backend's policy.
template <class ExecSpace>
SpmvTuning spmv_tuning_for(const ExecSpace& space, const SpmvOptions& opt) {
  return opt.tuning ? *opt.tuning : spmv_tuning(space);
}

/// Resolves options + statistics (have_stats: max/stddev known, not only the
/// mean; split: the statistics are of the rows a long-row split leaves) into
/// a launch for ExecSpace.  On host spaces SpmvPlan and the
/// plan-less path refine `automatic` with the real row blocks
/// (spmv_host_row_blocks, against host_block_imbalance_max).
template <class ExecSpace>
SpmvLaunch spmv_choose(const ExecSpace& space, const SpmvOptions& opt, const SpmvRowStats& s,
                       bool have_stats, bool split = false) {
  constexpr bool host = is_host_space_v<ExecSpace>;
  const SpmvTuning t = spmv_tuning_for(space, opt);
  SpmvLaunch L;
  L.algorithm = opt.algorithm;
  if (L.algorithm == SpmvAlgorithm::Auto) {
    if constexpr (host) {
      L.algorithm = split || (have_stats && spmv_host_rows_balance(t, s, concurrency(space)))
                        ? SpmvAlgorithm::Scalar
                        : SpmvAlgorithm::MergePath;
    } else {
      L.algorithm = spmv_gpu_class(t, s, have_stats);
      // A split asked for on rows that stay skewed (automatic keeps those
      // whole): stream, whose blocks take any lengths; merge_path and
      // dynamic would sum the split rows again.
      if (split && L.algorithm == SpmvAlgorithm::MergePath) L.algorithm = SpmvAlgorithm::Stream;
    }
  }
  const long long items = s.num_rows + s.nnz;
  if (L.algorithm == SpmvAlgorithm::Stream) {
    // A team of lane groups per block of whole rows, the same shape on every
    // space; the row blocks themselves are cut by SpmvPlan (num_segments).
    L.vector_length = opt.vector_length > 0 ? opt.vector_length : spmv_stream_lanes(t, s);
    L.team_size = opt.team_size > 0
                      ? opt.team_size
                      : std::max(1, std::max(1, t.stream_team_threads) / L.vector_length);
    L.stream_block_nnz = std::max(1, t.stream_block_nnz);
    return L;
  }
  if constexpr (host) {
    // Lanes are the row loop's partial sums on the CPU; a thread is a block.
    L.vector_length = 1;
    L.team_size = opt.team_size > 0 ? opt.team_size : 1;
    L.rows_per_thread = 1;
    L.row_blocks = std::max(1, concurrency(space));
    const long long segs =
        static_cast<long long>(std::max(1, t.host_merge_segments_per_thread)) * L.row_blocks;
    L.merge_path_items =
        opt.merge_path_items > 0 ? opt.merge_path_items : std::max(1LL, (items + segs - 1) / segs);
  } else {
    const int lanes = spmv_lanes(t, s, have_stats);
    L.vector_length = opt.vector_length > 0 ? opt.vector_length : lanes;
    L.team_size =
        opt.team_size > 0 ? opt.team_size : std::max(1, t.vector_team_threads / L.vector_length);
    // Zero knobs (say, a host policy handed to a GPU space) give one row per
    // group and one item per merge-path thread, never a division by zero.
    const double by_work = t.nnz_per_team / std::max(s.mean, 1.0) / L.team_size;
    const double by_fill = double(s.num_rows) / (std::max(t.min_teams, 1.0) * L.team_size);
    L.rows_per_thread = std::max(1, std::min(std::max(1, t.max_rows_per_group),
                                             static_cast<int>(std::min(by_work, by_fill))));
    // merge_path: one tile of team_size × items per team, staged in scratch.
    if (opt.team_size <= 0 && L.algorithm == SpmvAlgorithm::MergePath)
      L.team_size = std::max(1, t.merge_path_team_size);
    long long per_thread =
        opt.merge_path_items > 0 ? opt.merge_path_items : t.merge_path_items_per_thread;
    per_thread = std::min<long long>(per_thread, std::max(1, t.merge_path_tile_max / L.team_size));
    L.merge_path_items = std::max(1LL, per_thread) * L.team_size;
  }
  if (L.algorithm == SpmvAlgorithm::Dynamic) {
    // Rows a lane group takes per draw (a team draws for all its groups).
    // Host: a thread per core taking 128 rows at a time (a few hundred draws
    // per thread); GPUs: lanes per row as for vector, 4 rows a group.  With
    // one draw per lane group (and Kokkos' CAS-loop 64-bit atomic) SpMV took
    // 0.9–10 s on an H200 for 0.4–1 M rows; one draw per team cuts the draws
    // by the team's group count (16–128).  Not re-measured; `Auto` never
    // picks Dynamic.
    L.rows_per_thread = host ? 128 : 4;
  }
  L.num_segments = items == 0 ? 0 : (items + L.merge_path_items - 1) / L.merge_path_items;
  return L;
}

}  // namespace Impl
}  // namespace spk
