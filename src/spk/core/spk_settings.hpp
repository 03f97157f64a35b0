// spk::Settings: the process-wide resources spk may use (its memory pools and
// what they keep, the streams it may create, the distributed layer's
// transports) and overrides of the SpGEMM tuning policy, with their
// defaults in one place.  This is the only part of spk that reads the
// environment: the SPK_* variables below are read once, at the first call
// of spk::settings(), as overrides of the built-in defaults.
//
//   variable                         setting                  default
//   SPK_MEMORY_POOL=0|1              memory_pool              1 (on)
//   SPK_MEMORY_POOL_KEEP_BYTES=n     device_pool_keep_bytes,  0 (a quarter of the device's
//                                    host_pool_keep_bytes       memory; an eighth of RAM)
//   SPK_DEVICE_POOL_KEEP_BYTES=n     device_pool_keep_bytes
//   SPK_HOST_POOL_KEEP_BYTES=n       host_pool_keep_bytes
//   SPK_POOLED_RESULTS=0|1           pooled_results           1
//   SPK_SIDE_STREAMS=0|1             side_streams             1 (SideStreams::Own)
//   SPK_MAX_BIN_STREAMS=n            max_bin_streams          4
//   SPK_DIST_IPC=0|1                 dist_ipc                 1
//   SPK_DIST_IPC_HALO=0|1            dist_ipc_halo            1
//   SPK_GPU_AWARE_MPI=0|1            gpu_aware_mpi            detected at run time
//   SPK_SPGEMM_MAX_SLABS=n           spgemm.max_slabs         the tuning policy's
//   SPK_SPGEMM_LONG_B_ROW=n          spgemm.long_b_row        the tuning policy's
//   SPK_SPGEMM_WARP_SORT=a:b:c:d[:w[:s]]  spgemm.warp_sort_*  the tuning policy's
//   SPK_SPGEMM_WARP_SORT_FEW=0|1     spgemm.warp_sort_few     the tuning policy's
//   SPK_SPGEMM_REGROUP=s[:p[:w[:l[:t]]]] spgemm.regroup_*     SpgemmRegroupTuning's
//   SPK_SPGEMM_SAMPLE=c[:p]          spgemm.sample_*          SpgemmSampleTuning's
//   SPK_SPGEMM_WIDE_ROW=w[:b]        spgemm.wide_row_*        SpgemmWideRowTuning's
//
// spk's command-line tool, tests and perf drivers read their own variables
// through spk::environment_variable() below, so that this module stays the
// one place that calls getenv (a ctest, getenv_only_in_settings, checks it):
//
//   variable                         read by                  meaning
//   SPK_DIST=0|1                     tools/cmd_dist.cpp       force the distributed path of
//                                                             `spk spmv|spgemm` on or off
//   OMPI_COMM_WORLD_SIZE, PMI_SIZE,  tools/cmd_dist.cpp       launched by mpirun with more
//   PMIX_SIZE                                                 than one rank (no SPK_DIST)
//   SPK_MATRIX_DIR=dir               unit_tests, perf_tests   the SuiteSparse matrices
//   SPK_TEST_DATA_DIR=dir            unit_tests               the small test matrices
//   SPK_TEST_VERBOSE (set)           unit_tests (Spgemm)      print each product's plan
//   KERNEL_TIMES_PREFIX=path         perf_tests/tools/        where kernel_times writes
//   OMPI_COMM_WORLD_RANK             kernel_times.cpp         its files (one per rank)
//
// Per-call options (SpgemmOptions::tuning) take precedence over the
// SpGEMM overrides here.  Change settings between spk calls, not while
// another thread runs one: spk reads them when a call starts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace spk {

/// Whether spk may run work on execution space instances of its own beside
/// the one the caller passes.
enum class SideStreams {
  /// spk creates CUDA streams of its own (Kokkos 4): per caller stream up to
  /// max_bin_streams for SpGEMM's bins (their kernels overlap), and for the
  /// distributed product one at the device's highest priority (ghost block,
  /// communication plan) and one for copies; all kept until
  /// Kokkos::finalize.  On host backends spk never creates instances.
  Own,
  /// Every kernel and copy runs in order on the caller's instance: spk
  /// creates no stream (the distributed layer's CUDA IPC copy stream
  /// excepted, see dist_ipc).
  CallerOnly
};

/// Whether the MPI library reads and writes CUDA device memory.
enum class GpuAwareMpi {
  Detect,  ///< asked at run time (Open MPI's MPIX_Query_cuda_support; others: no)
  Yes,     ///< device buffers go to MPI as they are
  No       ///< device buffers are staged through host memory
};

