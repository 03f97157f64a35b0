// Distributed SpGEMM: C = A·B with A and B distributed by rows.  Each rank
// fetches only the rows of B that its ghost columns of A name (through A's
// SpMV communication plan), then multiplies locally; C is distributed like
// A's rows and B's columns.  Symbolic / numeric split as on one node.
#pragma once

#include <chrono>
#include <impl/spk_dist_ghost_columns.hpp>
#include <impl/spk_dist_local_ops.hpp>
#include <impl/spk_dist_row_kernels.hpp>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spmv.hpp>
#include <spk_instances.hpp>
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

  // Internals (public for the free functions below).
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

namespace Impl {

/// M's local and ghost blocks side by side, per row (local entries first),
/// for the rows outside [s0, s1) (every row when s0 == s1), in order, into
/// cols / vals (either may be empty to skip it), each row at the entries of
/// the rows before it; with `rm` not empty, that row map is written too.
/// Columns combined: owned columns first, ghost j after them (the
/// numbering of B_ext's rows, for A_rest).  With `mark` not empty (and no
/// rows skipped), also mark(i) = 1 for the rows with a ghost entry or a
/// column c whose row of B has ghost entries (bgrm: B's ghost block's row
/// map), else 0.  M must have ghost columns (its ghost block a row map).
template <class ExecSpace, class S, class O, class F, class D, class RM, class C, class V,
          class Mark = Kokkos::View<F*, typename C::device_type>,
          class BRM = typename CsrMatrix<S, O, F, typename C::device_type>::row_map_type>
void side_by_side(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& M, const RM& rm,
                  const C& cols, const V& vals, const Mark& mark = Mark(), const BRM& bgrm = BRM(),
                  long long s0 = 0, long long s1 = 0) {
  auto L = M.local_block();
  auto G = M.ghost_block();
  auto lrm = L.row_map(), grm = G.row_map();
  auto lci = L.col_idx(), gci = G.col_idx();
  auto lva = L.values(), gva = G.values();
  const long long ghost_off = M.col_layout().local_size();
  const bool do_cols = cols.extent(0) > 0, do_vals = vals.extent(0) > 0;
  const bool do_mark = mark.extent(0) > 0, do_rm = rm.extent(0) > 0;
  const long long skip = s1 - s0, n = L.num_rows() - skip;  // rows written
  SPK_REQUIRE(!do_mark || skip == 0, Error, "spk::dist::side_by_side: marks need every row");
  if (n == 0) {
    if (do_rm) Kokkos::deep_copy(space, rm, F(0));
    return;
  }
  // Output row j is row src(j) of M; row i's entries start at pos(i).
  auto src = [=] KOKKOS_FUNCTION(long long j) { return j < s0 ? j : j + skip; };
  auto pos = [=] KOKKOS_FUNCTION(long long i) {
    const F p = lrm(i) + grm(i);
    return skip > 0 && i >= s1 ? p - (lrm(s1) + grm(s1) - lrm(s0) - grm(s0)) : p;
  };
  if constexpr (spk::Impl::is_host_space_v<ExecSpace>) {
    // One thread per row.
    row_parallel(
        space, "spk::dist::side_by_side", n,
        KOKKOS_LAMBDA(const RowMember<ExecSpace>&, const long long j) {
          const long long i = src(j);
          const F l0 = lrm(i), nl = lrm(i + 1) - l0, g0 = grm(i), q = pos(i);
          const F ngi = grm(i + 1) - g0;
          if (do_rm) {
            rm(j) = q;
            if (j + 1 == n) rm(n) = q + nl + ngi;
          }
          bool hit = ngi > 0;
          for (F t = 0; t < nl; ++t) {
            const O c = lci(l0 + t);
            if (do_cols) cols(q + t) = c;
            if (do_vals) vals(q + t) = lva(l0 + t);
            if (do_mark && !hit) hit = bgrm(c + 1) > bgrm(c);
          }
          for (F t = 0; t < ngi; ++t) {
            if (do_cols) cols(q + nl + t) = static_cast<O>(ghost_off + gci(g0 + t));
            if (do_vals) vals(q + nl + t) = gva(g0 + t);
          }
          if (do_mark) mark(i) = hit ? 1 : 0;
        });
  } else {
    // GPUs: a team per R rows copies their entries position by position, so
    // that neighbouring threads write neighbouring entries of the result and
    // read neighbouring entries of each block whatever the rows' lengths;
    // each position finds its row by a binary search over the team's row
    // starts in scratch memory.  (A lane group of 8 per row left lanes idle
    // on 7-entry rows: 1.85 ms for 94M entries on an H100, about 1.4 TB/s.)
    constexpr int R = 256;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Scratch =
        Kokkos::View<F*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    const long long league = (n + R - 1) / R;
    const int bytes = static_cast<int>(Scratch::shmem_size(R + 1) + 4 * Scratch::shmem_size(R));
    Kokkos::parallel_for(
        "spk::dist::side_by_side",
        Policy(space, league, R).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(const RowMember<ExecSpace>& m) {
          const long long j0 = m.league_rank() * static_cast<long long>(R);
          const int cnt = static_cast<int>(n - j0 < R ? n - j0 : R);
          Scratch q(m.team_scratch(0), R + 1), l0(m.team_scratch(0), R), nl(m.team_scratch(0), R),
              g0(m.team_scratch(0), R), hit(m.team_scratch(0), R);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt + 1), [&](const int r) {
            const long long i = src(j0 + r);
            q(r) = pos(i);
            if (r < cnt) {
              l0(r) = lrm(i);
              nl(r) = lrm(i + 1) - l0(r);
              g0(r) = grm(i);
              hit(r) = 0;
            }
            // (the last row's end belongs to the next team, which writes it;
            // the last team writes rm(n))
            if (do_rm && (r < cnt || j0 + cnt == n)) rm(j0 + r) = q(r);
          });
          m.team_barrier();
          const F p0 = q(0), np = q(cnt) - p0;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, np), [&](const F u) {
            const F p = p0 + u;
            int lo = 0, hi = cnt;  // q(lo) <= p < q(hi): the last row starting at or before p
            while (hi - lo > 1) {
              const int mid = (lo + hi) / 2;
              if (q(mid) <= p)
                lo = mid;
              else
                hi = mid;
            }
            const F t = p - q(lo);
            if (t < nl(lo)) {
              const O c = lci(l0(lo) + t);
              if (do_cols) cols(p) = c;
              if (do_vals) vals(p) = lva(l0(lo) + t);
              if (do_mark && bgrm(c + 1) > bgrm(c)) hit(lo) = 1;  // (same value from any thread)
            } else {
              const F k = g0(lo) + t - nl(lo);
              if (do_cols) cols(p) = static_cast<O>(ghost_off + gci(k));
              if (do_vals) vals(p) = gva(k);
              if (do_mark) hit(lo) = 1;
            }
          });
          m.team_barrier();
          if (do_mark)
            Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                                 [&](const int r) { mark(j0 + r) = hit(r); });
        });
  }
}

/// n values for an array that MPI may read or write in place: spk's pool
/// (memory kept by `owners`) when exchanges are staged through the host, a
/// Kokkos allocation when MPI reads device memory directly (stream-ordered
/// pool memory cannot go through CUDA IPC).
template <class View, class ExecSpace>
View exchange_view(const ExecSpace& space, std::vector<std::shared_ptr<void>>& owners,
                   const char* label, std::size_t n) {
  if (mpi_reads_directly<typename View::memory_space>())
    return View(Kokkos::ViewAllocateWithoutInitializing(label), n);
  return spk::Impl::pooled_view<View>(space, owners, label, n);
}

