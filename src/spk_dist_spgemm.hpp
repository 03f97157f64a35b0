// Distributed SpGEMM: C = A·B with A and B distributed by rows.  Each rank
// fetches only the rows of B that its ghost columns of A name (through A's
// SpMV communication plan), then multiplies locally; C is distributed like
// A's rows and B's columns.  Symbolic / numeric split as on one node.
#pragma once

#include <chrono>
#include <impl/spk_dist_local_ops.hpp>
#include <impl/spk_dist_row_kernels.hpp>
#include <impl/spk_dist_split.hpp>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spmv.hpp>
#include <string>
#include <utility>
#include <vector>

namespace spk::dist {

/// Wall time of the phases of spgemm (seconds) and what was sent.
struct SpgemmTimes {
  double fetch = 0;     // exchange of B's rows (lengths, columns, values)
  double local = 0;     // local SpGEMM
  double assemble = 0;  // building the merged operands / C's blocks
  long long bytes_sent = 0;
  // With DistSpgemmHandle::time_steps: (step, seconds) of the last one-call
  // or symbolic product, each step fenced (for finding the critical path).
  std::vector<std::pair<std::string, double>> steps;
  double total() const { return fetch + local + assemble; }
};

/// The reusable state of C = A·B: the fetched rows of B, the merged local
/// operands and where C's entries go.  Create one per product pattern, call
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
  SpgemmTimes times;
  bool time_steps = false;  // fence and record times.steps (costs a fence per step)

  // Internals (public for the free functions below).
  bool done_ = false;
  long long fetched_rows_ = 0, fetched_nnz_ = 0;
  std::vector<long long> send_edispls_, recv_edispls_;  // per neighbour, in entries
  Kokkos::View<F*, device_type> b_rm_;                  // B's local rows, merged
  Kokkos::View<long long*, device_type> send_rp_;       // packed sent rows
  local_matrix b_ext_, a_comb_, c_loc_;
  // Per row of c_loc_: its ghost entries left of the local ones.
  Kokkos::View<F*, device_type> c_before_;
  Kokkos::View<char*, device_type> send_buf_;  // packed rows of B to send (any entry type)
  Impl::LocalSpgemmHandle<O, F, device_type> local_;
  std::vector<std::shared_ptr<void>> pooled_;  // pooled memory behind the Views above
};

namespace Impl {

/// M's local and ghost blocks side by side, per row (local entries first),
/// written at row_map `rm` into cols / vals (either may be empty to skip
/// it).  Columns numbered globally (B's rows: owned column c is
/// col_begin + c, ghost j is ghost_gids[j]) or combined (A for the local
/// product: owned columns first, ghost j after them, the numbering of the
/// rows of B_ext).
template <class ExecSpace, class S, class O, class F, class D, class RM, class C, class V>
void side_by_side(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& M, const RM& rm,
                  const C& cols, const V& vals, bool global_columns) {
  auto L = M.local_block();
  auto G = M.ghost_block();
  auto lrm = L.row_map(), grm = G.row_map();
  auto lci = L.col_idx(), gci = G.col_idx();
  auto lva = L.values(), gva = G.values();
  auto gid = M.ghost_gids_view();
  const long long local_off = global_columns ? M.col_layout().begin() : 0;
  const long long ghost_off = global_columns ? 0 : M.col_layout().local_size();
  const bool do_cols = cols.extent(0) > 0, do_vals = vals.extent(0) > 0;
  row_parallel(
      space, "spk::dist::side_by_side", L.num_rows(),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long i) {
        const F q = rm(i), l0 = lrm(i), nl = lrm(i + 1) - l0, g0 = grm(i);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, nl + grm(i + 1) - g0), [&](const F t) {
          if (t < nl) {
            if (do_cols) cols(q + t) = static_cast<O>(lci(l0 + t) + local_off);
            if (do_vals) vals(q + t) = lva(l0 + t);
          } else {
            const auto j = gci(g0 + t - nl);
            if (do_cols) cols(q + t) = static_cast<O>(global_columns ? gid(j) : ghost_off + j);
            if (do_vals) vals(q + t) = gva(g0 + t - nl);
          }
        });
      });
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

