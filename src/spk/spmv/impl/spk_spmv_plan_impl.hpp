// The passes SpmvPlan runs once per matrix (spk_spmv_plan.hpp): row
// statistics, host row blocks, stream blocks and merge-path partitions.
#pragma once

#include <cmath>
#include <cstdint>
#include <impl/spk_row_blocks.hpp>
#include <limits>
#include <spk_spmv_options.hpp>
#include <spk_spmv_tuning.hpp>

namespace spk {
namespace Impl {

/// Fills starts(0..blocks) with the row blocks' first rows (host-accessible
/// row_map) and returns the largest block's rows + nonzeros over the mean
/// share (1 = perfectly balanced).
template <class RowMap, class Starts>
double spmv_host_row_blocks(const RowMap& row_map, long long num_rows, long long nnz,
                            long long blocks, const Starts& starts) {
  double worst = 0;
  for (long long t = 0; t <= blocks; ++t) {
    starts(t) = static_cast<typename Starts::non_const_value_type>(
        row_block_start(row_map, num_rows, nnz, t, blocks));
    if (t > 0) {
      const long long r0 = starts(t - 1), r1 = starts(t);
      const double work = double(r1 - r0) + double(row_map(r1) - row_map(r0));
      worst = std::max(worst, work);
    }
  }
  const double total = double(num_rows + nnz);
  return total > 0 ? worst * double(blocks) / total : 1.0;
}

/// `stream`'s chunk h for scalar type S on ExecSpace: the asked-for value,
/// lowered so that a block's scratch (2h products) fits a team's level-0
/// scratch.
template <class ExecSpace, class S>
long long spmv_stream_chunk(long long asked) {
  const long long room = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  const long long fit = room / (2 * static_cast<long long>(sizeof(S))) - 16;
  return std::max(1LL, std::min(asked, fit));
}

/// Whether row i starts a `stream` block of chunk h (see spmv_stream_blocks).
template <class RowMap>
KOKKOS_INLINE_FUNCTION bool spmv_stream_block_starts(const RowMap& row_map, long long i,
                                                     long long h) {
  if (i == 0) return true;
  const long long a = row_map(i - 1), b = row_map(i), c = row_map(i + 1);
  return c - b > h || b - a > h || a / h != b / h;
}

/// `stream`'s row blocks, cut once in O(rows) on `space` (a count, then a
/// scan): row i starts a block when it is the first row, when it or the row
/// before it has more than h entries (such a row is a block of its own,
/// which the kernel sums as a team straight from global memory), or when its
/// first entry lies in another chunk of h nonzeros than the previous row's.
/// The rows of a block then start within one chunk and the last has at most
/// h entries, so a block of short rows holds fewer than 2h nonzeros (the
/// kernel's scratch).  Returns the block starts (blocks + 1, the last =
/// num_rows).
template <class Ordinal, class ExecSpace, class RowMap>
static Kokkos::View<Ordinal*, typename RowMap::memory_space> spmv_stream_blocks(
    const ExecSpace& space, const RowMap& row_map, long long num_rows, long long h) {
  using Blocks = Kokkos::View<Ordinal*, typename RowMap::memory_space>;
  h = std::max(1LL, h);
  long long count = 0;
  Kokkos::RangePolicy<ExecSpace> policy(space, 0, num_rows);
  Kokkos::parallel_reduce(
      "spk::SpmvPlan.stream_block_count", policy,
      KOKKOS_LAMBDA(const long long i, long long& c) {
        c += spmv_stream_block_starts(row_map, i, h) ? 1 : 0;
      },
      count);
  Blocks blocks(Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.stream_blocks"), count + 1);
  Kokkos::parallel_scan(
      "spk::SpmvPlan.stream_blocks", policy,
      KOKKOS_LAMBDA(const long long i, long long& pos, const bool final) {
        if (spmv_stream_block_starts(row_map, i, h)) {
          if (final) blocks(pos) = static_cast<Ordinal>(i);
          ++pos;
        }
        if (final && i + 1 == num_rows) blocks(count) = static_cast<Ordinal>(num_rows);
      });
  if (num_rows == 0) Kokkos::deep_copy(space, blocks, Ordinal(0));
  return blocks;
}

/// Statistics needing only the sizes (no kernel, no synchronisation).
template <class Matrix>
SpmvRowStats spmv_cheap_stats(const Matrix& A) {
  SpmvRowStats s;
  s.num_rows = A.num_rows();
  s.nnz = A.nnz();
  s.mean = s.num_rows > 0 ? double(s.nnz) / double(s.num_rows) : 0.0;
  s.max_length = s.nnz;
  return s;
}

/// The longest row of `row_map`'s n rows of at most `cap` entries (one
/// reduction, one synchronisation).
template <class ExecSpace, class RowMap>
static long long spmv_max_row_length(const ExecSpace& space, const RowMap& row_map, long long n,
                                     long long cap = std::numeric_limits<long long>::max()) {
  using F = typename RowMap::non_const_value_type;
  F max_len = 0;
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.max", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const long long i, F& m) {
        const F len = row_map(i + 1) - row_map(i);
        if (len > m && static_cast<long long>(len) <= cap) m = len;
      },
      Kokkos::Max<F>(max_len));
  return static_cast<long long>(max_len);
}

/// SpmvRowStats::neighbour_share of a CSR matrix: rows i = 1, 1 + stride,
/// ... (at most `samples` of them), each of its first `cap` entries counted
/// as shared when a column of row i − 1's first `cap` entries lies in the
/// same 8-column line.  O(samples · cap²), the rows' order and the columns'
/// order within rows do not matter.
template <class ExecSpace, class RowMap, class Cols>
static double spmv_neighbour_share(const ExecSpace& space, const RowMap& row_map, const Cols& cols,
                                   long long num_rows, long long samples = 65536,
                                   long long cap = 64) {
  if (num_rows < 2 || cap < 1) return 1.0;
  // Shared entries are counted in the high 32 bits of one sum, seen ones in
  // the low (Kokkos 3.4 has no multi-value reductions): at most 2³¹ of each.
  samples = std::max(1LL, std::min(samples, (1LL << 31) / cap));
  const long long stride = std::max(1LL, (num_rows - 1 + samples - 1) / samples);
  const long long count = (num_rows - 1 + stride - 1) / stride;
  long long packed = 0;
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.neighbour_share", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const long long t, long long& acc) {
        const long long i = 1 + t * stride;
        const long long p0 = row_map(i - 1), plen = row_map(i) - p0;
        const long long a0 = row_map(i), alen = row_map(i + 1) - a0;
        const long long p1 = p0 + (plen < cap ? plen : cap), a1 = a0 + (alen < cap ? alen : cap);
        for (long long a = a0; a < a1; ++a) {
          const long long line = static_cast<long long>(cols(a)) >> 3;
          bool hit = false;
          for (long long p = p0; p < p1 && !hit; ++p)
            hit = (static_cast<long long>(cols(p)) >> 3) == line;
          acc += (hit ? (1LL << 32) : 0LL) + 1;
        }
      },
      packed);
  const long long shared = packed >> 32, seen = packed & 0xffffffffLL;
  return seen > 0 ? double(shared) / double(seen) : 1.0;
}

