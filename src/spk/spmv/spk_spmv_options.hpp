// The vocabulary of spk::spmv: algorithms, modes, options, the row-length
// statistics a plan computes, the tuning knobs a policy fills in
// (spk_spmv_tuning.hpp) and the concrete launch they resolve to.
#pragma once

#include <optional>
#include <spk_error.hpp>
#include <sstream>
#include <string>
#include <tuple>

namespace spk {

/// How spmv spreads the work of a CSR product.
enum class SpmvAlgorithm {
  Auto,       ///< chosen from row-length statistics (spk_spmv_tuning.hpp)
  Scalar,     ///< one thread per row (host: one block of whole rows per thread)
  Vector,     ///< a group of lanes per row, several rows per warp (CSR-vector)
  MergePath,  ///< equal shares of rows + nonzeros per thread (Merrill & Garland)
  Stream,     ///< blocks of whole rows staged in team scratch (CSR-Stream, Greathouse & Daga)
  Dynamic     ///< chunks of rows handed out through an atomic counter (LightSpMV)
};

/// What an SpmvPlan does with rows far longer than the rest (CSR, normal
/// mode).  A split row's entries are cut into pieces of
/// SpmvTuning::split_piece_nnz, each summed by a team and added to y with an
/// atomic; the chosen algorithm runs the other rows (and writes β·y on the
/// split ones).  Only a plan splits: it keeps the long rows' list.
enum class SpmvLongRows {
  Auto,   ///< GPU plans split rows longer than split_row_min when the rows are
          ///< skewed and the algorithm is scalar, vector, stream or auto
  Split,  ///< split rows longer than split_row_min on any space (a plan
          ///< with scalar, vector, stream or auto; host auto runs row blocks)
  Keep    ///< never split
};

inline const char* to_string(SpmvLongRows l) {
  switch (l) {
    case SpmvLongRows::Auto:
      return "auto";
    case SpmvLongRows::Split:
      return "split";
    case SpmvLongRows::Keep:
      return "keep";
  }
  return "?";
}

/// Whether spmv multiplies by A, its transpose Aᵀ or its conjugate
/// transpose Aᴴ (the same as Aᵀ for real scalars).
enum class Mode { Normal, Transpose, ConjugateTranspose };

/// Whether `mode` multiplies by a transpose (Aᵀ or Aᴴ).
constexpr bool is_transposed(Mode mode) { return mode != Mode::Normal; }

inline const char* to_string(SpmvAlgorithm a) {
  switch (a) {
    case SpmvAlgorithm::Auto:
      return "auto";
    case SpmvAlgorithm::Scalar:
      return "scalar";
    case SpmvAlgorithm::Vector:
      return "vector";
    case SpmvAlgorithm::MergePath:
      return "merge_path";
    case SpmvAlgorithm::Stream:
      return "stream";
    case SpmvAlgorithm::Dynamic:
      return "dynamic";
  }
  return "?";
}

/// Parses "auto", "scalar", "vector", "merge_path", "stream" or "dynamic"
/// (command lines; the names are the enumerators' in snake case).
/// "automatic", the older name of SpmvAlgorithm::Auto, is still accepted.
inline SpmvAlgorithm spmv_algorithm_from_string(const std::string& s) {
  for (auto a : {SpmvAlgorithm::Auto, SpmvAlgorithm::Scalar, SpmvAlgorithm::Vector,
                 SpmvAlgorithm::MergePath, SpmvAlgorithm::Stream, SpmvAlgorithm::Dynamic})
    if (s == to_string(a)) return a;
  if (s == "automatic") return SpmvAlgorithm::Auto;
  throw Error("spmv: unknown algorithm '" + s +
              "' (expected auto, scalar, vector, merge_path, stream or dynamic)");
}

/// The knobs of the automatic choice and of the launch shapes.  Each backend
/// (and each GPU architecture) has its own values in spk_spmv_tuning.hpp;
/// SpmvOptions::tuning overrides them for one call or plan.
struct SpmvTuning {
  // Row-length classes (GPU).  Rows are "skewed" when the longest has more
  // than skew_min_longest entries and more than skew_ratio × the mean.
  double scalar_max_mean = 0;        ///< a thread per row when the mean is at most this ...
  double scalar_max_cv = 0;          ///< ... and stddev / mean at most this
  double entries_per_lane = 0;       ///< vector: lanes = smallest power of two ≥ mean / this
  int min_lanes = 0, max_lanes = 0;  ///< vector: bounds of that power of two
  long long skew_min_longest = 0;
  double skew_ratio = 0;
  long long wide_row_max_longest = 0;  ///< skewed rows up to this long: max_lanes per row;
                                       ///< longer: merge_path
  // Launch shapes (GPU).
  int vector_team_threads = 0;  ///< vector: lanes × lane groups per team
  double nnz_per_team = 0;      ///< vector: rows per lane group so a team has about this many
  double min_teams = 0;         ///< ... but at least this many teams
  int max_rows_per_group = 0;   ///< vector: at most this many rows per lane group
  int merge_path_team_size = 0;
  int merge_path_items_per_thread = 0;
  int merge_path_tile_max = 0;  ///< items per tile (team scratch: 12 bytes each)
  // stream (GPU).  Rows that are not skewed, not scalar's, whose mean is at
  // most stream_max_mean and whose lengths vary (cv above stream_min_cv) run
  // `stream`.
  double stream_max_mean = 0;             ///< automatic: stream up to this mean row length ...
  double stream_min_cv = 0;               ///< ... for rows whose stddev / mean exceeds this,
  double stream_max_neighbour_share = 0;  ///< ... and for any rows whose neighbour_share
                                          ///< is below this (scattered columns)
  int stream_team_threads = 0;            ///< stream: threads per team (lanes × row groups)
  int stream_block_nnz = 0;               ///< stream: rows are cut into blocks of about this many
                                          ///< nonzeros (at most twice; scratch holds twice this)
  double stream_entries_per_lane = 0;     ///< stream: lanes per row in the scratch reduction =
                                          ///< smallest power of two ≥ mean / this ...
  int stream_max_lanes = 0;               ///< ... at most this
  // Long-row split (SpmvLongRows).  Pieces have split_piece_nnz entries, or,
  // where split_target_pieces > 0, the smallest power of two at least the
  // split rows' entries / split_target_pieces within [split_piece_nnz_min,
  // split_piece_nnz].
  long long split_row_min = 0;        ///< rows of more entries than this are split ...
  long long split_piece_nnz = 0;      ///< ... into pieces of at most this many entries ...
  long long split_piece_nnz_min = 0;  ///< ... and at least this many,
  double split_target_pieces = 0;     ///< ... about this many pieces in all,
  int split_team_threads = 0;         ///< ... each summed by a team of this many threads
  // Host spaces.
  double host_block_imbalance_max = 0;  ///< row blocks unless one holds more than this
                                        ///< × its share of rows + nonzeros
  int host_merge_segments_per_thread = 0;