/// Where one neighbour's part of a fetch message lies: its first row and
/// entry, and the byte offsets of its columns and of its values in the
/// message (each part padded to 16 bytes; a part not sent is empty).
struct FetchSegment {
  long long row = 0, entry = 0, col_byte = 0, val_byte = 0;
};

/// Byte layout of a fetch message: per neighbour (rows: row displs,
/// entries: entry displs), its segment; the last element ends the message.
/// col_size / val_size: bytes per entry of each part (0: not sent).
inline std::vector<FetchSegment> fetch_segments(const std::vector<long long>& rows,
                                                const std::vector<long long>& entries,
                                                long long col_size, long long val_size) {
  std::vector<FetchSegment> seg(rows.size());
  long long byte = 0;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    const long long cnt = n + 1 < rows.size() ? entries[n + 1] - entries[n] : 0;
    seg[n].row = rows[n];
    seg[n].entry = entries[n];
    seg[n].col_byte = byte;
    seg[n].val_byte = byte + (cnt * col_size + 15) / 16 * 16;
    byte = seg[n].val_byte + (cnt * val_size + 15) / 16 * 16;
  }
  if (!seg.empty()) seg.back().col_byte = seg.back().val_byte = byte;
  return seg;
}

/// The neighbour whose rows hold row k (seg[n].row <= k < seg[n + 1].row).
template <class Seg>
KOKKOS_INLINE_FUNCTION int fetch_segment_of(const Seg& seg, long long k) {
  int lo = 0, hi = static_cast<int>(seg.extent(0)) - 1;  // seg(hi).row > k
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (seg(mid).row <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// Fetches the rows of B that A's ghost columns name, in one exchange:
/// their columns (global) into `cols` if do_cols and their values into
/// `vals` if do_vals (the same flags on every rank), entry rrp(j) on for
/// fetched row j (rrp: the
/// fetched rows' entry offsets, on the device).  Rows are packed straight
/// from B's blocks (local entries, then ghost entries).
template <class ExecSpace, class S, class O, class F, class D, class Cols, class Vals, class RRP>
void fetch_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                const DistCsrMatrix<S, O, F, D>& B, DistSpgemmHandle<S, O, F, D>& h,
                const Cols& cols, const Vals& vals, const RRP& rrp, bool do_cols, bool do_vals,
                int tag) {
  using Dev = typename Cols::device_type;
  using SegView = Kokkos::View<FetchSegment*, Dev>;
  const auto& plan = A.plan();
  const long long cs = do_cols ? sizeof(O) : 0, vs = do_vals ? sizeof(S) : 0;
  const auto send_seg = fetch_segments(plan.send_displs(), h.send_edispls_, cs, vs);
  const auto recv_seg = fetch_segments(plan.recv_displs(), h.recv_edispls_, cs, vs);
  const long long send_bytes = send_seg.back().col_byte, recv_bytes = recv_seg.back().col_byte;
  std::vector<long long> sd, rd;  // byte displacements per neighbour
  for (const auto& x : send_seg) sd.push_back(x.col_byte);
  for (const auto& x : recv_seg) rd.push_back(x.col_byte);
  std::vector<std::shared_ptr<void>> temps;
  using Bytes = Kokkos::View<char*, Dev>;
  // The send buffer stays with the handle, so that numeric reuse allocates
  // nothing there.
  if (h.send_buf_.extent(0) < static_cast<std::size_t>(send_bytes))
    h.send_buf_ = exchange_view<Bytes>(space, h.pooled_, "spk::dist::fetch_send", send_bytes);
  auto send = Bytes(h.send_buf_.data(), send_bytes);  // unmanaged alias
  auto recv = exchange_view<Bytes>(space, temps, "spk::dist::fetch_recv", recv_bytes);
  auto segments = [&](const std::vector<FetchSegment>& seg) {
    auto v = spk::Impl::pooled_view<SegView>(space, temps, "spk::dist::fetch_segments", seg.size());
    Kokkos::View<const FetchSegment*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hv(seg.data(),
                                                                                     seg.size());
    Kokkos::deep_copy(space, v, hv);
    return v;
  };
  const SegView ss = segments(send_seg), rs = segments(recv_seg);
  auto idx = plan.send_indices();
  auto srp = h.send_rp_;
  auto L = B.local_block();
  auto G = B.ghost_block();
  auto lrm = L.row_map(), grm = G.row_map();
  auto lci = L.col_idx(), gci = G.col_idx();
  auto lva = L.values(), gva = G.values();
  auto gid = B.ghost_gids_view();
  const long long cb = B.col_layout().begin();
  row_parallel(
      space, "spk::dist::fetch_pack", plan.num_sent(),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long k) {
        const FetchSegment g = ss(fetch_segment_of(ss, k));
        const long long r = idx(k), s0 = srp(k), w0 = s0 - g.entry;
        const F l0 = lrm(r), nl = lrm(r + 1) - l0, g0 = grm(r);
        O* sc = reinterpret_cast<O*>(send.data() + g.col_byte) + w0;
        S* sv = reinterpret_cast<S*>(send.data() + g.val_byte) + w0;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, srp(k + 1) - s0), [&](const long long t) {
          if (t < nl) {
            if (do_cols) sc[t] = static_cast<O>(cb + lci(l0 + t));
            if (do_vals) sv[t] = lva(l0 + t);
          } else {
            if (do_cols) sc[t] = static_cast<O>(gid(gci(g0 + t - nl)));
            if (do_vals) sv[t] = gva(g0 + t - nl);
          }
        });
      });
  space.fence();  // (so the exchange need not fence every instance)
  exchange_views(A.comm(), tag, plan.send_ranks(), sd, send, plan.recv_ranks(), rd, recv, true,
                 space);
  row_parallel(
      space, "spk::dist::fetch_unpack", static_cast<long long>(rrp.extent(0)) - 1,
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long j) {
        const FetchSegment g = rs(fetch_segment_of(rs, j));
        const long long r0 = rrp(j), w0 = r0 - g.entry;
        const O* rc = reinterpret_cast<const O*>(recv.data() + g.col_byte) + w0;
        const S* rv = reinterpret_cast<const S*>(recv.data() + g.val_byte) + w0;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rrp(j + 1) - r0), [&](const long long t) {
          if (do_cols) cols(r0 + t) = rc[t];
          if (do_vals) vals(r0 + t) = rv[t];
        });
      });
  h.times.bytes_sent += send_bytes;
}

/// B's own values into B_ext's two parts (the fetched ones come from
/// b_ext_fetched_values).
template <class ExecSpace, class S, class O, class F, class D>
void b_ext_own_values(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& B,
                      DistSpgemmHandle<S, O, F, D>& h) {
  const long long nl = B.local_block().nnz(), ng = B.ghost_block().nnz();
  if (h.b_local_.num_rows() > 0)  // (only A_rest's product reads it)
    Kokkos::deep_copy(space, Kokkos::subview(h.b_local_.values(), std::make_pair(0LL, nl)),
                      B.local_block().values());
  Kokkos::deep_copy(space, Kokkos::subview(h.b_ghost_.values(), std::make_pair(0LL, ng)),
                    B.ghost_block().values());
}