/// Overrides of the SpGEMM tuning policy (spk_spgemm_tuning.hpp) for tuning
/// runs and tests: each set field replaces the policy's value on backends
/// where the parameter exists (the warp-sort ones on CUDA only).
struct SpgemmTuningOverrides {
  std::optional<int> max_slabs;            ///< teams (and slabs) on long rows at once (>= 1)
  std::optional<std::int64_t> long_b_row;  ///< B rows this long go to a whole team (0: rule)
  /// Rows of 2^min..2^max products sorted by warp lanes (0: none); numeric
  /// and symbolic, in [0, 9].
  std::optional<int> warp_sort_min_log2, warp_sort_max_log2;
  std::optional<int> warp_sort_min_log2_sym, warp_sort_max_log2_sym;
  std::optional<int> warp_sort_warps;  ///< warps per team, in [1, 32]
  std::optional<int> warp_sort_slots;  ///< products per lane at least, in [1, 8]
  std::optional<bool> warp_sort_few;   ///< sortable bins of few rows sorted too
  /// Numeric's regrouping by C's row lengths (SpgemmRegroupTuning): a row
  /// moves when its table shrinks 2^this times (0: never), in [0, 16] ...
  std::optional<int> regroup_shrink_log2;
  /// ... and the bins that may shrink hold at least this many products.
  std::optional<std::uint64_t> regroup_min_products;
  std::optional<bool> regroup_warp_sorted;  ///< warp-sorted rows may move too
  /// Rows of more products per lane than this stay.
  std::optional<std::uint64_t> regroup_max_lane_products;
  /// Team-bin rows of at least this many products per column move to
  /// warp-hashed tables (CUDA; 0: none).
  std::optional<double> regroup_team_products_per_column;
  /// Symbolic hashes the warp-sortable bins whose sampled rows have at least
  /// this many products per column (SpgemmSampleTuning) ...
  std::optional<double> sample_compression;
  /// ... when they hold at least this many products.
  std::optional<std::uint64_t> sample_min_products;
  /// Numeric writes a long row of C through a bitmap of B's columns when it
  /// has a column per this many words of it at least (SpgemmWideRowTuning;
  /// 0: never) ...
  std::optional<std::uint64_t> wide_row_words_per_column;
  /// ... with these bytes of bitmaps at most.
  std::optional<std::size_t> wide_row_max_bytes;

  /// This, with the fields it leaves unset taken from `fallback`.
  SpgemmTuningOverrides or_else(const SpgemmTuningOverrides& fallback) const {
    SpgemmTuningOverrides r = *this;
    if (!r.max_slabs) r.max_slabs = fallback.max_slabs;
    if (!r.long_b_row) r.long_b_row = fallback.long_b_row;
    if (!r.warp_sort_min_log2) r.warp_sort_min_log2 = fallback.warp_sort_min_log2;
    if (!r.warp_sort_max_log2) r.warp_sort_max_log2 = fallback.warp_sort_max_log2;
    if (!r.warp_sort_min_log2_sym) r.warp_sort_min_log2_sym = fallback.warp_sort_min_log2_sym;
    if (!r.warp_sort_max_log2_sym) r.warp_sort_max_log2_sym = fallback.warp_sort_max_log2_sym;
    if (!r.warp_sort_warps) r.warp_sort_warps = fallback.warp_sort_warps;
    if (!r.warp_sort_slots) r.warp_sort_slots = fallback.warp_sort_slots;
    if (!r.warp_sort_few) r.warp_sort_few = fallback.warp_sort_few;
    if (!r.regroup_shrink_log2) r.regroup_shrink_log2 = fallback.regroup_shrink_log2;
    if (!r.regroup_min_products) r.regroup_min_products = fallback.regroup_min_products;
    if (!r.regroup_warp_sorted) r.regroup_warp_sorted = fallback.regroup_warp_sorted;
    if (!r.regroup_max_lane_products)
      r.regroup_max_lane_products = fallback.regroup_max_lane_products;
    if (!r.regroup_team_products_per_column)
      r.regroup_team_products_per_column = fallback.regroup_team_products_per_column;
    if (!r.sample_compression) r.sample_compression = fallback.sample_compression;
    if (!r.sample_min_products) r.sample_min_products = fallback.sample_min_products;
    if (!r.wide_row_words_per_column)
      r.wide_row_words_per_column = fallback.wide_row_words_per_column;
    if (!r.wide_row_max_bytes) r.wide_row_max_bytes = fallback.wide_row_max_bytes;
    return r;
  }
};

