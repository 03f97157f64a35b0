// The state and timings of a distributed SpGEMM (spk_dist_spgemm.hpp):
// DistSpgemmHandle keeps what symbolic found (the fetched rows of B, the
// merged local operands, the local products) for numeric to reuse.
#pragma once

#include <impl/spk_dist_local_ops.hpp>
#include <memory>
#include <spk_csr_matrix.hpp>
#include <spk_device.hpp>
#include <string>
#include <utility>
#include <vector>

namespace spk::dist {

/// How DistSpgemmHandle records the steps of a one-call or symbolic
/// product (SpgemmTimes::steps), for finding its critical path.
enum class StepTiming {
  Off,
  Fenced,  // every instance fenced at each step: each step's own device time
  Host     // no fence: when the host got past each step (where it waits)
};

/// Wall time of the phases of spgemm (seconds) and what was sent.
struct SpgemmTimes {
  double fetch = 0;     // exchange of B's rows (lengths, columns, values)
  double local = 0;     // local SpGEMM
  double assemble = 0;  // building the merged operands / C's blocks
  long long bytes_sent = 0;
  // With DistSpgemmHandle::step_timing: (step, seconds) of the last one-call
  // or symbolic product (see StepTiming).
  std::vector<std::pair<std::string, double>> steps;
  double total() const { return fetch + local + assemble; }
};

/// The reusable state of C = A·B: the fetched rows of B, the merged local
/// operands and the local products.  Create one per product pattern, call
/// spgemm_symbolic (or spgemm with the handle) once and spgemm_numeric
/// whenever A's and B's values change (their patterns must not).
template <class S, class O = int, class F = int, class Device = DefaultDevice>
class DistSpgemmHandle {
 public:
  using device_type = device_t<Device>;
  using local_matrix = CsrMatrix<S, O, F, device_type>;

  bool symbolic_done() const noexcept { return done_; }
  /// Rows of B fetched from other ranks, and their entries.
  long long fetched_rows() const noexcept { return fetched_rows_; }
  long long fetched_nnz() const noexcept { return fetched_nnz_; }
  /// Rows of A multiplied before B's rows were fetched (see split_interior).
  long long interior_rows() const noexcept { return int_end_ - int_begin_; }
  /// Scalar products of C's local block (the ghost block's not counted).
  long long local_products() const noexcept { return interior_.products + rest_.products; }
  SpgemmTimes times;
  StepTiming step_timing = StepTiming::Off;  // records times.steps (Fenced: a fence per step)
  /// The rows of A without ghost entries (the longest run of them, if it
  /// holds a sixteenth of the rows at least) need no fetched row: with
  /// split_interior, their part of C's local block is counted while B's
  /// rows are fetched, from A's and B's local blocks as they are; only the
  /// other rows go through the merged operands.  Off: every row waits for
  /// the fetch (a rank whose A has no ghost columns multiplies its blocks
  /// in place either way).
  bool split_interior = true;

  // Internals (public for the functions of impl/spk_dist_spgemm_*.hpp).
  bool done_ = false;
  long long fetched_rows_ = 0, fetched_nnz_ = 0;
  long long a_nnz_ = 0;        // A's local and ghost entries, as symbolic saw them
  long long c_local_nnz_ = 0;  // C's local block's entries
  std::vector<long long> send_edispls_, recv_edispls_;  // per neighbour, in entries
  Kokkos::View<long long*, device_type> send_rp_;       // packed sent rows
  // C's local block, rows [int_begin_, int_end_) ("interior"): A's local
  // block's rows there (a_int_rm_: their row map from 0, entries
  // a_int_off_[0] to [1] of the block) times B's local block (interior_),
  // written in place at C's entries c_int_off_[0] to [1] (c_int_rm_: their
  // row map from 0).  The other rows ("rest", before and after):
  // A_rest (a_rest_: those rows of A's blocks side by side, ghost columns
  // numbered after the owned ones, i.e. B_ext's rows) times b_local_ into
  // c_rest_ (rest_), whose head and tail are copied into C.  B_ext (B's
  // local rows, then the fetched rows) is split by column owner: b_local_
  // holds the columns this rank owns (local numbering), b_ghost_ the others
  // (global numbering), so c_ghost_ = (A's rows side by side)·b_ghost_ is
  // C's ghost block before the ghost columns are renumbered: no split of C
  // is needed.
  long long na_ = 0, int_begin_ = 0, int_end_ = 0;
  long long a_int_off_[2] = {0, 0}, c_int_off_[2] = {0, 0};
  bool rest_on_side_ = false;  // A_rest's product on the priority instance
  bool rest_is_c_ = false;     // no interior rows: c_rest_ is C's local block
  Kokkos::View<F*, device_type> a_int_rm_, c_int_rm_;
  local_matrix b_local_, b_ghost_, a_rest_, c_rest_, c_ghost_;
  // The ghost product runs only over the rows of A that may reach an entry
  // of b_ghost_ (the rows near a block boundary; mark_ghost_rows flags
  // them, a few more than reach it at most): a_ghost_rows_ holds them side
  // by side (rows ghost_rows_, in order) and c_ghost_sub_ = a_ghost_rows_·
  // b_ghost_ their products; c_ghost_ shares its columns and values, with a
  // row map over all rows (ghost_pos_(i): rows of a_ghost_rows_ before row i).
  local_matrix a_ghost_rows_, c_ghost_sub_;
  Kokkos::View<O*, device_type> ghost_rows_;
  Kokkos::View<F*, device_type> ghost_pos_;
  // Per fetched entry: its position p in b_local_ (p >= 0) or in b_ghost_
  // (-(p + 1)), for numeric's values.
  Kokkos::View<F*, device_type> fetch_dest_;
  Kokkos::View<long long*, device_type> fetch_rp_;  // fetched rows' entry offsets
  Kokkos::View<char*, device_type> send_buf_;       // packed rows of B to send
  Impl::LocalSpgemmHandle<O, F, device_type> interior_, rest_, ghost_;
  std::vector<std::shared_ptr<void>> pooled_;  // pooled memory behind the Views above
};

}  // namespace spk::dist