/// The fetched values (fvals) into B_ext's two parts, placed by h.fetch_dest_.
template <class ExecSpace, class S, class O, class F, class D, class FV>
void b_ext_fetched_values(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                          const FV& fvals) {
  auto dest = h.fetch_dest_;
  auto lv = h.b_local_.values(), gv = h.b_ghost_.values();
  Kokkos::parallel_for(
      "spk::dist::b_ext_fetched_values", Kokkos::RangePolicy<ExecSpace>(space, 0, h.fetched_nnz_),
      KOKKOS_LAMBDA(const long long e) {
        const F d = dest(e);
        if (d >= 0)
          lv(d) = fvals(e);
        else
          gv(-d - 1) = fvals(e);
      });
}

/// The rows h.ghost_rows_ of A's blocks side by side into h.a_ghost_rows_
/// (values, and columns with with_cols), whose row map is made.
template <class ExecSpace, class S, class O, class F, class D>
void ghost_rows_copy(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                     DistSpgemmHandle<S, O, F, D>& h, bool with_cols) {
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  auto lci = A.local_block().col_idx(), gci = A.ghost_block().col_idx();
  auto lva = A.local_block().values(), gva = A.ghost_block().values();
  const bool has_g = grm.extent(0) > 0;  // (no ghost columns: maybe no row map)
  const long long ghost_off = A.col_layout().local_size();
  auto srm = h.a_ghost_rows_.row_map();
  auto sci = h.a_ghost_rows_.col_idx();
  auto sva = h.a_ghost_rows_.values();
  auto rows = h.ghost_rows_;
  row_parallel(
      space, "spk::dist::ghost_rows_copy", static_cast<long long>(rows.extent(0)),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long r) {
        const long long i = rows(r);
        const F l0 = lrm(i), nl = lrm(i + 1) - l0, g0 = has_g ? grm(i) : 0, s0 = srm(r);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, srm(r + 1) - s0), [&](const F t) {
          if (t < nl) {
            if (with_cols) sci(s0 + t) = lci(l0 + t);
            sva(s0 + t) = lva(l0 + t);
          } else {
            if (with_cols) sci(s0 + t) = static_cast<O>(ghost_off + gci(g0 + t - nl));
            sva(s0 + t) = gva(g0 + t - nl);
          }
        });
      });
}

/// The rows of A that may reach an entry of B_ext's ghost part (only they
/// have products in C's ghost block), flagged and scanned on the device
/// into h.ghost_pos_: ghost_pos_(i) = flagged rows before row i,
/// ghost_pos_(na) their number.  Flagged: rows with a column whose row of B
/// has ghost entries, and rows with ghost columns (the fetched rows they
/// name are not here yet), so it needs nothing fetched.  Nothing is flagged
/// without b_ghost (B_ext has no ghost part: B's ghost block and the
/// fetched rows hold no other rank's column).  On a mesh cut into row
/// blocks the flagged rows are the few layers next to a neighbour's block.
/// With a_rest, A_rest is built in the same pass (every row of A is in it).
template <class ExecSpace, class S, class O, class F, class D>
void mark_ghost_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                     const DistCsrMatrix<S, O, F, D>& B, DistSpgemmHandle<S, O, F, D>& h,
                     bool b_ghost, bool a_rest) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  const long long na = A.row_layout().local_size();
  h.ghost_pos_ = Kokkos::View<F*, Dev>();
  if (b_ghost)
    h.ghost_pos_ = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(space, h.pooled_,
                                                                 "spk::dist::ghost_pos", na + 1);
  auto pos = h.ghost_pos_;
  auto bgrm = B.ghost_block().row_map();
  if (a_rest)
    side_by_side(space, A, h.a_rest_.row_map(), h.a_rest_.col_idx(), h.a_rest_.values(), pos, bgrm);
  if (!b_ghost) return;
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  auto lci = A.local_block().col_idx();
  const bool has_g = A.num_ghosts() > 0;  // (else its ghost block may have no row map)
  // One thread per row (a row's few entries read together; the scan's
  // last element set here: a scalar deep_copy from the host would wait for
  // the work queued before it).
  // (With a_rest the rows are marked already: only pos(na) is left.)
  Kokkos::parallel_for(
      "spk::dist::ghost_rows_mark", Kokkos::RangePolicy<ExecSpace>(space, a_rest ? na : 0, na + 1),
      KOKKOS_LAMBDA(const long long i) {
        if (i == na) {
          pos(na) = 0;
          return;
        }
        F reach = has_g && grm(i + 1) > grm(i) ? 1 : 0;
        for (F k = lrm(i); k < lrm(i + 1) && !reach; ++k)
          reach = bgrm(lci(k) + 1) > bgrm(lci(k)) ? 1 : 0;
        pos(i) = reach;
      });
  spk::Impl::exclusive_scan_queued(space, pos, na);
}

/// The rows mark_ghost_rows flagged, side by side from A's blocks into
/// h.a_ghost_rows_ (with h.ghost_rows_: which rows they are); `space` must
/// be ordered after the marking.
template <class ExecSpace, class S, class O, class F, class D>
void select_ghost_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                       DistSpgemmHandle<S, O, F, D>& h) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  const long long na = h.na_;
  const O ext_rows = h.b_ghost_.num_rows();
  if (h.b_ghost_.nnz() == 0 || h.ghost_pos_.extent(0) == 0) {
    // (no row reaches a ghost column of B; ghost_pos_ is empty only then)
    h.ghost_rows_ = Kokkos::View<O*, Dev>();
    h.ghost_pos_ = Kokkos::View<F*, Dev>();
    // (its row map from the pool: no cudaMalloc and synchronising free per call)
    const auto rm = spk::Impl::pooled_view<typename Local::row_map_type>(
        space, h.pooled_, "spk::dist::a_ghost_rows.row_map", 1);
    Kokkos::deep_copy(space, rm, F(0));
    h.a_ghost_rows_ =
        Local(O(0), ext_rows, rm, typename Local::index_type(), typename Local::values_type());
    return;
  }
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  const bool has_g = grm.extent(0) > 0;
  auto pos = h.ghost_pos_;
  F nr_h = 0;
  Kokkos::deep_copy(space, Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&nr_h),
                    Kokkos::subview(pos, na));
  space.fence();
  const long long nr = nr_h;
  h.ghost_rows_ =
      spk::Impl::pooled_view<Kokkos::View<O*, Dev>>(space, h.pooled_, "spk::dist::ghost_rows", nr);
  auto rows = h.ghost_rows_;
  auto srm = spk::Impl::pooled_view<typename Local::row_map_type>(
      space, h.pooled_, "spk::dist::a_ghost_rows.row_map", nr + 1);
  Kokkos::parallel_for(
      "spk::dist::ghost_rows_list", Kokkos::RangePolicy<ExecSpace>(space, 0, na + 1),
      KOKKOS_LAMBDA(const long long i) {
        if (i == na)
          srm(nr) = 0;  // the scan's last element
        else if (pos(i + 1) != pos(i)) {
          rows(pos(i)) = static_cast<O>(i);
          srm(pos(i)) = lrm(i + 1) - lrm(i) + (has_g ? grm(i + 1) - grm(i) : 0);
        }
      });
  const F snnz = spk::Impl::exclusive_scan(space, srm, nr);
  h.a_ghost_rows_ = Local(static_cast<O>(nr), ext_rows, srm,
                          spk::Impl::pooled_view<typename Local::index_type>(
                              space, h.pooled_, "spk::dist::a_ghost_rows.col_idx", snnz),
                          spk::Impl::pooled_view<typename Local::values_type>(
                              space, h.pooled_, "spk::dist::a_ghost_rows.values", snnz));
  ghost_rows_copy(space, A, h, true);
}