/// Full row-length statistics (three reductions, one synchronisation).
template <class ExecSpace, class Matrix>
static SpmvRowStats spmv_row_stats(const ExecSpace& space, const Matrix& A) {
  SpmvRowStats s = spmv_cheap_stats(A);
  if (s.num_rows == 0) return s;
  using F = typename Matrix::offset_type;
  auto row_map = A.row_map();
  const double mean = s.mean;
  const long long max_len = spmv_max_row_length(space, row_map, s.num_rows);
  double var = 0;
  long long empty = 0;
  Kokkos::RangePolicy<ExecSpace> policy(space, 0, A.num_rows());
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.var", policy,
      KOKKOS_LAMBDA(const long long i, double& v) {
        const double d = double(row_map(i + 1) - row_map(i)) - mean;
        v += d * d;
      },
      var);
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.empty", policy,
      KOKKOS_LAMBDA(const long long i, long long& e) { e += row_map(i + 1) == row_map(i); }, empty);
  s.max_length = max_len;
  s.stddev = std::sqrt(var / double(s.num_rows));
  s.empty_rows = empty;
  return s;
}

/// The statistics of the rows of at most `cap` entries (the rows a split
/// leaves to the row kernels): rows, entries, mean, spread, longest and
/// empty rows of those alone; neighbour_share is left to the caller.
template <class ExecSpace, class Matrix>
static SpmvRowStats spmv_row_stats_up_to(const ExecSpace& space, const Matrix& A, long long cap) {
  SpmvRowStats s;
  const long long n = A.num_rows();
  if (n == 0) return s;
  auto row_map = A.row_map();
  Kokkos::RangePolicy<ExecSpace> policy(space, 0, n);
  long long rows = 0, nnz = 0;
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.kept_rows", policy,
      KOKKOS_LAMBDA(const long long i, long long& c) {
        c += static_cast<long long>(row_map(i + 1) - row_map(i)) <= cap;
      },
      rows);
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.kept_nnz", policy,
      KOKKOS_LAMBDA(const long long i, long long& c) {
        const long long len = static_cast<long long>(row_map(i + 1) - row_map(i));
        c += len <= cap ? len : 0;
      },
      nnz);
  s.num_rows = rows;
  s.nnz = nnz;
  s.mean = rows > 0 ? double(nnz) / double(rows) : 0.0;
  s.max_length = spmv_max_row_length(space, row_map, n, cap);
  const double mean = s.mean;
  double var = 0;
  long long empty = 0;
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.kept_var", policy,
      KOKKOS_LAMBDA(const long long i, double& v) {
        const long long len = static_cast<long long>(row_map(i + 1) - row_map(i));
        const double d = double(len) - mean;
        v += len <= cap ? d * d : 0.0;
      },
      var);
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.kept_empty", policy,
      KOKKOS_LAMBDA(const long long i, long long& e) { e += row_map(i + 1) == row_map(i); }, empty);
  s.stddev = rows > 0 ? std::sqrt(var / double(rows)) : 0.0;
  s.empty_rows = empty;
  return s;
}

