// The fetch of the distributed SpGEMM: the rows of B that A's ghost columns
// name travel in one message per neighbour (columns and/or values, each
// part padded to 16 bytes), packed straight from B's blocks and unpacked on
// the device; numeric places the fetched values into B_ext by the
// positions symbolic recorded.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_mpi.hpp>
#include <impl/spk_dist_row_kernels.hpp>
#include <memory>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_memory_pool.hpp>
#include <utility>
#include <vector>

namespace spk::dist::Impl {

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
static void fetch_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                       const DistCsrMatrix<S, O, F, D>& B, DistSpgemmHandle<S, O, F, D>& h,
                       const Cols& cols, const Vals& vals, const RRP& rrp, bool do_cols,
                       bool do_vals, int tag) {
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
static void b_ext_fetched_values(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
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

}  // namespace spk::dist::Impl