/// C's ghost block in global columns, (A's rows side by side)·B_ghost, from
/// the product over the selected rows (h.c_ghost_sub_): the same columns and
/// values, its row map spread over all rows.
template <class ExecSpace, class S, class O, class F, class D>
void spread_ghost_product(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                          long long num_cols) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  const long long na = h.na_;
  // C's ghost block keeps this row map (compact_ghost_columns): memory of
  // its own, not the handle's.
  const auto rm = spk::Impl::result_view<typename Local::row_map_type>(
      space, "spk::dist::c_ghost.row_map", na + 1,
      !mpi_reads_directly<typename Dev::memory_space>());
  auto pos = h.ghost_pos_;
  auto srm = h.c_ghost_sub_.row_map();
  if (h.c_ghost_sub_.nnz() == 0)
    Kokkos::deep_copy(space, rm, F(0));
  else
    Kokkos::parallel_for(
        "spk::dist::c_ghost_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, na + 1),
        KOKKOS_LAMBDA(const long long i) { rm(i) = srm(pos(i)); });
  h.c_ghost_ = Local(static_cast<O>(na), static_cast<O>(num_cols), rm, h.c_ghost_sub_.col_idx(),
                     h.c_ghost_sub_.values());
}

/// Finds the interior rows of A (DistSpgemmHandle::split_interior) into
/// h.int_begin_ / int_end_ and h.a_int_off_: every row when A has no ghost
/// entries; else, with `split`, the longest run of rows without ghost
/// entries, on chunks of at least na / 4096 rows (the ghost block's row map
/// is constant over such a chunk: read at the chunks' ends only), if it
/// holds a sixteenth of the rows at least; else none.
template <class ExecSpace, class S, class O, class F, class D>
void find_interior_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                        DistSpgemmHandle<S, O, F, D>& h, bool split,
                        std::vector<std::shared_ptr<void>>& temps) {
  using Dev = typename DistSpgemmHandle<S, O, F, D>::device_type;
  const long long na = A.row_layout().local_size();
  h.int_begin_ = h.int_end_ = 0;
  h.a_int_off_[0] = h.a_int_off_[1] = 0;
  if (na == 0) return;
  if (A.num_ghosts() == 0) {
    h.int_end_ = na;
    h.a_int_off_[1] = A.local_block().nnz();
    return;
  }
  if (!split) return;
  const long long K = std::min<long long>(na, 4096);
  auto at = spk::Impl::pooled_view<Kokkos::View<long long*, Dev>>(
      space, temps, "spk::dist::chunk_ends", 2 * (K + 1));
  auto lrm = A.local_block().row_map(), grm = A.ghost_block().row_map();
  Kokkos::parallel_for(
      "spk::dist::chunk_ends", Kokkos::RangePolicy<ExecSpace>(space, 0, K + 1),
      KOKKOS_LAMBDA(const long long c) {
        const long long b = c * na / K;
        at(c) = grm(b);
        at(K + 1 + c) = lrm(b);
      });
  std::vector<long long> h_at(2 * (K + 1));
  Kokkos::deep_copy(space,
                    Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        h_at.data(), h_at.size()),
                    at);
  space.fence();
  long long best = 0, best_c = 0, run = 0;
  for (long long c = 0; c < K; ++c) {
    run = h_at[c + 1] == h_at[c] ? run + 1 : 0;
    if (run > best) best = run, best_c = c + 1 - run;
  }
  const long long r0 = best_c * na / K, r1 = (best_c + best) * na / K;
  // (best == K: no entry names a ghost column; all rows go through A_rest)
  if (best == 0 || best == K || 16 * (r1 - r0) < na) return;
  h.int_begin_ = r0;
  h.int_end_ = r1;
  h.a_int_off_[0] = h_at[K + 1 + best_c];
  h.a_int_off_[1] = h_at[K + 1 + best_c + best];
}

/// Rows [int_begin_, int_end_) of A's local block, with their row map from
/// 0 (h.a_int_rm_), on the given A's arrays.
template <class S, class O, class F, class D>
auto interior_a(const DistCsrMatrix<S, O, F, D>& A, const DistSpgemmHandle<S, O, F, D>& h) {
  using Local = typename DistSpgemmHandle<S, O, F, D>::local_matrix;
  const auto e = std::make_pair(h.a_int_off_[0], h.a_int_off_[1]);
  return Local(static_cast<O>(h.int_end_ - h.int_begin_), A.local_block().num_cols(), h.a_int_rm_,
               Kokkos::subview(A.local_block().col_idx(), e),
               Kokkos::subview(A.local_block().values(), e));
}

/// The interior rows of C's local block (Cl), with their row map from 0.
template <class S, class O, class F, class D, class Local>
Local interior_c(const Local& Cl, const DistSpgemmHandle<S, O, F, D>& h) {
  const auto e = std::make_pair(h.c_int_off_[0], h.c_int_off_[1]);
  return Local(static_cast<O>(h.int_end_ - h.int_begin_), Cl.num_cols(), h.c_int_rm_,
               Kokkos::subview(Cl.col_idx(), e), Kokkos::subview(Cl.values(), e));
}

/// A_rest's product's rows into C's local block (Cl): its first
/// int_begin_ rows before the interior rows, the others after them
/// (values, and columns with with_cols).
template <class ExecSpace, class S, class O, class F, class D, class Local>
void copy_rest_rows(const ExecSpace& space, const DistSpgemmHandle<S, O, F, D>& h, const Local& Cl,
                    bool with_cols) {
  const long long head = h.c_int_off_[0], rest = h.c_rest_.nnz();
  const auto to_head = std::make_pair(0LL, head), from_head = to_head;
  const auto to_tail = std::make_pair(h.c_int_off_[1], static_cast<long long>(Cl.nnz()));
  const auto from_tail = std::make_pair(head, rest);
  if (with_cols) {
    Kokkos::deep_copy(space, Kokkos::subview(Cl.col_idx(), to_head),
                      Kokkos::subview(h.c_rest_.col_idx(), from_head));
    Kokkos::deep_copy(space, Kokkos::subview(Cl.col_idx(), to_tail),
                      Kokkos::subview(h.c_rest_.col_idx(), from_tail));
  }
  Kokkos::deep_copy(space, Kokkos::subview(Cl.values(), to_head),
                    Kokkos::subview(h.c_rest_.values(), from_head));
  Kokkos::deep_copy(space, Kokkos::subview(Cl.values(), to_tail),
                    Kokkos::subview(h.c_rest_.values(), from_tail));
}

inline std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }

/// spgemm_symbolic, and with with_values the whole product: B's values
/// travel with its columns and the local products' values go into C, so
/// that numeric need not run (the one-call spgemm).
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm_pattern(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                         const DistCsrMatrix<S, O, F, D>& A,
                                         const DistCsrMatrix<S, O, F, D>& B, bool with_values) {
  using Dev = typename DistCsrMatrix<S, O, F, D>::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::spgemm: A is ", A.num_rows(),
              "x", A.num_cols(), ", B is ", B.num_rows(), "x", B.num_cols());
  SPK_REQUIRE(A.col_layout() == B.row_layout(), ShapeMismatch,
              "spk::dist::spgemm: A's columns must be distributed like B's rows (rank ",
              A.row_layout().rank(), " owns columns [", A.col_layout().begin(), ", ",
              A.col_layout().end(), ") of A but rows [", B.row_layout().begin(), ", ",
              B.row_layout().end(), ") of B)");
  const StepTiming timing = h.step_timing;
  const bool split = h.split_interior;
  const bool time_steps = timing != StepTiming::Off, fenced = timing == StepTiming::Fenced;
  h = DistSpgemmHandle<S, O, F, D>();
  h.step_timing = timing;
  h.split_interior = split;
  auto step_t = now();
  auto step = [&](const char* name) {
    if (!time_steps) return;
    if (fenced) Kokkos::fence();  // every instance (steps one after the other)
    h.times.steps.emplace_back(name, seconds_since(step_t));
    step_t = now();
  };
  // Three instances besides the caller's `space`, each with work that does
  // not depend on the others' until it joins them:
  // * `space` (and its bin streams): the interior rows' product, which
  //   needs nothing fetched and is the bulk of the work;
  // * `side`: the fetch of B's rows (lengths, then the rows), a chain of
  //   small kernels, copies to the host and exchanges that the other ranks
  //   wait for, then A_rest's product (when small) and C's ghost block and
  //   plan; it is the instance the GPU serves first (priority_instance;
  //   `space` itself on hosts);
  // * `helper`: copies that need nothing fetched (A_rest, B's own rows in
  //   B_ext, the ghost rows' marks), at the highest priority too (at the
  //   caller's they waited for the interior count's blocks, and the fetch
  //   chain for them).
  const ExecSpace side = spk::Impl::priority_instance(space);
  const ExecSpace helper = spk::Impl::helper_instance(space);
  // Temporaries come from spk's memory pool (stream-ordered, no
  // synchronisation to free them); `temps` frees this call's at return,
  // h.pooled_ keeps the handle's.
  std::vector<std::shared_ptr<void>> temps;
  auto pooled = [&](const ExecSpace& on, auto view_tag, std::vector<std::shared_ptr<void>>& owners,
                    const char* label, std::size_t n) {
    return spk::Impl::pooled_view<decltype(view_tag)>(on, owners, label, n);
  };
  const long long na = A.row_layout().local_size();
  const long long nb = B.row_layout().local_size(), ng = A.num_ghosts();
  const long long ext_rows = nb + ng;
  h.na_ = na;
  h.a_nnz_ = A.local_block().nnz() + A.ghost_block().nnz();
  auto t = now();
  find_interior_rows(space, A, h, split, temps);
  const long long r0 = h.int_begin_, r1 = h.int_end_, n_rest = na - (r1 - r0);
  // (A has ghost columns then; with ghost columns, the fetched rows need
  // B_ext's local part, which only A_rest's product reads)
  const bool has_rest = n_rest > 0 || ng > 0;
  h.rest_on_side_ = has_rest && 2 * n_rest <= na;
  h.rest_is_c_ = has_rest && r1 == r0;  // (its C is C's local block)
  const ExecSpace rest_on = h.rest_on_side_ ? side : space;
  // (allocated before the other instances are ordered after `space`)
  if (has_rest) {
    const F rest_nnz = static_cast<F>(h.a_nnz_ - (h.a_int_off_[1] - h.a_int_off_[0]));
    h.a_rest_ = Local(
        static_cast<O>(n_rest), static_cast<O>(ext_rows),
        pooled(space, Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::a_rest.row_map", n_rest + 1),
        pooled(space, Kokkos::View<O*, Dev>(), h.pooled_, "spk::dist::a_rest.col_idx", rest_nnz),
        pooled(space, Kokkos::View<S*, Dev>(), h.pooled_, "spk::dist::a_rest.values", rest_nnz));
  }
  // C's local block's row counts (count(i + 1): row i), from both products.
  auto counts =
      pooled(space, Kokkos::View<std::uint64_t*, Dev>(), temps, "spk::dist::c_counts", na + 1);
  spk::Impl::stream_wait(side, space);  // A and B as the caller's work on `space` left them
  spk::Impl::stream_wait(helper, space);
  // Arrays MPI may touch in place come from exchange_view.
  auto exchanged = [&](auto view_tag, std::vector<std::shared_ptr<void>>& owners, const char* label,
                       std::size_t n) {
    return exchange_view<decltype(view_tag)>(side, owners, label, n);
  };
  const long long ns = A.plan().num_sent();
  const auto& plan = A.plan();
  const long long cb = B.col_layout().begin(), ce = B.col_layout().end();

  // Lengths of B's local rows, and the packed layout of the rows we send.
  auto lrm = B.local_block().row_map(), grm = B.ghost_block().row_map();
  auto row_len = pooled(side, Kokkos::View<F*, Dev>(), temps, "spk::dist::row_len", nb);
  Kokkos::parallel_for(
      "spk::dist::b_row_len", Kokkos::RangePolicy<ExecSpace>(side, 0, nb),
      KOKKOS_LAMBDA(const long long i) { row_len(i) = lrm(i + 1) + grm(i + 1) - lrm(i) - grm(i); });
  h.send_rp_ =
      pooled(side, Kokkos::View<long long*, Dev>(), h.pooled_, "spk::dist::send_rp", ns + 1);
  auto srp = h.send_rp_;
  Kokkos::deep_copy(side, Kokkos::subview(srp, std::make_pair(0LL, 1LL)), 0LL);
  auto idx = plan.send_indices();
  Kokkos::parallel_scan(
      "spk::dist::send_rp", Kokkos::RangePolicy<ExecSpace>(side, 0, ns),
      KOKKOS_LAMBDA(const long long k, long long& upd, const bool final) {
        upd += row_len(idx(k));
        if (final) srp(k + 1) = upd;
      });
  h.times.assemble += seconds_since(t);
  step("b_row_lengths");

  // 1. The interior rows' counts, on `space`: A's and B's local blocks as
  // they are (the host waits for the count's first pass only).
  t = now();
  if (r1 > r0) {
    h.a_int_rm_ =
        pooled(space, Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::a_int.row_map", r1 - r0 + 1);
    auto arm = h.a_int_rm_;
    auto alrm = A.local_block().row_map();
    Kokkos::parallel_for(
        "spk::dist::a_int_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, r1 - r0 + 1),
        KOKKOS_LAMBDA(const long long i) { arm(i) = alrm(r0 + i) - alrm(r0); });
    local_spgemm_count(space, h.interior_, interior_a(A, h), B.local_block(),
                       Kokkos::subview(counts, std::make_pair(r0, r1 + 1)), fenced);
  }
  h.times.local += seconds_since(t);
  if (fenced && h.interior_.handle)
    for (const auto& [phase, ms] : h.interior_.handle->phase_times())
      h.times.steps.emplace_back("interior." + phase, 1e-3 * ms);
  step("interior_count");

  const long long bl_nnz = B.local_block().nnz(), bg_nnz = B.ghost_block().nnz();

  // 2. A_rest (columns: B_ext's rows), and the rows the ghost product needs
  // (select_ghost_rows lists them later), on `helper`.
  t = now();
  const bool b_ghost = bg_nnz > 0 || ng > 0;
  if (has_rest && r1 == r0) {
    mark_ghost_rows(helper, A, B, h, b_ghost, true);
  } else {
    if (has_rest)
      side_by_side(helper, A, h.a_rest_.row_map(), h.a_rest_.col_idx(), h.a_rest_.values(),
                   Kokkos::View<F*, Dev>(), typename Local::row_map_type(), r0, r1);
    mark_ghost_rows(helper, A, B, h, b_ghost, false);
  }
  h.times.assemble += seconds_since(t);
  step("a_rest");

  // 3. Lengths of the fetched rows, to A's ghost columns' owners (the SpMV
  // plan's pattern).  Only `side` is fenced before the exchange.
  t = now();
  auto recv_len = exchanged(Kokkos::View<F*, Dev>(), temps, "spk::dist::recv_len", ng);
  {
    auto send_len = exchanged(Kokkos::View<F*, Dev>(), temps, "spk::dist::send_len", ns);
    Kokkos::parallel_for(
        "spk::dist::pack_lengths", Kokkos::RangePolicy<ExecSpace>(side, 0, ns),
        KOKKOS_LAMBDA(const long long k) { send_len(k) = row_len(idx(k)); });
    side.fence();
    exchange_views(A.comm(), 7103, plan.send_ranks(), plan.send_displs(), send_len,
                   plan.recv_ranks(), plan.recv_displs(), recv_len, true, side);
  }
  h.times.bytes_sent += ns * static_cast<long long>(sizeof(F));
  // The fetched rows' entry offsets are scanned on the device (numeric
  // reuses them); the host reads only the entry offsets at the neighbours'
  // boundaries and the total (not every row's offset, to the host and back,
  // through pageable memory, on the fetch chain).
  h.fetch_rp_ = pooled(side, Kokkos::View<long long*, Dev>(), h.pooled_, "spk::dist::rrp", ng + 1);
  auto rrp_d = h.fetch_rp_;
  Kokkos::parallel_for(
      "spk::dist::fetched_lengths", Kokkos::RangePolicy<ExecSpace>(side, 0, ng + 1),
      KOKKOS_LAMBDA(const long long j) { rrp_d(j) = j < ng ? recv_len(j) : 0; });
  spk::Impl::exclusive_scan_queued(side, rrp_d, ng);
  {
    // Positions: the send displacements in srp, the receive ones (and ng)
    // in rrp.
    const auto& sd = plan.send_displs();
    const auto& rd = plan.recv_displs();
    const long long nsd = static_cast<long long>(sd.size());
    const long long nat = nsd + static_cast<long long>(rd.size()) + 1;
    std::vector<long long> at(sd.begin(), sd.end());
    at.insert(at.end(), rd.begin(), rd.end());
    at.push_back(ng);
    using HostLL = Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    auto at_d = pooled(side, Kokkos::View<long long*, Dev>(), temps, "spk::dist::displ_at", nat);
    Kokkos::deep_copy(side, at_d, HostLL(at.data(), nat));
    Kokkos::parallel_for(
        "spk::dist::entry_displs", Kokkos::RangePolicy<ExecSpace>(side, 0, nat),
        KOKKOS_LAMBDA(const long long k) { at_d(k) = k < nsd ? srp(at_d(k)) : rrp_d(at_d(k)); });
    Kokkos::deep_copy(side, HostLL(at.data(), nat), at_d);
    side.fence();
    h.send_edispls_.assign(at.begin(), at.begin() + nsd);
    h.recv_edispls_.assign(at.begin() + nsd, at.end() - 1);
    h.fetched_nnz_ = at.back();
  }
  h.fetched_rows_ = ng;
  const long long nf = h.fetched_nnz_;
  SPK_REQUIRE(bl_nnz + bg_nnz + nf <= static_cast<long long>(std::numeric_limits<F>::max()),
              Overflow, "spk::dist::spgemm: rank ", A.row_layout().rank(), " needs ",
              bl_nnz + bg_nnz + nf, " entries of B, more than the offset type holds");
  h.times.fetch += seconds_since(t);
  step("exchange_lengths");

  // 4. B_ext = B's local rows, then the fetched rows, split by column
  // owner.  B's own rows are split already (its blocks): copied now on
  // `helper` (the local part only for A_rest's product), into arrays long
  // enough for every fetched entry (how a fetched row's entries split is
  // known only once its columns are here).  `side` allocates the arrays and
  // `helper` waits for it: `side` has nothing else queued by then (fenced
  // for the exchange), so the wait costs nothing.
  t = now();
  const long long bl_cap = has_rest ? bl_nnz + nf : 0, bg_cap = bg_nnz + nf;
  const auto bl_rm = pooled(side, typename Local::row_map_type(), h.pooled_,
                            "spk::dist::b_local.row_map", has_rest ? ext_rows + 1 : 0);
  const auto bl_ci =
      pooled(side, typename Local::index_type(), h.pooled_, "spk::dist::b_local.col_idx", bl_cap);
  const auto bl_va =
      pooled(side, typename Local::values_type(), h.pooled_, "spk::dist::b_local.values", bl_cap);
  const auto bg_rm = pooled(side, typename Local::row_map_type(), h.pooled_,
                            "spk::dist::b_ghost.row_map", ext_rows + 1);
  const auto bg_ci =
      pooled(side, typename Local::index_type(), h.pooled_, "spk::dist::b_ghost.col_idx", bg_cap);
  const auto bg_va =
      pooled(side, typename Local::values_type(), h.pooled_, "spk::dist::b_ghost.values", bg_cap);
  spk::Impl::stream_wait(helper, side);
  {
    // B's own rows: the local block's columns as they are, the ghost
    // block's as global columns; their values (zeros for symbolic, whose
    // local products compute values that numeric redoes).
    const auto head = std::make_pair(0LL, bl_nnz), ghead = std::make_pair(0LL, bg_nnz);
    if (has_rest) {
      Kokkos::deep_copy(helper, Kokkos::subview(bl_ci, head), B.local_block().col_idx());
      if (with_values)
        Kokkos::deep_copy(helper, Kokkos::subview(bl_va, head), B.local_block().values());
      else
        Kokkos::deep_copy(helper, Kokkos::subview(bl_va, head), S(0));
    }
    auto gci = B.ghost_block().col_idx();
    auto gid = B.ghost_gids_view();
    auto bgc = bg_ci;
    Kokkos::parallel_for(
        "spk::dist::b_ghost_columns", Kokkos::RangePolicy<ExecSpace>(helper, 0, bg_nnz),
        KOKKOS_LAMBDA(const long long k) { bgc(k) = static_cast<O>(gid(gci(k))); });
    if (with_values)
      Kokkos::deep_copy(helper, Kokkos::subview(bg_va, ghead), B.ghost_block().values());
    else
      Kokkos::deep_copy(helper, Kokkos::subview(bg_va, ghead), S(0));
  }
  h.times.assemble += seconds_since(t);

  // 5. The fetched rows' columns (global), and their values for the whole
  // product, in one exchange, split by where their columns live (on `side`,
  // past B's own entries, which `helper` writes).
  t = now();
  auto fcols = exchanged(Kokkos::View<O*, Dev>(), temps, "spk::dist::fetched_cols", nf);
  auto fvals =
      exchanged(Kokkos::View<S*, Dev>(), temps, "spk::dist::fetched_values", with_values ? nf : 0);
  fetch_rows(side, A, B, h, fcols, fvals, rrp_d, true, with_values, 7106);
  h.times.fetch += seconds_since(t);
  step("fetch_rows_of_b");
  t = now();
  auto flocal = pooled(side, Kokkos::View<F*, Dev>(), temps, "spk::dist::fetched_local", ng + 1);
  Kokkos::parallel_for(
      "spk::dist::fetched_local_count", Kokkos::RangePolicy<ExecSpace>(side, 0, ng + 1),
      KOKKOS_LAMBDA(const long long j) {
        F n = 0;
        if (j < ng)
          for (long long e = rrp_d(j); e < rrp_d(j + 1); ++e)
            n += fcols(e) >= cb && fcols(e) < ce ? 1 : 0;
        flocal(j) = n;
      });
  const long long nfl = spk::Impl::exclusive_scan(side, flocal, ng);  // fetched local entries
  const long long bcols_local = ce - cb;
  const Local bl = has_rest ? Local(static_cast<O>(ext_rows), static_cast<O>(bcols_local), bl_rm,
                                    Kokkos::subview(bl_ci, std::make_pair(0LL, bl_nnz + nfl)),
                                    Kokkos::subview(bl_va, std::make_pair(0LL, bl_nnz + nfl)))
                            : Local();
  const Local bg(static_cast<O>(ext_rows), static_cast<O>(B.num_cols()), bg_rm,
                 Kokkos::subview(bg_ci, std::make_pair(0LL, bg_nnz + nf - nfl)),
                 Kokkos::subview(bg_va, std::make_pair(0LL, bg_nnz + nf - nfl)));
  h.fetch_dest_ = pooled(side, Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::fetch_dest", nf);
  {
    auto blrm = bl_rm, bgrm = bg_rm;
    Kokkos::parallel_for(
        "spk::dist::b_ext_row_maps", Kokkos::RangePolicy<ExecSpace>(side, 0, ext_rows + 1),
        KOKKOS_LAMBDA(const long long i) {
          if (i <= nb) {
            if (has_rest) blrm(i) = lrm(i);
            bgrm(i) = grm(i);
          } else {
            const long long j = i - nb;
            if (has_rest) blrm(i) = static_cast<F>(lrm(nb) + flocal(j));
            bgrm(i) = static_cast<F>(grm(nb) + rrp_d(j) - flocal(j));
          }
        });
    // Fetched rows: one thread per row keeps each part in column order.
    // (Every fetched row is named by a ghost column, so has_rest holds when
    // there are any.)
    auto blc = bl_ci, bgc = bg_ci;
    auto blv = bl_va, bgv = bg_va;
    auto dest = h.fetch_dest_;
    Kokkos::parallel_for(
        "spk::dist::b_ext_fetched", Kokkos::RangePolicy<ExecSpace>(side, 0, ng),
        KOKKOS_LAMBDA(const long long j) {
          long long pl = blrm(nb + j), pg = bgrm(nb + j);
          for (long long e = rrp_d(j); e < rrp_d(j + 1); ++e) {
            const long long c = fcols(e);
            if (c >= cb && c < ce) {
              blc(pl) = static_cast<O>(c - cb);
              blv(pl) = with_values ? fvals(e) : S(0);
              dest(e) = static_cast<F>(pl++);
            } else {
              bgc(pg) = static_cast<O>(c);
              bgv(pg) = with_values ? fvals(e) : S(0);
              dest(e) = static_cast<F>(-(pg++) - 1);
            }
          }
        });
  }
  h.b_local_ = bl;
  h.b_ghost_ = bg;
  spk::Impl::stream_wait(side, helper);  // B's own rows, A_rest and the marks are in place
  h.times.assemble += seconds_since(t);
  step("b_ext");

  // 6. A_rest's product (the rows next to other ranks' blocks, and any
  // others without an interior run): on `side` when it is small, so that it
  // runs beside the interior rows' count, else on `space` after it.  Its
  // numeric kernels are queued; its C is copied into C's local block later.
  t = now();
  if (has_rest) {
    if (!h.rest_on_side_) spk::Impl::stream_wait(space, side);
    h.c_rest_ = local_spgemm_symbolic(rest_on, h.rest_, h.a_rest_, h.b_local_, false, fenced);
    if (fenced && h.rest_.handle)
      for (const auto& [phase, ms] : h.rest_.handle->phase_times())
        h.times.steps.emplace_back("rest." + phase, 1e-3 * ms);
  }
  h.times.local += seconds_since(t);
  step("rest_product");

  // 7. On `side` (the instance the GPU serves first; `space` itself on
  // hosts): the ghost block and its column list (host work and small
  // kernels).  While the interior rows' count still runs, they are built
  // now, beside it; else after the local numeric is queued, beside that.
  // (Queued beside the numeric they stretch it by about their own length:
  // 1.4 ms at 2 GPUs, where building them first took poisson3d:300 from
  // 16.7 to 15.6 ms; but where the count is short, building them first put
  // them on the critical path: poisson3d:200 at 4 GPUs 3.3 -> 3.8 ms.)
  CompactedColumns<S, O, F, Dev> ghost;
  auto ghost_block = [&]() {
    auto tg = now();
    select_ghost_rows(side, A, h);
    step("ghost_product.select_rows");
    h.c_ghost_sub_ = local_spgemm_symbolic(side, h.ghost_, h.a_ghost_rows_, h.b_ghost_);
    step("ghost_product.product");
    spread_ghost_product(side, h, B.num_cols());
    h.times.local += seconds_since(tg);
    step("ghost_product.spread");
    tg = now();
    // (compact_ghost_columns fences `side` after writing the ghost list.)
    // It runs over the ghost rows' product, whose entries are C's ghost
    // block's (a pass over every row of C was 0.17 ms at 2 GPUs), and the
    // result gets the row map over all rows back.
    ghost = compact_ghost_columns(side, h.c_ghost_sub_, cb, ce, with_values,
                                  time_steps ? StepTimer(step) : StepTimer());
    ghost.matrix = Local(h.c_ghost_.num_rows(), ghost.matrix.num_cols(), h.c_ghost_.row_map(),
                         ghost.matrix.col_idx(), ghost.matrix.values());
    h.times.assemble += seconds_since(tg);
    step("ghost_columns");
  };
  const bool ghost_first = !spk::Impl::instance_idle(space);
  if (ghost_first) ghost_block();
  // 8. C's local block: the row counts of both products scanned on `space`
  // (the host waits for the interior count here), then the interior rows'
  // numeric queued in place, and A_rest's product's rows copied in on
  // `side`.  (A_rest's C's row map is complete: the host waited for its
  // scan in symbolic.)
  t = now();
  const long long ncl = ce - cb;
  Local c_local;
  if (h.rest_is_c_) {
    c_local = h.c_rest_;
  } else {
    if (has_rest) {
      auto crm = h.c_rest_.row_map();
      Kokkos::parallel_for(
          "spk::dist::rest_counts", Kokkos::RangePolicy<ExecSpace>(space, 0, n_rest),
          KOKKOS_LAMBDA(const long long j) {
            const long long i = j < r0 ? j : j + (r1 - r0);  // (A's row)
            counts(i + 1) = static_cast<std::uint64_t>(crm(j + 1) - crm(j));
          });
    }
    const bool pooled_c = !mpi_reads_directly<typename Dev::memory_space>();
    const auto rm = spk::Impl::result_view<typename Local::row_map_type>(
        space, "spk::dist::c_local.row_map", na + 1, pooled_c);
    const std::int64_t nnz = spk::Impl::row_map_from_counts(
        space, "spk::dist::c_local_row_map", counts, rm, na,
        static_cast<std::uint64_t>(h.interior_.products + h.rest_.products),
        "spk::dist::spgemm (C's local block)");
    F ends[2] = {0, 0};
    if (r1 > r0) {
      Kokkos::deep_copy(space, Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ends),
                        Kokkos::subview(rm, r0));
      Kokkos::deep_copy(space,
                        Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ends + 1),
                        Kokkos::subview(rm, r1));
      space.fence();
    }
    h.c_int_off_[0] = ends[0];
    h.c_int_off_[1] = ends[1];
    c_local = Local(static_cast<O>(na), static_cast<O>(ncl), rm,
                    spk::Impl::result_view<typename Local::index_type>(
                        space, "spk::dist::c_local.col_idx", nnz, pooled_c),
                    spk::Impl::result_view<typename Local::values_type>(
                        space, "spk::dist::c_local.values", nnz, pooled_c));
    if (r1 > r0) {
      if (r0 == 0) {
        h.c_int_rm_ = Kokkos::subview(rm, std::make_pair(0LL, r1 + 1));  // (from 0 already)
      } else {
        h.c_int_rm_ = pooled(space, Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::c_int.row_map",
                             r1 - r0 + 1);
        auto crm = h.c_int_rm_;
        const F c0 = ends[0];
        Kokkos::parallel_for(
            "spk::dist::c_int_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, r1 - r0 + 1),
            KOKKOS_LAMBDA(const long long i) { crm(i) = rm(r0 + i) - c0; });
      }
      local_spgemm_adopt(h.interior_, h.c_int_rm_, h.c_int_off_[1] - h.c_int_off_[0]);
    }
    // `side` copies A_rest's rows into C (after their numeric, queued on
    // `side` or, when large, on `space` before the scan) once C's arrays
    // exist: it waits for `space` now, not for the interior numeric.
    spk::Impl::stream_wait(side, space);
    if (has_rest) copy_rest_rows(side, h, c_local, true);  // (queued after its numeric)
    if (r1 > r0)
      local_spgemm_numeric(space, h.interior_, interior_a(A, h), B.local_block(),
                           interior_c(c_local, h), false);
  }
  h.times.local += seconds_since(t);
  step("local_product");
  if (!ghost_first) ghost_block();

  // 9. C's plan (MPI with the neighbours), beside the local numeric.
  t = now();
  DistCsrMatrix<S, O, F, D> C(GhostListComplete(), side, A.row_layout(), B.col_layout(), c_local,
                              ghost.matrix, ghost.gids, ghost.gids_device,
                              time_steps ? StepTimer(step) : StepTimer());
  h.times.assemble += seconds_since(t);
  step("c_matrix_and_plan");
  t = now();
  spk::Impl::stream_wait(space, side);    // later work on `space` sees C's ghost block
  spk::Impl::stream_wait(space, helper);  // (joined already: `side` waited for it)
  space.fence();                          // the local block's numeric
  h.times.local += seconds_since(t);
  step("local_numeric_wait");
  h.c_local_nnz_ = c_local.nnz();
  if (h.rest_is_c_) h.c_rest_ = Local();  // (C's local block: not kept by the handle)
  h.done_ = true;
  return C;
}

}  // namespace Impl

