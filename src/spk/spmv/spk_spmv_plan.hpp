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
#include <string>

namespace spk {

/// How spmv spreads the work of a CSR product.
enum class SpmvAlgorithm {
  automatic,   ///< chosen from row-length statistics (see SpmvPlan)
  scalar,      ///< one thread per row
  vector,      ///< a group of vector lanes per row (CUSP's CSR-vector)
  merge_path,  ///< equal shares of rows + nonzeros per thread (Merrill & Garland)
  dynamic      ///< chunks of rows handed out through an atomic counter (LightSpMV)
};

/// Whether spmv multiplies by A or by its transpose.
enum class Mode { normal, transpose };

inline const char* to_string(SpmvAlgorithm a) {
  switch (a) {
    case SpmvAlgorithm::automatic:
      return "automatic";
    case SpmvAlgorithm::scalar:
      return "scalar";
    case SpmvAlgorithm::vector:
      return "vector";
    case SpmvAlgorithm::merge_path:
      return "merge_path";
    case SpmvAlgorithm::dynamic:
      return "dynamic";
  }
  return "?";
}

/// Parses "automatic", "scalar", "vector", "merge_path" or "dynamic"
/// (command lines).
inline SpmvAlgorithm spmv_algorithm_from_string(const std::string& s) {
  for (auto a : {SpmvAlgorithm::automatic, SpmvAlgorithm::scalar, SpmvAlgorithm::vector,
                 SpmvAlgorithm::merge_path, SpmvAlgorithm::dynamic})
    if (s == to_string(a)) return a;
  throw Error("spmv: unknown algorithm '" + s +
              "' (expected automatic, scalar, vector, merge_path or dynamic)");
}

/// Knobs of spk::spmv.  Zeros mean "choose for me".
struct SpmvOptions {
  SpmvAlgorithm algorithm = SpmvAlgorithm::automatic;
  Mode mode = Mode::normal;
  int vector_length = 0;     ///< vector, dynamic: lanes per row (power of two)
  int team_size = 0;         ///< vector: lane groups per team; merge_path (GPU): threads per team
  int merge_path_items = 0;  ///< merge_path: rows + nonzeros per thread
};

/// Row-length statistics of a CSR matrix.
struct SpmvRowStats {
  long long num_rows = 0;
  long long nnz = 0;
  double mean = 0;           ///< nnz / num_rows
  double stddev = 0;         ///< of the row lengths
  long long max_length = 0;  ///< longest row
  long long empty_rows = 0;
};

/// The concrete choice an spmv call runs with (never automatic).
struct SpmvLaunch {
  SpmvAlgorithm algorithm = SpmvAlgorithm::scalar;
  int vector_length = 1;
  int team_size = 1;
  int rows_per_thread = 1;         ///< vector: rows per lane group; dynamic: rows per
                                   ///< counter increment
  long long merge_path_items = 0;  ///< merge_path: items per segment (host: per thread,
                                   ///< GPU: per team tile)
  long long num_segments = 0;      ///< merge_path segments
  long long row_blocks = 0;        ///< scalar on host spaces: contiguous row blocks, one
                                   ///< per thread
};

namespace Impl {

inline int pow2_ceil(double v, int cap) {
  int p = 1;
  while (p < cap && p < v) p *= 2;
  return p;
}

/// Whether the rows are skewed enough that row-parallel kernels leave most
/// threads waiting on a few long rows.
inline bool spmv_is_skewed(const SpmvRowStats& s) {
  return s.max_length > 64 && s.max_length > 16 * std::max(s.mean, 1.0);
}

/// Host scalar: most rows + nonzeros one row block may hold over the mean
/// share before automatic prefers merge_path (whose split needs carries).
inline constexpr double spmv_host_block_imbalance_max = 1.125;

/// Whether contiguous row blocks of about (rows + nnz) / blocks items each are
/// balanced enough by the statistics alone: a block overshoots its share by
/// at most one row, so a longest row of an eighth of a share is enough.
inline bool spmv_host_rows_balance(const SpmvRowStats& s, long long blocks) {
  const double share = double(s.num_rows + s.nnz) / double(std::max(1LL, blocks));
  return double(s.max_length + 1) <= (spmv_host_block_imbalance_max - 1.0) * share;
}

/// Resolves options + statistics (have_stats: max/stddev known, not only the
/// mean) into a launch for ExecSpace.  The GPU rules come from the H100 sweep
/// in docs/spmv.md.
template <class ExecSpace>
SpmvLaunch spmv_choose(const ExecSpace& space, const SpmvOptions& opt, const SpmvRowStats& s,
                       bool have_stats) {
  constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  SpmvLaunch L;
  L.algorithm = opt.algorithm;
  if (L.algorithm == SpmvAlgorithm::automatic) {
    if (host) {
      // One block of whole rows per thread, cut at equal shares of rows +
      // nonzeros, in a plain loop (no carries); merge_path only when a row is
      // a large part of a share.  SpmvPlan and the plan-less host path refine
      // this with the real blocks (spmv_host_row_blocks).
      L.algorithm = have_stats && spmv_host_rows_balance(s, concurrency(space))
                        ? SpmvAlgorithm::scalar
                        : SpmvAlgorithm::merge_path;
    } else if (have_stats && spmv_is_skewed(s)) {
      // Rows up to a few hundred entries: a warp per row is enough; longer
      // ones need the balanced split.
      L.algorithm = s.max_length <= 512 ? SpmvAlgorithm::vector : SpmvAlgorithm::merge_path;
    } else {
      // Short rows: a thread per row streams at ~90% of copy bandwidth on an
      // H100 (its neighbours' loads share L1 lines); longer rows need lanes.
      L.algorithm = s.mean <= 10 ? SpmvAlgorithm::scalar : SpmvAlgorithm::vector;
    }
  }
  if (host) {
    L.vector_length = 1;
    L.team_size = opt.team_size > 0 ? opt.team_size : 1;
    L.rows_per_thread = 1;
  } else {
    // Lanes per row: the mean row length rounded up to a power of two (CUSP),
    // a warp for skewed rows; 256 lanes per team.
    const int vl = have_stats && spmv_is_skewed(s) ? 32 : pow2_ceil(s.mean, 32);
    L.vector_length = opt.vector_length > 0 ? opt.vector_length : std::max(2, vl);
    L.team_size = opt.team_size > 0 ? opt.team_size : std::max(1, 256 / L.vector_length);
    // About 4096 nonzeros per team (fewer, fuller blocks), but at least ~1024
    // teams to fill the GPU.
    const double by_work = 4096.0 / std::max(s.mean, 1.0) / L.team_size;
    const double by_fill = double(s.num_rows) / (1024.0 * L.team_size);
    L.rows_per_thread = std::max(1, std::min(64, static_cast<int>(std::min(by_work, by_fill))));
  }
  if (L.algorithm == SpmvAlgorithm::dynamic) {
    // Host: a thread per core taking 128 rows at a time (a few hundred
    // increments per thread); GPUs: lanes per row as for vector, a lane group
    // taking 4 rows per increment.
    L.rows_per_thread = host ? 128 : 4;
  }
  const long long items = s.num_rows + s.nnz;
  if (host) {
    // Items per thread; by default a few segments per core: balance without a
    // visible carry pass.
    const long long segs = 8LL * std::max(1, static_cast<int>(space.concurrency()));
    L.merge_path_items =
        opt.merge_path_items > 0 ? opt.merge_path_items : std::max(1LL, (items + segs - 1) / segs);
  } else {
    // One tile of team_size × items per team, staged through team scratch.
    if (opt.team_size <= 0 && L.algorithm == SpmvAlgorithm::merge_path) L.team_size = 128;
    long long per_thread = opt.merge_path_items > 0 ? opt.merge_path_items : 4;
    per_thread = std::min<long long>(per_thread, std::max(1, 2048 / L.team_size));  // 24 KiB
    L.merge_path_items = per_thread * L.team_size;
  }
  L.num_segments = items == 0 ? 0 : (items + L.merge_path_items - 1) / L.merge_path_items;
  if (host) L.row_blocks = std::max(1, concurrency(space));
  return L;
}

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
  using scalar_type = typename Matrix::scalar_type;
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
      // Host scalar: the row blocks, once; automatic takes them when no
      // block is more than spmv_host_block_imbalance_max of its share.
      if ((options.algorithm == SpmvAlgorithm::automatic ||
           options.algorithm == SpmvAlgorithm::scalar) &&
          A.num_rows() > 0) {
        space.fence();
        Kokkos::View<ordinal_type*, memory_space> blocks(
            Kokkos::ViewAllocateWithoutInitializing("spk::SpmvPlan.row_blocks"),
            launch_.row_blocks + 1);
        const double imbalance = Impl::spmv_host_row_blocks(A.row_map(), A.num_rows(), A.nnz(),
                                                            launch_.row_blocks, blocks);
        if (options.algorithm == SpmvAlgorithm::automatic)
          launch_.algorithm = imbalance <= Impl::spmv_host_block_imbalance_max
                                  ? SpmvAlgorithm::scalar
                                  : SpmvAlgorithm::merge_path;
        if (launch_.algorithm == SpmvAlgorithm::scalar) segment_rows_ = blocks;
      }
    }
    if (launch_.algorithm == SpmvAlgorithm::merge_path && launch_.num_segments > 0) {
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
  SpmvAlgorithm algorithm() const { return launch_.algorithm; }

  /// dynamic: the row counter the lane groups draw from (reset by each
  /// product).
  Kokkos::View<unsigned long long*, memory_space> dynamic_counter() {
    if (dynamic_counter_.extent(0) == 0)
      dynamic_counter_ =
          Kokkos::View<unsigned long long*, memory_space>("spk::SpmvPlan.dynamic_counter", 1);
    return dynamic_counter_;
  }

  /// Merge-path carry scratch for num_vecs right-hand sides (allocated on
  /// first use, then reused).
  Kokkos::View<ordinal_type*, memory_space> carry_rows() { return carry_rows_; }
  /// merge_path: the row at which each segment starts (num_segments + 1);
  /// scalar on host spaces: the first row of each row block (row_blocks + 1).
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
           a.team_size == b.team_size && a.merge_path_items == b.merge_path_items;
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
