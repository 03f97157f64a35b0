// SpgemmHandle: what spgemm_symbolic leaves for spgemm_numeric (the row
// binning and C's row pointers), plus the options of the product.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <spk_device.hpp>
#include <spk_settings.hpp>
#include <string>
#include <tuning/spk_spgemm_tuning.hpp>
#include <vector>

namespace spk {

/// Whether spgemm_numeric sorts the columns of each row of C.
enum class SpgemmSort {
  Sorted,   ///< columns increasing in every row (the default)
  Unsorted  ///< any order within a row: cheaper when the caller does not care
};

/// Which kernel family computes the product.
enum class SpgemmAlgorithm {
  Auto,        ///< ThreadDense on host spaces, BinnedHash elsewhere
  BinnedHash,  ///< rows binned by product count: lane-group, team-scratch and
               ///< global-slab hash tables (the GPU design; runs anywhere)
  ThreadDense  ///< Gustavson per row with a per-thread dense accumulator
               ///< (a hash slab when the columns do not fit the budget)
};

/// Where C's arrays come from.  Either way they are managed Kokkos Views the
/// caller owns (copies share them; the last copy frees them).
enum class SpgemmResultMemory {
  Pool,   ///< spk's stream-ordered pool on CUDA (no cudaMalloc/cudaFree per
          ///< product); Kokkos' allocator on host spaces and wherever spk
          ///< cannot adopt memory into a View (impl/spk_adopted_view.hpp)
  Kokkos  ///< Kokkos' allocator: for arrays a CUDA-aware MPI will share
          ///< between processes (CUDA IPC cannot map pool memory)
};

/// Whether BinnedHash spreads a long row of C over several teams (chunks of
/// its products, one team each, sharing a global bitmap of the row's
/// columns; spk_spgemm_long_rows.hpp).
enum class SpgemmLongRowSplit {
  Auto,  ///< rows of the long bin with many products (SpgemmLongRowTuning)
  Off,   ///< every long row on one team
  Force  ///< every row of the long bin, however few its products (tests;
         ///< on host spaces with SpgemmAlgorithm::BinnedHash)
};

/// Options of a product.  Zeros mean "pick for the backend".
struct SpgemmOptions {
  SpgemmSort sort = SpgemmSort::Sorted;
  SpgemmAlgorithm algorithm = SpgemmAlgorithm::Auto;
  /// Run spk::validate on A and B in symbolic (one O(nnz) pass).
  bool validate_inputs = true;
  /// Largest team scratch table, in bytes (keys + values); rows whose table
  /// would be larger go to global-memory slabs.  0: the backend's limit.
  std::size_t max_scratch_bytes = 0;
  /// Global memory allowed for the slabs of long rows (and the per-thread
  /// accumulators of ThreadDense).  0: BinnedHash 6 bytes per product of
  /// the long rows, between 16 MiB and 4 GiB; ThreadDense 512 MiB.
  std::size_t slab_budget_bytes = 0;
  /// Threads per team of the BinnedHash team kernels.  0: backend default.
  int team_size = 0;
  /// BinnedHash rows too long for a scratch table: count their columns on a
  /// bitmap of B's columns in team scratch (and sum them in a dense slab)
  /// when the bitmap fits.  false: always a global-memory slab (dense
  /// markers or a hash table), as when B is too wide for the bitmap.
  bool long_row_bitmap = true;
  /// BinnedHash: long rows of C spread over several teams.
  SpgemmLongRowSplit long_row_split = SpgemmLongRowSplit::Auto;
  /// Products per team of a split long row.  0: SpgemmLongRowTuning's.
  std::uint64_t long_row_chunk_products = 0;
  /// Global memory for the split rows' bitmaps and ranks (rows in flight at
  /// once).  0: SpgemmLongRowTuning's.
  std::size_t long_row_split_bytes = 0;
  /// Fence after each phase and keep its time (SpgemmHandle::phase_times).
  bool time_phases = false;
  /// Where C's column and value arrays and row pointers are allocated.
  SpgemmResultMemory result_memory = SpgemmResultMemory::Pool;
  /// Overrides of the tuning policy for this product (tuning runs, tests
  /// that force a kernel); unset fields come from Settings::spgemm, then
  /// from the policy (spk_spgemm_tuning.hpp).
  SpgemmTuningOverrides tuning;
  /// The device policy to use instead of the entry for the device's compute
  /// capability (spk::Impl::spgemm_cuda_policies).
  std::optional<SpgemmDevicePolicy> device_policy;
};

namespace Impl {

/// The kernel shape BinnedHash gives the rows of one bin.
enum class SpgemmBinKernel {
  LanesPerRow,   ///< a group of vector lanes per row, several rows per team (scratch tables)
  TeamPerRow,    ///< a team per row, its table in team scratch
  LongRows,      ///< rows too long for scratch: bitmap or global-memory slabs
  ThreadPerRow,  ///< a thread per row, several rows per team (scratch tables)
  WarpSorted,    ///< a group of a warp's lanes per row, products sorted in registers (CUDA)
  WarpHashed     ///< a warp per row, products summed on a table sized by C's row (CUDA, numeric)
};

/// Short name of a bin kernel (reports, test traces).
inline const char* to_string(SpgemmBinKernel k) {
  switch (k) {
    case SpgemmBinKernel::LanesPerRow:
      return "lanes";
    case SpgemmBinKernel::TeamPerRow:
      return "team";
    case SpgemmBinKernel::LongRows:
      return "long";
    case SpgemmBinKernel::ThreadPerRow:
      return "thread";
    case SpgemmBinKernel::WarpSorted:
      return "sorted";
    case SpgemmBinKernel::WarpHashed:
      return "warp-hash";
  }
  return "?";
}

/// Binning of the rows of A (and so of C) by their number of products, kept
/// by the handle so that numeric never recounts.
struct SpgemmBin {
  int log2_capacity = 0;  ///< table capacity of the rows in this bin
  SpgemmBinKernel kernel = SpgemmBinKernel::LanesPerRow;
  int team_size = 1;                ///< threads per team of this bin's kernel
  int slots = 1;                    ///< WarpSorted: products per lane, at least
  std::int64_t begin = 0, end = 0;  ///< range in the permutation
  std::uint64_t work = 0;           ///< estimated products (orders the bins' kernels)
  std::int64_t long_b_row = 0;      ///< team groups: B rows this long go to the whole team
  /// Symbolic counts this warp-sortable or team bin's rows on warp-hashed
  /// tables (their sampled rows have many products per column).
  bool symbolic_hash = false;
};

/// How BinnedHash handles the rows too long for scratch tables.
enum class SpgemmLongRows {
  None,         ///< there are none
  Bitmap,       ///< bitmap of B's columns in team scratch (+ dense value slab)
  DenseMarker,  ///< dense slab indexed by column, a marker per column
  Hash,         ///< hash table on a global-memory slab
  BitmapRanks   ///< Bitmap's bitmap; numeric adds at each column's rank in C's row
};              // (perf_spgemm prints the number: new kinds go last)

/// Long rows spread over several teams: they are the last rows of the
/// long bin's range of the permutation, [begin, begin + rows), each cut into
/// chunks of chunk_products products.
struct SpgemmLongRowSplitPlan {
  std::int64_t begin = 0, rows = 0;
  std::uint64_t chunk_products = 0;
  std::int64_t batch_rows = 0;          ///< rows in flight at once (memory cap)
  std::uint64_t max_kept_products = 0;  ///< the longest row the long bin keeps
  int team_size = 1;
  int vector_length = 1;
  /// Per split row (rows + 1 values): its first chunk, and its first slot in
  /// the product prefix array (A's row length + 1 slots per row).
  std::vector<std::uint64_t> chunk_offsets, prefix_offsets;
  std::size_t bytes = 0;  ///< peak global memory of the split rows
};

/// Hash's long rows of one table size: rows [begin, end) of the long bin
/// (after the split rows left it), their tables' capacity and the teams
/// working on them at once, a table (slab) each.
struct SpgemmLongRowGroup {
  std::int64_t begin = 0, end = 0;
  std::uint64_t capacity = 0;
  int slabs = 0;
};

/// Slabs of global memory for the long rows, one per team working on them.
struct SpgemmLongRowPlan {
  SpgemmLongRows kind = SpgemmLongRows::None;
  std::uint64_t slab_capacity = 0;  ///< entries per slab (Hash: the largest group's tables)
  int num_slabs = 0;                ///< Hash: the most slabs of any group
  /// Hash: the long rows by table size, largest first, and the table slots
  /// that the slabs of the groups numeric runs side by side take at most
  /// (the slab area's size).
  std::vector<SpgemmLongRowGroup> groups;
  std::uint64_t hash_entries = 0;
  std::uint64_t budget_entries = 0;  ///< Hash: the slabs' budget in table slots
  /// DenseMarker's symbolic needs only a bitmap of B's columns per slab, so
  /// more of them fit the same budget (more rows at once).
  int num_symbolic_slabs = 0;
  SpgemmLongRowSplitPlan split;  ///< long rows on several teams each
};

}  // namespace Impl

/// The reusable state of C = A·B.  Create one per product pattern; call
/// spgemm_symbolic once, then spgemm_numeric as often as A's and B's values
/// change (their patterns must not).  Ordinal and Offset are those of the
/// matrices, Device where the plan lives.
template <class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class SpgemmHandle {
 public:
  using device_type = device_t<Device>;
  using row_map_type = Kokkos::View<Offset*, device_type>;
  using perm_type = Kokkos::View<Ordinal*, device_type>;

  SpgemmHandle() = default;
  explicit SpgemmHandle(const SpgemmOptions& options) : options_(options) {}

  const SpgemmOptions& options() const noexcept { return options_; }
  /// Changing options invalidates the plan (symbolic must run again).
  void set_options(const SpgemmOptions& options) {
    options_ = options;
    symbolic_done_ = counted_ = false;
  }
  void set_sort(SpgemmSort sort) noexcept { options_.sort = sort; }  // numeric-only option

  bool symbolic_done() const noexcept { return symbolic_done_; }
  /// Number of scalar products (multiply-adds) of A·B: 2·products flops.
  std::uint64_t products() const noexcept { return products_; }
  /// nnz(C), known after symbolic.
  std::uint64_t nnz() const noexcept { return nnz_c_; }
  /// Largest number of products in one row.
  std::uint64_t max_row_products() const noexcept { return max_row_products_; }
  /// The algorithm symbolic chose (never Auto).
  SpgemmAlgorithm algorithm() const noexcept { return algorithm_; }
  /// Rows per bin (BinnedHash): for reports and tests.
  const std::vector<Impl::SpgemmBin>& bins() const noexcept { return bins_; }
  /// Bytes of the per-thread or per-team global slabs used by numeric (and
  /// of the split long rows' bitmaps, ranks and prefix arrays).
  std::size_t slab_bytes() const noexcept { return slab_bytes_; }
  /// (phase, ms) of the last symbolic and numeric, when options().time_phases.
  const std::vector<std::pair<std::string, double>>& phase_times() const noexcept {
    return phase_times_;
  }
  void clear_phase_times() const { phase_times_.clear(); }
  void add_phase_time(const std::string& phase, double ms) const {
    phase_times_.emplace_back(phase, ms);
  }

  // ---- implementation state, written by spgemm_symbolic -------------------
  struct Plan {
    row_map_type row_map_c;            // C's row pointers (shared with C)
    perm_type perm;                    // rows grouped by bin (BinnedHash)
    std::shared_ptr<void> perm_owner;  // the pooled memory behind perm
    Ordinal a_rows = 0, a_cols = 0, b_cols = 0;
    std::uint64_t a_nnz = 0, b_nnz = 0;
    std::uint64_t slab_capacity = 0;  // entries per slab (global rows)
    int num_slabs = 0;
    bool slab_dense = false;  // slabs indexed by column (no hashing)
    int vector_length = 1;
    std::size_t scratch_bytes = 0;      // team scratch the kernels may use (BinnedHash)
    SpgemmWideRowTuning wide_row;       // numeric's long rows written through a bitmap
    Impl::SpgemmLongRowPlan long_rows;  // BinnedHash
    // ThreadDense (host spaces): row blocks of about equal work and B's rows
    // compressed to (word, mask) pairs, row r at [B's row_map(r),
    // host_cb_end(r)) (empty: not used).
    std::vector<std::int64_t> host_blocks;
    Kokkos::View<Offset*, Kokkos::HostSpace> host_cb_end;
    std::uint64_t host_cb_pairs = 0;
    Kokkos::View<std::uint32_t*, Kokkos::HostSpace> host_cb_word;
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace> host_cb_mask;
  };
  Plan& plan() noexcept { return plan_; }
  const Plan& plan() const noexcept { return plan_; }
  // Symbolic in two steps: the plan and counts (set_counted), then C's size
  // once its row map is made (set_nnz: numeric may run).
  void set_counted(SpgemmAlgorithm algo, std::uint64_t products, std::uint64_t max_row,
                   std::vector<Impl::SpgemmBin> bins, std::size_t slab_bytes) {
    algorithm_ = algo;
    products_ = products;
    max_row_products_ = max_row;
    nnz_c_ = 0;
    bins_ = std::move(bins);
    slab_bytes_ = slab_bytes;
    counted_ = true;
    symbolic_done_ = false;
  }
  bool counted() const noexcept { return counted_; }
  void set_nnz(std::uint64_t nnz_c) noexcept {
    nnz_c_ = nnz_c;
    symbolic_done_ = true;
  }

 private:
  SpgemmOptions options_;
  Plan plan_;
  bool symbolic_done_ = false, counted_ = false;
  SpgemmAlgorithm algorithm_ = SpgemmAlgorithm::Auto;
  std::uint64_t products_ = 0, max_row_products_ = 0, nnz_c_ = 0;
  std::vector<Impl::SpgemmBin> bins_;
  std::size_t slab_bytes_ = 0;
  mutable std::vector<std::pair<std::string, double>> phase_times_;
};

}  // namespace spk