  // Formats (in SpmvOptions::tuning a 0 here keeps the policy's value).
  long long sell_spill_chunk_nnz = 0;  ///< SELL spill: a team sums at most this many
                                       ///< entries; longer rows are cut into pieces
  int sell_spill_lanes = 0;            ///< SELL spill (GPUs): vector lanes a piece ...
  int sell_spill_team_threads = 0;     ///< ... and threads (lanes × pieces) a team
  // csr_to_sell's default spill width (read from spmv_tuning(space), not
  // from SpmvOptions; SellOptions::spill_width overrides it): rows longer than
  // max(sell_spill_width_min, sell_spill_width_per_mean × the mean row
  // length) are spilled; where sell_spill_width_per_resident > 0, the width
  // is also at most max(sell_spill_width_small,
  // sell_spill_width_per_resident × nnz / the device's resident threads).
  double sell_spill_width_per_mean = 0;
  long long sell_spill_width_min = 0;
  double sell_spill_width_per_resident = 0;
  long long sell_spill_width_small = 0;
  // Lanes per row of the GPU row kernels in normal mode (powers of two, at
  // most format_max_lanes; SpmvOptions::vector_length sets them directly).
  // BSR: the most lanes that keep bsr_min_entries_per_lane of a row's stored
  // entries each.  ELL (and HYB's ELL part): more lanes only while rows ×
  // lanes fit padded_max_waves × the device's resident threads and each lane
  // keeps padded_min_slots_per_lane of the width.  SELL: one lane.
  int format_max_lanes = 0;
  double bsr_min_entries_per_lane = 0;
  double padded_min_slots_per_lane = 0;
  double padded_max_waves = 0;
  int format_team_threads = 0;  ///< lanes × rows a team when lanes > 1

