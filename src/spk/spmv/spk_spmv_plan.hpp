// SpmvPlan: what spk::spmv learns about a CSR matrix once (row-length
// statistics, the algorithm and launch shape they select, scratch for
// merge-path carries) so that repeated products on that matrix cost one
// kernel launch and no host-device synchronisation or allocation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <impl/spk_spmv_plan_impl.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_spmv_options.hpp>
#include <spk_spmv_tuning.hpp>
#include <string>

namespace spk {

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
    // Only GPU plans choose by the neighbour share, and only `auto` reads it
    // (host spaces cut row blocks).
    if constexpr (!Impl::is_host_space_v<ExecSpace>)
      if (options.algorithm == SpmvAlgorithm::Auto)
        stats_.neighbour_share =
            Impl::spmv_neighbour_share(space, A.row_map(), A.col_idx(), A.num_rows());
    // Rows far longer than the rest are split into pieces (SpmvLongRows);
    // the algorithm for the others is chosen from their own statistics.
    const SpmvTuning tuning = Impl::spmv_tuning_for(space, options);
    constexpr bool host = Impl::is_host_space_v<ExecSpace>;
    bool split = Impl::spmv_wants_split(tuning, options, stats_, host);
    const long long split_min = std::max(0LL, tuning.split_row_min);
    SpmvRowStats kept = stats_;
    if (split) {
      kept = Impl::spmv_row_stats_up_to(space, A, split_min);
      kept.neighbour_share = stats_.neighbour_share;
      split = Impl::spmv_keeps_split(tuning, options, kept, host);
      if (!split) kept = stats_;
    }
    launch_ = Impl::spmv_choose(space, options, kept, true, split);
    split_ = {};
    if (split) {
      const long long piece = Impl::spmv_split_piece_nnz(tuning, stats_.nnz - kept.nnz);
      split_ = Impl::spmv_split_rows<ordinal_type, offset_type>(space, A.row_map(), A.num_rows(),
                                                                split_min, piece);
      launch_.split_row_min = split_min;
      launch_.split_piece_nnz = piece;
      launch_.split_team_size = std::max(1, tuning.split_team_threads);
      launch_.split_rows = static_cast<long long>(split_.rows.extent(0));
      launch_.split_pieces = split_.pieces;
    }
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
        if (options.algorithm == SpmvAlgorithm::Auto && !split)
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
      segment_rows_ = Impl::spmv_merge_path_starts<ordinal_type>(space, A.row_map(), A.num_rows(),
                                                                 A.nnz(), segs, items);
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

  /// The long-row split: the split rows in order and where each one's pieces
  /// start (empty when no row is split; launch().split_* has the counts).
  Kokkos::View<ordinal_type*, memory_space> split_rows() const { return split_.rows; }
  Kokkos::View<offset_type*, memory_space> split_piece_starts() const {
    return split_.piece_starts;
  }

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
           a.long_rows == b.long_rows && a.tuning == b.tuning;
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
  Impl::SpmvSplitRows<ordinal_type, offset_type, memory_space> split_;
};

template <class ExecSpace, class Matrix,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
SpmvPlan(const ExecSpace&, const Matrix&, const SpmvOptions&) -> SpmvPlan<Matrix>;
template <class ExecSpace, class Matrix,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
SpmvPlan(const ExecSpace&, const Matrix&) -> SpmvPlan<Matrix>;

}  // namespace spk