/// Symbolic phase: fetches the pattern of the needed rows of B, computes
/// C's pattern and returns C (distributed like A's rows, columns like B's);
/// C's values are set by spgemm_numeric.  Needs A's column layout to be
/// B's row layout.  Collective.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm_symbolic(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                          const DistCsrMatrix<S, O, F, D>& A,
                                          const DistCsrMatrix<S, O, F, D>& B) {
  return Impl::spgemm_pattern(space, h, A, B, false);
}

/// Numeric phase: C's values from A's and B's current values (the patterns
/// symbolic saw).  Only values travel.  Collective.
template <class ExecSpace, class S, class O, class F, class D>
void spgemm_numeric(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                    const DistCsrMatrix<S, O, F, D>& A, const DistCsrMatrix<S, O, F, D>& B,
                    const DistCsrMatrix<S, O, F, D>& C) {
  SPK_REQUIRE(h.done_, Error, "spk::dist::spgemm_numeric: call spgemm_symbolic first");
  SPK_REQUIRE(h.a_nnz_ == A.local_block().nnz() + A.ghost_block().nnz() &&
                  A.row_layout().local_size() == h.na_ && C.local_block().nnz() == h.c_local_nnz_ &&
                  C.ghost_block().nnz() == h.ghost_.nnz,
              ShapeMismatch, "spk::dist::spgemm_numeric: A or C is not the one symbolic saw");
  using Dev = typename DistCsrMatrix<S, O, F, D>::device_type;
  // As in symbolic: the interior rows on `space` at once (they need nothing
  // fetched), the fetch on the high-priority instance, the copies of A's
  // and B's own values on `helper` meanwhile.
  const ExecSpace side = spk::Impl::priority_instance(space);
  const ExecSpace helper = spk::Impl::helper_instance(space);
  const ExecSpace rest_on = h.rest_on_side_ ? side : space;
  spk::Impl::stream_wait(side, space);  // A's and B's values as the caller left them
  spk::Impl::stream_wait(helper, space);
  auto t = Impl::now();
  if (h.int_end_ > h.int_begin_)
    Impl::local_spgemm_numeric(space, h.interior_, Impl::interior_a(A, h), B.local_block(),
                               Impl::interior_c(C.local_block(), h), false);
  h.times.local += Impl::seconds_since(t);
  t = Impl::now();
  const bool has_rest = h.a_rest_.num_rows() > 0;
  if (has_rest)  // (A_rest's row map and columns are symbolic's: only the values)
    Impl::side_by_side(helper, A, Kokkos::View<F*, Dev>(), Kokkos::View<O*, Dev>(),
                       h.a_rest_.values(), Kokkos::View<F*, Dev>(),
                       typename DistSpgemmHandle<S, O, F, D>::local_matrix::row_map_type(),
                       h.int_begin_, h.int_end_);
  Impl::b_ext_own_values(helper, B, h);
  h.times.assemble += Impl::seconds_since(t);
  t = Impl::now();
  std::vector<std::shared_ptr<void>> temps;
  auto fvals = Impl::exchange_view<Kokkos::View<S*, Dev>>(side, temps, "spk::dist::fetched_values",
                                                          h.fetched_nnz_);
  Impl::fetch_rows(side, A, B, h, Kokkos::View<O*, Dev>(), fvals, h.fetch_rp_, false, true, 7105);
  h.times.fetch += Impl::seconds_since(t);
  t = Impl::now();
  spk::Impl::stream_wait(side, helper);  // B's own values are in place before the fetched ones
  Impl::b_ext_fetched_values(side, h, fvals);
  h.times.assemble += Impl::seconds_since(t);
  t = Impl::now();
  // A_rest's product where symbolic ran it, its rows copied into C; the
  // ghost block's numeric (the rows next to other ranks' blocks) beside the
  // interior rows' on the high-priority instance.
  if (has_rest) {
    if (!h.rest_on_side_) spk::Impl::stream_wait(space, side);
    Impl::local_spgemm_numeric(rest_on, h.rest_, h.a_rest_, h.b_local_,
                               h.rest_is_c_ ? C.local_block() : h.c_rest_, false);
    if (!h.rest_on_side_) spk::Impl::stream_wait(side, space);
    if (!h.rest_is_c_) Impl::copy_rest_rows(side, h, C.local_block(), false);
  }
  Impl::ghost_rows_copy(side, A, h, false);
  Impl::local_spgemm_numeric(side, h.ghost_, h.a_ghost_rows_, h.b_ghost_, h.c_ghost_sub_, false);
  // The ghost block's columns were renumbered: only its values are copied.
  Kokkos::deep_copy(side, C.ghost_block().values(), h.c_ghost_.values());
  spk::Impl::stream_wait(space, side);
  space.fence();
  h.times.local += Impl::seconds_since(t);
}

/// C = A·B in one call, leaving `h` ready for spgemm_numeric when A's and
/// B's values change.  B's values travel with its columns and the local
/// product runs once (symbolic followed by numeric would run it twice).
/// Collective.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                 const DistCsrMatrix<S, O, F, D>& A,
                                 const DistCsrMatrix<S, O, F, D>& B) {
  auto C = Impl::spgemm_pattern(space, h, A, B, true);
  space.fence();
  return C;
}

/// C = A·B in one call.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                                 const DistCsrMatrix<S, O, F, D>& B) {
  DistSpgemmHandle<S, O, F, D> h;
  return spgemm(space, h, A, B);
}

}  // namespace spk::dist