/// Sends the packed entries of B's requested rows and fills B_ext's fetched
/// part (rows from B_ext.row_map()(nB) on).
template <class ExecSpace, class S, class O, class F, class D, class Src, class Dst>
void fetch_entries(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                   DistSpgemmHandle<S, O, F, D>& h, const Src& src, const Dst& dst,
                   long long dst_begin, int tag) {
  using T = typename Dst::non_const_value_type;
  using Dev = typename Dst::device_type;
  const auto& plan = A.plan();
  auto idx = plan.send_indices();
  auto brm = h.b_rm_;
  auto srp = h.send_rp_;
  // The packed rows go to a buffer the handle keeps, so that numeric reuse
  // allocates nothing.
  const std::size_t bytes = static_cast<std::size_t>(h.send_edispls_.back()) * sizeof(T);
  if (h.send_buf_.extent(0) < bytes)
    h.send_buf_ =
        exchange_view<Kokkos::View<char*, Dev>>(space, h.pooled_, "spk::dist::fetch_send", bytes);
  Kokkos::View<T*, Dev> send(reinterpret_cast<T*>(h.send_buf_.data()),
                             h.send_edispls_.back());  // unmanaged alias
  row_parallel(
      space, "spk::dist::fetch_pack", plan.num_sent(),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long k) {
        const F b = brm(idx(k));
        const long long s0 = srp(k);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, srp(k + 1) - s0),
                             [&](const long long t) { send(s0 + t) = src(b + t); });
      });
  space.fence();
  auto recv = Kokkos::subview(dst, Kokkos::make_pair(dst_begin, dst_begin + h.fetched_nnz_));
  Kokkos::View<T*, Dev> r(recv.data(), recv.extent(0));  // unmanaged alias, contiguous
  exchange_views(A.comm(), tag, plan.send_ranks(), h.send_edispls_, send, plan.recv_ranks(),
                 h.recv_edispls_, r);
  h.times.bytes_sent += h.send_edispls_.back() * static_cast<long long>(sizeof(T));
}

/// Where one neighbour's part of a combined columns + values message lies:
/// its first row and entry, and the byte offsets of its columns and of its
/// values in the message (each part padded to 16 bytes).
struct FetchSegment {
  long long row = 0, entry = 0, col_byte = 0, val_byte = 0;
};

