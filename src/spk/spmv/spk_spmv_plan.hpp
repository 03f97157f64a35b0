// SpmvPlan: what spk::spmv learns about a CSR matrix once (row-length
// statistics, the algorithm and launch shape they select, scratch for
// merge-path carries) so that repeated products on that matrix cost one
// kernel launch and no host-device synchronisation or allocation.
#pragma once

#include <cmath>
#include <cstdint>
#include <impl/spk_row_blocks.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_spmv_options.hpp>
#include <spk_spmv_tuning.hpp>
#include <string>

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
Kokkos::View<Ordinal*, typename RowMap::memory_space> spmv_stream_blocks(const ExecSpace& space,
                                                                         const RowMap& row_map,
                                                                         long long num_rows,
                                                                         long long h) {
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

/// Full row-length statistics (three reductions, one synchronisation).
template <class ExecSpace, class Matrix>
SpmvRowStats spmv_row_stats(const ExecSpace& space, const Matrix& A) {
  SpmvRowStats s = spmv_cheap_stats(A);
  if (s.num_rows == 0) return s;
  using F = typename Matrix::offset_type;
  auto row_map = A.row_map();
  const double mean = s.mean;
  F max_len = 0;
  double var = 0;
  long long empty = 0;
  Kokkos::RangePolicy<ExecSpace> policy(space, 0, A.num_rows());
  Kokkos::parallel_reduce(
      "spk::spmv_row_stats.max", policy,
      KOKKOS_LAMBDA(const long long i, F& m) {
        const F len = row_map(i + 1) - row_map(i);
        if (len > m) m = len;
      },
      Kokkos::Max<F>(max_len));
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

}  // namespace Impl

/// A reusable plan for y = αAx + βy with one CSR matrix (Kokkos Kernels'
/// handle idea, kept small).  Built once (row statistics: one synchronising
/// pass over row_map); spmv(space, plan, ...) then launches the chosen kernel
/// with the plan's scratch and never allocates or synchronises.  The plan is
/// keyed on A's row_map pointer and sizes: handed another matrix, it
/// recomputes itself (so prefer one plan per matrix).
template <class Matrix>
class SpmvPlan {
 public:
  using matrix_type = Matrix;
  using scalar_type = std::remove_const_t<typename Matrix::scalar_type>;
  using ordinal_type = typename Matrix::ordinal_type;
  using offset_type = typename Matrix::offset_type;
  using execution_space = typename Matrix::execution_space;
  using memory_space = typename Matrix::memory_space;

  SpmvPlan() = default;

  template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
  SpmvPlan(const ExecSpace& space, const Matrix& A, const SpmvOptions& options = {}) {
    prepare(space, A, options);
  }
  explicit SpmvPlan(const Matrix& A, const SpmvOptions& options = {})
      : SpmvPlan(execution_space(), A, options) {}

  /// (Re)computes statistics and launch shape for A (no-op when the plan is
  /// already for A with these options).
  template <class ExecSpace>
  void prepare(const ExecSpace& space, const Matrix& A, const SpmvOptions& options) {
    if (matches(A) && same(options, options_)) return;
    options_ = options;
    stats_ = Impl::spmv_row_stats(space, A);
    launch_ = Impl::spmv_choose(space, options, stats_, true);
    segment_rows_ = {};
    if constexpr (Impl::is_host_space_v<ExecSpace>) {
      // Host scalar and vector run row blocks: find them once; automatic
      // takes them when no block holds more than host_block_imbalance_max of
      // its share, else merge_path.
      const bool blocks_wanted = options.algorithm == SpmvAlgorithm::Auto ||
                                 options.algorithm == SpmvAlgorithm::Scalar ||
                                 options.algorithm == SpmvAlgorithm::Vector;
      if (blocks_wanted && A.num_rows() > 0) {
        space.fence();
        Kokkos::View<ordinal_type*, memory_space> blocks(
            Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.row_blocks"),
            launch_.row_blocks + 1);
        const double imbalance = Impl::spmv_host_row_blocks(A.row_map(), A.num_rows(), A.nnz(),
                                                            launch_.row_blocks, blocks);
        if (options.algorithm == SpmvAlgorithm::Auto)
          launch_.algorithm =
              imbalance <= Impl::spmv_tuning_for(space, options).host_block_imbalance_max
                  ? SpmvAlgorithm::Scalar
                  : SpmvAlgorithm::MergePath;
        if (launch_.algorithm != SpmvAlgorithm::MergePath) segment_rows_ = blocks;
      }
    }
    if (launch_.algorithm == SpmvAlgorithm::Stream) {
      launch_.stream_block_nnz =
          Impl::spmv_stream_chunk<ExecSpace, scalar_type>(launch_.stream_block_nnz);
      segment_rows_ = Impl::spmv_stream_blocks<ordinal_type>(space, A.row_map(), A.num_rows(),
                                                             launch_.stream_block_nnz);
      launch_.num_segments = static_cast<long long>(segment_rows_.extent(0)) - 1;
    }
    if (launch_.algorithm == SpmvAlgorithm::MergePath && launch_.num_segments > 0) {
      // Where each merge-path segment starts, once: the kernel then reads two
      // numbers instead of running two binary searches per thread.
      const long long segs = launch_.num_segments, items = launch_.merge_path_items;
      const long long rows = A.num_rows(), nnz = A.nnz();
      auto row_map = A.row_map();
      Kokkos::View<ordinal_type*, memory_space> starts(
          Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.segment_rows"), segs + 1);
      Kokkos::parallel_for(
          "spk::SpmvPlan.merge_path_partition", Kokkos::RangePolicy<ExecSpace>(space, 0, segs + 1),
          KOKKOS_LAMBDA(const long long t) {
            const long long d = t * items < rows + nnz ? t * items : rows + nnz;
            starts(t) = static_cast<ordinal_type>(Impl::merge_path_search(row_map, rows, nnz, d));
          });
      segment_rows_ = starts;
    }
    key_row_map_ = A.row_map().data();
    key_rows_ = A.num_rows();
    key_cols_ = A.num_cols();
    key_nnz_ = A.nnz();
    valid_ = true;
  }

  /// Whether this plan was made for A (same row_map storage and sizes).
  bool matches(const Matrix& A) const {
    return valid_ && key_row_map_ == A.row_map().data() && key_rows_ == A.num_rows() &&
           key_cols_ == A.num_cols() && key_nnz_ == A.nnz();
  }

  const SpmvRowStats& stats() const { return stats_; }
  const SpmvLaunch& launch() const { return launch_; }
  const SpmvOptions& options() const { return options_; }
  /// The algorithm `automatic` (or the options) resolved to.
  SpmvAlgorithm algorithm() const { return launch_.algorithm; }

  /// Dynamic: the row counter the lane groups draw from (reset by each
  /// product).
  Kokkos::View<unsigned long long*, memory_space> dynamic_counter() {
    if (dynamic_counter_.extent(0) == 0)
      dynamic_counter_ =
          Kokkos::View<unsigned long long*, memory_space>("spk::SpmvPlan.dynamic_counter", 1);
    return dynamic_counter_;
  }
  /// Lanes per row of the vector kernel and of stream's scratch reduction (1
  /// for the others and for vector on host spaces, where a thread takes a
  /// block of rows).
  int lanes() const {
    return launch_.algorithm == SpmvAlgorithm::Vector || launch_.algorithm == SpmvAlgorithm::Stream
               ? launch_.vector_length
               : 1;
  }
  /// The launch in words, e.g. "vector lanes=8 groups=32 rows/group=4".
  std::string describe() const { return to_string(launch_); }

  /// Merge-path carry scratch for num_vecs right-hand sides (allocated on
  /// first use, then reused).
  Kokkos::View<ordinal_type*, memory_space> carry_rows() { return carry_rows_; }
  /// merge_path: the row at which each segment starts (num_segments + 1);
  /// scalar on host spaces: the first row of each row block (row_blocks + 1);
  /// stream: the first row of each block (num_segments + 1).
  Kokkos::View<ordinal_type*, memory_space> segment_rows() const { return segment_rows_; }
  Kokkos::View<scalar_type**, Kokkos::LayoutLeft, memory_space> carry_values(size_t num_vecs) {
    const size_t segs = static_cast<size_t>(launch_.num_segments);
    if (carry_values_.extent(0) != segs || carry_values_.extent(1) < num_vecs) {
      carry_rows_ = Kokkos::View<ordinal_type*, memory_space>(
          Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.carry_rows"), segs);
      carry_values_ = Kokkos::View<scalar_type**, Kokkos::LayoutLeft, memory_space>(
          Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.carry_values"), segs, num_vecs);
    }
    return carry_values_;
  }

 private:
  static bool same(const SpmvOptions& a, const SpmvOptions& b) {
    return a.algorithm == b.algorithm && a.vector_length == b.vector_length &&
           a.team_size == b.team_size && a.merge_path_items == b.merge_path_items &&
           a.tuning == b.tuning;
  }

  bool valid_ = false;
  SpmvOptions options_;
  SpmvRowStats stats_;
  SpmvLaunch launch_;
  const void* key_row_map_ = nullptr;
  long long key_rows_ = -1, key_cols_ = -1, key_nnz_ = -1;
  Kokkos::View<ordinal_type*, memory_space> carry_rows_;
  Kokkos::View<ordinal_type*, memory_space> segment_rows_;
  Kokkos::View<scalar_type**, Kokkos::LayoutLeft, memory_space> carry_values_;
  Kokkos::View<unsigned long long*, memory_space> dynamic_counter_;
};

template <class ExecSpace, class Matrix,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
SpmvPlan(const ExecSpace&, const Matrix&, const SpmvOptions&) -> SpmvPlan<Matrix>;
template <class ExecSpace, class Matrix,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
SpmvPlan(const ExecSpace&, const Matrix&) -> SpmvPlan<Matrix>;

}  // namespace spk