/// Process-wide resources and defaults of spk.  The defaults are those of a
/// default-constructed Settings; see the top of this file for the
/// environment variables that override them.
struct Settings {
  /// spk's pools for its temporaries and results: on CUDA a stream-ordered
  /// cudaMemPool per device (no cudaMalloc/cudaFree per call), on the host
  /// a pool of blocks of 64 KiB and more (no page faults on every call).
  /// false: every array is a Kokkos allocation.
  bool memory_pool = true;
  /// Most bytes the CUDA pool of each device keeps when idle (its release
  /// threshold; memory in use is not capped).  0: a quarter of the device's
  /// memory.
  std::uint64_t device_pool_keep_bytes = 0;
  /// Most bytes the host pool keeps when idle.  0: an eighth of the
  /// physical memory.
  std::uint64_t host_pool_keep_bytes = 0;
  /// Results handed to the caller (C's arrays) from the pools where spk can
  /// adopt pool memory into a managed Kokkos View (Kokkos 3.x/4.x, not a
  /// Kokkos debug build; spk_adopted_view.hpp): the one use of Kokkos
  /// internals.  false: results are plain Kokkos allocations.
  bool pooled_results = true;
  /// Whether spk may create execution space instances (CUDA streams) of its
  /// own; see SideStreams.
  SideStreams side_streams = SideStreams::Own;
  /// Most instances SpGEMM's bins run on at once with SideStreams::Own
  /// (in [1, 4]).
  int max_bin_streams = 4;
  /// The distributed layer exchanges between the GPUs of one node through
  /// CUDA IPC when every pair of devices can reach each other.
  bool dist_ipc = true;
  /// The SpMV halo (CommPlan::begin / finish) through CUDA IPC too, where
  /// dist_ipc allows it (impl/spk_dist_ipc_halo.hpp); otherwise it is
  /// staged through host memory.  Read when a matrix's plan is built.
  bool dist_ipc_halo = true;
  /// Whether MPI takes device buffers (see GpuAwareMpi).
  GpuAwareMpi gpu_aware_mpi = GpuAwareMpi::Detect;
  /// Overrides of the SpGEMM tuning policy for every product (per-call
  /// SpgemmOptions::tuning comes first).
  SpgemmTuningOverrides spgemm;
};

/// The value of the environment variable `name`, or nullptr when it is not
/// set.  Code outside this module (spk's tool, tests, perf drivers) reads
/// the environment only through it; the variables it reads are listed at
/// the top of this file.
inline const char* environment_variable(const char* name) { return std::getenv(name); }

namespace Impl {

/// Looks up one environment variable (nullptr: not set).
using EnvLookup = std::function<const char*(const char*)>;

inline std::optional<long long> env_integer(const EnvLookup& env, const char* name) {
  const char* s = env(name);
  if (!s || !*s) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (end == s) return std::nullopt;
  return v;
}

inline std::optional<bool> env_flag(const EnvLookup& env, const char* name) {
  const auto v = env_integer(env, name);
  if (!v) return std::nullopt;
  return *v != 0;
}

/// SPK_SPGEMM_WARP_SORT=nmin:nmax:smin:smax[:warps[:slots]].
inline void parse_warp_sort(const char* s, SpgemmTuningOverrides& t) {
  int w[6] = {0, 0, 0, 0, 0, 0};
  const int n = std::sscanf(s, "%d:%d:%d:%d:%d:%d", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5]);
  if (n < 4) return;
  t.warp_sort_min_log2 = w[0];
  t.warp_sort_max_log2 = w[1];
  t.warp_sort_min_log2_sym = w[2];
  t.warp_sort_max_log2_sym = w[3];
  if (n >= 5) t.warp_sort_warps = w[4];
  if (n >= 6) t.warp_sort_slots = w[5];
}

inline void parse_regroup(const char* s, SpgemmTuningOverrides& t) {
  int shrink = 0, warp_sorted = 0;
  unsigned long long products = 0, per_lane = 0;
  double team = 0;
  const int n =
      std::sscanf(s, "%d:%llu:%d:%llu:%lf", &shrink, &products, &warp_sorted, &per_lane, &team);
  if (n < 1) return;
  t.regroup_shrink_log2 = shrink;
  if (n >= 2) t.regroup_min_products = products;
  if (n >= 3) t.regroup_warp_sorted = warp_sorted != 0;
  if (n >= 4) t.regroup_max_lane_products = per_lane;
  if (n >= 5) t.regroup_team_products_per_column = team;
}