/// Byte layout of a combined message: per neighbour (rows: row displs,
/// entries: entry displs), its segment; the last element ends the message.
template <class O, class S>
std::vector<FetchSegment> fetch_segments(const std::vector<long long>& rows,
                                         const std::vector<long long>& entries) {
  std::vector<FetchSegment> seg(rows.size());
  long long byte = 0;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    const long long cnt = n + 1 < rows.size() ? entries[n + 1] - entries[n] : 0;
    seg[n].row = rows[n];
    seg[n].entry = entries[n];
    seg[n].col_byte = byte;
    seg[n].val_byte = byte + (cnt * static_cast<long long>(sizeof(O)) + 15) / 16 * 16;
    byte = seg[n].val_byte + (cnt * static_cast<long long>(sizeof(S)) + 15) / 16 * 16;
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

/// fetch_entries for B's columns and values in one exchange: the rows of
/// B_ext from row nb on get their columns (global) and values, at entry
/// dst_begin on (rrp: the fetched rows' entry offsets, on the device).
template <class ExecSpace, class S, class O, class F, class D, class Cols, class Vals, class RRP>
void fetch_columns_and_values(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                              DistSpgemmHandle<S, O, F, D>& h, const Cols& cols, const Vals& vals,
                              const RRP& rrp, long long dst_begin, int tag) {
  using Dev = typename Cols::device_type;
  using SegView = Kokkos::View<FetchSegment*, Dev>;
  const auto& plan = A.plan();
  const auto send_seg = fetch_segments<O, S>(plan.send_displs(), h.send_edispls_);
  const auto recv_seg = fetch_segments<O, S>(plan.recv_displs(), h.recv_edispls_);
  const long long send_bytes = send_seg.back().col_byte, recv_bytes = recv_seg.back().col_byte;
  std::vector<long long> sd, rd;  // byte displacements per neighbour
  for (const auto& x : send_seg) sd.push_back(x.col_byte);
  for (const auto& x : recv_seg) rd.push_back(x.col_byte);
  std::vector<std::shared_ptr<void>> temps;
  using Bytes = Kokkos::View<char*, Dev>;
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
  auto brm = h.b_rm_;
  auto srp = h.send_rp_;
  row_parallel(
      space, "spk::dist::fetch_pack2", plan.num_sent(),
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long k) {
        const FetchSegment g = ss(fetch_segment_of(ss, k));
        const F b = brm(idx(k));
        const long long s0 = srp(k), w0 = s0 - g.entry;
        O* sc = reinterpret_cast<O*>(send.data() + g.col_byte) + w0;
        S* sv = reinterpret_cast<S*>(send.data() + g.val_byte) + w0;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, srp(k + 1) - s0), [&](const long long t) {
          sc[t] = cols(b + t);
          sv[t] = vals(b + t);
        });
      });
  space.fence();
  exchange_views(A.comm(), tag, plan.send_ranks(), sd, send, plan.recv_ranks(), rd, recv);
  row_parallel(
      space, "spk::dist::fetch_unpack2", static_cast<long long>(rrp.extent(0)) - 1,
      KOKKOS_LAMBDA(const RowMember<ExecSpace>& m, const long long j) {
        const FetchSegment g = rs(fetch_segment_of(rs, j));
        const long long r0 = rrp(j), w0 = r0 - g.entry;
        const O* rc = reinterpret_cast<const O*>(recv.data() + g.col_byte) + w0;
        const S* rv = reinterpret_cast<const S*>(recv.data() + g.val_byte) + w0;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rrp(j + 1) - r0), [&](const long long t) {
          cols(dst_begin + r0 + t) = rc[t];
          vals(dst_begin + r0 + t) = rv[t];
        });
      });
  h.times.bytes_sent += send_bytes;
}

inline std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }

/// spgemm_symbolic, and with with_values the whole product: B's values
/// travel with its columns and the local product's values go into C, so
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
  const bool time_steps = h.time_steps;
  h = DistSpgemmHandle<S, O, F, D>();
  h.time_steps = time_steps;
  auto step_t = now();
  auto step = [&](const char* name) {
    if (!time_steps) return;
    space.fence();
    h.times.steps.emplace_back(name, seconds_since(step_t));
    step_t = now();
  };
  // Temporaries come from spk's memory pool (stream-ordered, no
  // synchronisation to free them); `temps` frees this call's at return,
  // h.pooled_ keeps the handle's.
  std::vector<std::shared_ptr<void>> temps;
  auto pooled = [&](auto view_tag, std::vector<std::shared_ptr<void>>& owners, const char* label,
                    std::size_t n) {
    return spk::Impl::pooled_view<decltype(view_tag)>(space, owners, label, n);
  };
  // Arrays MPI may touch in place come from exchange_view.
  auto exchanged = [&](auto view_tag, std::vector<std::shared_ptr<void>>& owners, const char* label,
                       std::size_t n) {
    return exchange_view<decltype(view_tag)>(space, owners, label, n);
  };
  auto t = now();
  const long long nb = B.row_layout().local_size(), ng = A.num_ghosts();
  const long long ns = A.plan().num_sent();
  const auto& plan = A.plan();

  // B's local rows with global columns: row_map = local + ghost lengths.
  auto lrm = B.local_block().row_map(), grm = B.ghost_block().row_map();
  h.b_rm_ = pooled(Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::b_rm", nb + 1);
  auto brm = h.b_rm_;
  auto row_len = exchanged(Kokkos::View<F*, Dev>(), temps, "spk::dist::row_len", nb);
  Kokkos::parallel_for(
      "spk::dist::b_rm", Kokkos::RangePolicy<ExecSpace>(space, 0, nb + 1),
      KOKKOS_LAMBDA(const long long i) {
        brm(i) = lrm(i) + grm(i);
        if (i < nb) row_len(i) = lrm(i + 1) + grm(i + 1) - lrm(i) - grm(i);
      });
  // Packed layout of the rows we send: prefix sums of their lengths.
  h.send_rp_ = pooled(Kokkos::View<long long*, Dev>(), h.pooled_, "spk::dist::send_rp", ns + 1);
  auto srp = h.send_rp_;
  Kokkos::deep_copy(space, Kokkos::subview(srp, std::make_pair(0LL, 1LL)), 0LL);
  auto idx = plan.send_indices();
  Kokkos::parallel_scan(
      "spk::dist::send_rp", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(const long long k, long long& upd, const bool final) {
        upd += row_len(idx(k));
        if (final) srp(k + 1) = upd;
      });
  h.times.assemble += seconds_since(t);
  step("b_row_map");

  // 1. Lengths of the fetched rows, through the SpMV plan.
  t = now();
  auto recv_len = exchanged(Kokkos::View<F*, Dev>(), temps, "spk::dist::recv_len", ng);
  Kokkos::deep_copy(space, recv_len, F(0));
  HaloBuffers<F, Dev> lbuf;
  plan.begin(space, row_len, recv_len, lbuf, 7103);
  plan.finish(recv_len, lbuf);
  h.times.bytes_sent += ns * static_cast<long long>(sizeof(F));
  h.times.fetch += seconds_since(t);
  step("exchange_lengths");

  // 2. B_ext = B's local rows, then the fetched rows.
  t = now();
  auto srp_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), srp);
  auto rlen_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recv_len);
  std::vector<long long> rrp(ng + 1, 0);
  for (long long j = 0; j < ng; ++j) rrp[j + 1] = rrp[j] + rlen_h(j);
  for (long long d : plan.send_displs()) h.send_edispls_.push_back(srp_h(d));
  for (long long d : plan.recv_displs()) h.recv_edispls_.push_back(rrp[d]);
  h.fetched_rows_ = ng;
  h.fetched_nnz_ = rrp[ng];
  F b_nnz = 0;
  Kokkos::deep_copy(b_nnz, Kokkos::subview(brm, nb));
  const long long ext_nnz = static_cast<long long>(b_nnz) + h.fetched_nnz_;
  SPK_REQUIRE(ext_nnz <= static_cast<long long>(std::numeric_limits<F>::max()), Overflow,
              "spk::dist::spgemm: rank ", A.row_layout().rank(), " needs ", ext_nnz,
              " entries of B, more than the offset type holds");
  // Without values (symbolic) B_ext's values are zeros: the local product
  // that finds C's columns also computes values, which numeric redoes.
  Local bext(
      static_cast<O>(nb + ng), static_cast<O>(B.num_cols()),
      pooled(typename Local::row_map_type(), h.pooled_, "spk::dist::b_ext.row_map", nb + ng + 1),
      exchanged(typename Local::index_type(), h.pooled_, "spk::dist::b_ext.col_idx", ext_nnz),
      exchanged(typename Local::values_type(), h.pooled_, "spk::dist::b_ext.values", ext_nnz));
  if (!with_values) Kokkos::deep_copy(space, bext.values(), S(0));
  // The fetched rows' entry offsets, on the device.
  auto rrp_d = pooled(Kokkos::View<long long*, Dev>(), temps, "spk::dist::rrp", rrp.size());
  Kokkos::deep_copy(
      space, rrp_d,
      Kokkos::View<long long*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(rrp.data(), rrp.size()));
  {
    auto erm = bext.row_map();
    Kokkos::parallel_for(
        "spk::dist::b_ext_rm", Kokkos::RangePolicy<ExecSpace>(space, 0, nb + ng + 1),
        KOKKOS_LAMBDA(const long long i) {
          erm(i) = i <= nb ? brm(i) : static_cast<F>(brm(nb) + rrp_d(i - nb));
        });
    side_by_side(space, B, brm, bext.col_idx(),
                 with_values ? bext.values() : typename Local::values_type(), true);
  }
  h.b_ext_ = bext;
  h.times.assemble += seconds_since(t);
  step("b_ext_local_part");

  // 3. Their columns (global indices), and values for the whole product.
  t = now();
  // The whole product: columns and values in one exchange.
  if (with_values)
    fetch_columns_and_values(space, A, h, bext.col_idx(), bext.values(), rrp_d, b_nnz, 7106);
  else
    fetch_entries(space, A, h, bext.col_idx(), bext.col_idx(), b_nnz, 7104);
  h.times.fetch += seconds_since(t);
  step("fetch_rows_of_b");

  // 4. A's blocks side by side, and the local product's pattern.
  t = now();
  {
    auto al = A.local_block().row_map(), ag = A.ghost_block().row_map();
    const long long na = A.row_layout().local_size();
    auto arm = pooled(Kokkos::View<F*, Dev>(), h.pooled_, "spk::dist::a_comb.row_map", na + 1);
    Kokkos::parallel_for(
        "spk::dist::a_comb_rm", Kokkos::RangePolicy<ExecSpace>(space, 0, na + 1),
        KOKKOS_LAMBDA(const long long i) { arm(i) = al(i) + ag(i); });
    const F a_nnz = static_cast<F>(A.local_block().nnz() + A.ghost_block().nnz());
    h.a_comb_ =
        Local(static_cast<O>(na), static_cast<O>(nb + ng), arm,
              pooled(Kokkos::View<O*, Dev>(), h.pooled_, "spk::dist::a_comb.col_idx", a_nnz),
              pooled(Kokkos::View<S*, Dev>(), h.pooled_, "spk::dist::a_comb.values", a_nnz));
    side_by_side(space, A, h.a_comb_.row_map(), h.a_comb_.col_idx(), h.a_comb_.values(), false);
  }
  h.times.assemble += seconds_since(t);
  step("a_combined");
  t = now();
  h.c_loc_ = local_spgemm_symbolic(space, h.local_, h.a_comb_, h.b_ext_);
  h.times.local += seconds_since(t);
  step("local_product");

  // 5. C's blocks: the local product's rows (sorted) split by B's column
  // layout where they live.
  t = now();
  auto split = split_sorted_rows(space, h.c_loc_, B.num_cols(), B.col_layout().begin(),
                                 B.col_layout().end(), with_values, step);
  h.c_before_ = split.before;
  h.pooled_.push_back(split.before_owner);
  step("split_c");
  DistCsrMatrix<S, O, F, D> C(A.row_layout(), B.col_layout(), split.local, split.ghost,
                              split.ghost_gids);
  h.times.assemble += seconds_since(t);
  step("c_matrix_and_plan");
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
  SPK_REQUIRE(h.a_comb_.nnz() == A.local_block().nnz() + A.ghost_block().nnz() &&
                  C.local_nnz() == h.c_loc_.nnz(),
              ShapeMismatch, "spk::dist::spgemm_numeric: A or C is not the one symbolic saw");
  auto t = Impl::now();
  F b_nnz = 0;
  Kokkos::deep_copy(b_nnz, Kokkos::subview(h.b_rm_, h.b_rm_.extent(0) - 1));
  using Dev = typename DistCsrMatrix<S, O, F, D>::device_type;
  Impl::side_by_side(space, B, h.b_rm_, Kokkos::View<O*, Dev>(), h.b_ext_.values(), true);
  Impl::side_by_side(space, A, h.a_comb_.row_map(), Kokkos::View<O*, Dev>(), h.a_comb_.values(),
                     false);
  space.fence();
  h.times.assemble += Impl::seconds_since(t);
  t = Impl::now();
  Impl::fetch_entries(space, A, h, h.b_ext_.values(), h.b_ext_.values(), b_nnz, 7105);
  h.times.fetch += Impl::seconds_since(t);
  t = Impl::now();
  Impl::local_spgemm_numeric(space, h.local_, h.a_comb_, h.b_ext_, h.c_loc_);
  h.times.local += Impl::seconds_since(t);
  t = Impl::now();
  Impl::scatter_split_values(space, h.c_loc_.num_rows(), h.c_loc_.row_map(), h.c_before_,
                             C.local_block().row_map(), C.ghost_block().row_map(),
                             h.c_loc_.values(), C.local_block().values(), C.ghost_block().values());
  space.fence();
  h.times.assemble += Impl::seconds_since(t);
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