  auto fields() const {
    return std::tie(
        scalar_max_mean, scalar_max_cv, entries_per_lane, min_lanes, max_lanes, skew_min_longest,
        skew_ratio, wide_row_max_longest, vector_team_threads, nnz_per_team, min_teams,
        max_rows_per_group, merge_path_team_size, merge_path_items_per_thread, merge_path_tile_max,
        stream_max_mean, stream_min_cv, stream_max_neighbour_share, stream_team_threads,
        stream_block_nnz, stream_entries_per_lane, stream_max_lanes, split_row_min, split_piece_nnz,
        split_piece_nnz_min, split_target_pieces, split_team_threads, host_block_imbalance_max,
        host_merge_segments_per_thread, sell_spill_chunk_nnz, sell_spill_lanes,
        sell_spill_team_threads, sell_spill_width_per_mean, sell_spill_width_min,
        sell_spill_width_per_resident, sell_spill_width_small, format_max_lanes,
        bsr_min_entries_per_lane, padded_min_slots_per_lane, padded_max_waves, format_team_threads);
  }
  bool operator==(const SpmvTuning& o) const { return fields() == o.fields(); }
  bool operator!=(const SpmvTuning& o) const { return !(*this == o); }
};

/// Knobs of spk::spmv.  Zeros mean "choose for me".
struct SpmvOptions {
  SpmvAlgorithm algorithm = SpmvAlgorithm::Auto;
  Mode mode = Mode::Normal;
  int vector_length = 0;     ///< vector, stream, dynamic: lanes per row (power of two);
                             ///< ELL, HYB, SELL, BSR (GPUs, normal mode): lanes per row
  int team_size = 0;         ///< vector, stream, dynamic: lane groups per team (dynamic: a
                             ///< draw's share); merge_path (GPU): threads per team
  int merge_path_items = 0;  ///< merge_path: rows + nonzeros per thread
  SpmvLongRows long_rows = SpmvLongRows::Auto;  ///< plans: split rows far longer than the rest
  /// Replaces the backend's policy (spmv_tuning(space)) for this call or plan.
  std::optional<SpmvTuning> tuning;
};

/// Row-length statistics of a CSR matrix.
struct SpmvRowStats {
  long long num_rows = 0;
  long long nnz = 0;
  double mean = 0;           ///< nnz / num_rows
  double stddev = 0;         ///< of the row lengths
  long long max_length = 0;  ///< longest row
  long long empty_rows = 0;
  /// Of the sampled entries (up to 64 a row, rows spread over the matrix),
  /// the share whose 64-byte line of x (8 columns) the previous row also
  /// reads: near 1 for stencil and FEM rows, about 0 for uniformly random
  /// columns (GPU plans for `auto` only; 1 when not measured).
  double neighbour_share = 1.0;

  /// Coefficient of variation of the row lengths (0 for no rows).
  double cv() const { return mean > 0 ? stddev / mean : 0.0; }
};

/// The concrete choice an spmv call runs with (never automatic).
struct SpmvLaunch {
  SpmvAlgorithm algorithm = SpmvAlgorithm::Scalar;
  int vector_length = 1;           ///< vector (GPU), stream: lanes per row
  int team_size = 1;               ///< vector, stream: lane groups per team; merge_path: threads
  int rows_per_thread = 1;         ///< vector: rows per lane group; dynamic: rows per
                                   ///< counter increment
  long long merge_path_items = 0;  ///< merge_path: items per segment (host: per thread,
                                   ///< GPU: per team tile)
  long long num_segments = 0;      ///< merge_path segments; stream: row blocks (0: not yet cut)
  long long stream_block_nnz = 0;  ///< stream: nonzeros a block is cut at (scratch: twice)
  long long row_blocks = 0;        ///< scalar and vector on host spaces: contiguous row
                                   ///< blocks, one per thread
  // Long-row split (plans only; split_rows = 0: none).
  long long split_row_min = 0;    ///< rows of more entries than this are split
  long long split_piece_nnz = 0;  ///< entries a piece
  int split_team_size = 1;        ///< threads a piece's team
  long long split_rows = 0;       ///< rows split
  long long split_pieces = 0;     ///< pieces over all split rows
};

/// "scalar", "vector lanes=8 groups=32 rows/group=4", "merge_path items=512",
/// "stream lanes=4 groups=32 block_nnz=1024 blocks=13200", "scalar row_blocks=2",
/// each followed by " split rows>4096: 383 rows 2100 pieces" when rows are
/// split: what perf drivers and tests print.
inline std::string to_string(const SpmvLaunch& L) {
  std::ostringstream s;
  s << to_string(L.algorithm);
  if (L.row_blocks > 0 &&
      (L.algorithm == SpmvAlgorithm::Scalar || L.algorithm == SpmvAlgorithm::Vector))
    s << " row_blocks=" << L.row_blocks;
  else if (L.algorithm == SpmvAlgorithm::Vector)
    s << " lanes=" << L.vector_length << " groups=" << L.team_size
      << " rows/group=" << L.rows_per_thread;
  else if (L.algorithm == SpmvAlgorithm::MergePath)
    s << " items=" << L.merge_path_items;
  else if (L.algorithm == SpmvAlgorithm::Dynamic)
    s << " lanes=" << L.vector_length << " rows/draw=" << L.rows_per_thread;
  else if (L.algorithm == SpmvAlgorithm::Stream)
    s << " lanes=" << L.vector_length << " groups=" << L.team_size
      << " block_nnz=" << L.stream_block_nnz << " blocks=" << L.num_segments;
  if (L.split_rows > 0)
    s << " split rows>" << L.split_row_min << ": " << L.split_rows << " rows " << L.split_pieces
      << " pieces";
  return s.str();
}

}  // namespace spk
