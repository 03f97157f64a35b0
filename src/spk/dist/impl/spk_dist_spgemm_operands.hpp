// The merged local operands of the distributed SpGEMM: A's local and ghost
// blocks side by side (A_rest), the interior rows of A that need no fetched
// row of B (multiplied in place, from A's and B's local blocks), and the
// copy of A_rest's product into C's local block around them.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <impl/spk_dist_row_kernels.hpp>
#include <memory>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_memory_pool.hpp>
#include <utility>
#include <vector>

namespace spk::dist::Impl {

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
static void side_by_side(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& M, const RM& rm,
                         const C& cols, const V& vals, const Mark& mark = Mark(),
                         const BRM& bgrm = BRM(), long long s0 = 0, long long s1 = 0) {
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

/// Finds the interior rows of A (DistSpgemmHandle::split_interior) into
/// h.int_begin_ / int_end_ and h.a_int_off_: every row when A has no ghost
/// entries; else, with `split`, the longest run of rows without ghost
/// entries, on chunks of at least na / 4096 rows (the ghost block's row map
/// is constant over such a chunk: read at the chunks' ends only), if it
/// holds a sixteenth of the rows at least; else none.
template <class ExecSpace, class S, class O, class F, class D>
static void find_interior_rows(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
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

}  // namespace spk::dist::Impl