/// The long-row split's lists: the rows of more than `cap` entries in order
/// (rows) and where each one's pieces of `piece` entries start
/// (piece_starts, one more than rows, the last = the number of pieces).
template <class Ordinal, class Offset, class MemorySpace>
struct SpmvSplitRows {
  Kokkos::View<Ordinal*, MemorySpace> rows;
  Kokkos::View<Offset*, MemorySpace> piece_starts;
  long long pieces = 0;
};

/// Finds the rows of more than `cap` entries of row_map's n rows and cuts
/// them into pieces of `piece` entries (a count, two scans, one
/// synchronisation).
template <class Ordinal, class Offset, class ExecSpace, class RowMap>
static SpmvSplitRows<Ordinal, Offset, typename RowMap::memory_space> spmv_split_rows(
    const ExecSpace& space, const RowMap& row_map, long long n, long long cap, long long piece) {
  using MS = typename RowMap::memory_space;
  SpmvSplitRows<Ordinal, Offset, MS> out;
  piece = std::max(1LL, piece);
  long long count = 0;
  Kokkos::RangePolicy<ExecSpace> policy(space, 0, n);
  Kokkos::parallel_reduce(
      "spk::SpmvPlan.split_count", policy,
      KOKKOS_LAMBDA(const long long i, long long& c) {
        c += static_cast<long long>(row_map(i + 1) - row_map(i)) > cap;
      },
      count);
  out.rows = Kokkos::View<Ordinal*, MS>(
      Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.split_rows"), count);
  out.piece_starts = Kokkos::View<Offset*, MS>(
      Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.split_piece_starts"), count + 1);
  if (count == 0) return out;
  const auto rows = out.rows;
  const auto starts = out.piece_starts;
  Kokkos::parallel_scan(
      "spk::SpmvPlan.split_rows", policy,
      KOKKOS_LAMBDA(const long long i, long long& pos, const bool final) {
        if (static_cast<long long>(row_map(i + 1) - row_map(i)) > cap) {
          if (final) rows(pos) = static_cast<Ordinal>(i);
          ++pos;
        }
      });
  long long pieces = 0;
  Kokkos::parallel_scan(
      "spk::SpmvPlan.split_piece_starts", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const long long r, long long& pos, const bool final) {
        const long long i = rows(r);
        const long long len = static_cast<long long>(row_map(i + 1) - row_map(i));
        if (final) starts(r) = static_cast<Offset>(pos);
        pos += (len + piece - 1) / piece;
        if (final && r + 1 == count) starts(count) = static_cast<Offset>(pos);
      },
      pieces);
  out.pieces = pieces;
  return out;
}

/// Where each of `segs` merge-path segments of `items` items starts (segs +
/// 1 rows, the last = num_rows).
template <class Ordinal, class ExecSpace, class RowMap>
static Kokkos::View<Ordinal*, typename RowMap::memory_space> spmv_merge_path_starts(
    const ExecSpace& space, const RowMap& row_map, long long rows, long long nnz, long long segs,
    long long items) {
  Kokkos::View<Ordinal*, typename RowMap::memory_space> starts(
      Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.segment_rows"), segs + 1);
  Kokkos::parallel_for(
      "spk::SpmvPlan.merge_path_partition", Kokkos::RangePolicy<ExecSpace>(space, 0, segs + 1),
      KOKKOS_LAMBDA(const long long t) {
        const long long d = t * items < rows + nnz ? t * items : rows + nnz;
        starts(t) = static_cast<Ordinal>(merge_path_search(row_map, rows, nnz, d));
      });
  return starts;
}

}  // namespace Impl
}  // namespace spk