inline void parse_sample(const char* s, SpgemmTuningOverrides& t) {
  double compression = 0;
  unsigned long long products = 0;
  const int n = std::sscanf(s, "%lf:%llu", &compression, &products);
  if (n < 1) return;
  t.sample_compression = compression;
  if (n >= 2) t.sample_min_products = products;
}

/// SPK_SPGEMM_WIDE_ROW=words_per_column[:max_bytes].
inline void parse_wide_row(const char* s, SpgemmTuningOverrides& t) {
  unsigned long long words = 0, bytes = 0;
  const int n = std::sscanf(s, "%llu:%llu", &words, &bytes);
  if (n < 1) return;
  t.wide_row_words_per_column = words;
  if (n >= 2) t.wide_row_max_bytes = static_cast<std::size_t>(bytes);
}

/// `base` with the SPK_* variables that `env` finds applied over it.
inline Settings settings_from_environment(Settings base, const EnvLookup& env) {
  if (const auto v = env_flag(env, "SPK_MEMORY_POOL")) base.memory_pool = *v;
  if (const auto v = env_integer(env, "SPK_MEMORY_POOL_KEEP_BYTES"); v && *v >= 0)
    base.device_pool_keep_bytes = base.host_pool_keep_bytes = static_cast<std::uint64_t>(*v);
  if (const auto v = env_integer(env, "SPK_DEVICE_POOL_KEEP_BYTES"); v && *v >= 0)
    base.device_pool_keep_bytes = static_cast<std::uint64_t>(*v);
  if (const auto v = env_integer(env, "SPK_HOST_POOL_KEEP_BYTES"); v && *v >= 0)
    base.host_pool_keep_bytes = static_cast<std::uint64_t>(*v);
  if (const auto v = env_flag(env, "SPK_POOLED_RESULTS")) base.pooled_results = *v;
  if (const auto v = env_flag(env, "SPK_SIDE_STREAMS"))
    base.side_streams = *v ? SideStreams::Own : SideStreams::CallerOnly;
  if (const auto v = env_integer(env, "SPK_MAX_BIN_STREAMS"))
    base.max_bin_streams = static_cast<int>(*v);
  if (const auto v = env_flag(env, "SPK_DIST_IPC")) base.dist_ipc = *v;
  if (const auto v = env_flag(env, "SPK_DIST_IPC_HALO")) base.dist_ipc_halo = *v;
  if (const auto v = env_flag(env, "SPK_GPU_AWARE_MPI"))
    base.gpu_aware_mpi = *v ? GpuAwareMpi::Yes : GpuAwareMpi::No;
  if (const auto v = env_integer(env, "SPK_SPGEMM_MAX_SLABS"))
    base.spgemm.max_slabs = static_cast<int>(*v);
  if (const auto v = env_integer(env, "SPK_SPGEMM_LONG_B_ROW"))
    base.spgemm.long_b_row = static_cast<std::int64_t>(*v);
  if (const char* s = env("SPK_SPGEMM_WARP_SORT"); s && *s) parse_warp_sort(s, base.spgemm);
  if (const auto v = env_flag(env, "SPK_SPGEMM_WARP_SORT_FEW")) base.spgemm.warp_sort_few = *v;
  if (const char* s = env("SPK_SPGEMM_REGROUP"); s && *s) parse_regroup(s, base.spgemm);
  if (const char* s = env("SPK_SPGEMM_SAMPLE"); s && *s) parse_sample(s, base.spgemm);
  if (const char* s = env("SPK_SPGEMM_WIDE_ROW"); s && *s) parse_wide_row(s, base.spgemm);
  return base;
}

inline Settings& settings_storage() {
  static Settings s = settings_from_environment(Settings(), environment_variable);
  return s;
}

}  // namespace Impl

/// The settings spk uses now: the defaults with the environment's overrides
/// (read at the first call), or what set_settings installed since.
inline const Settings& settings() { return Impl::settings_storage(); }

/// Replaces every setting (the environment's overrides included: start from
/// spk::settings() to keep them).  Call it between spk calls.
inline void set_settings(const Settings& s) { Impl::settings_storage() = s; }

/// Installs settings for a scope and puts the previous ones back when it
/// ends (tests, a library section that wants its own pool policy).
class ScopedSettings {
 public:
  explicit ScopedSettings(const Settings& s) : saved_(settings()) { set_settings(s); }
  ScopedSettings(const ScopedSettings&) = delete;
  ScopedSettings& operator=(const ScopedSettings&) = delete;
  ~ScopedSettings() { set_settings(saved_); }

 private:
  Settings saved_;
};

}  // namespace spk
