// The symbolic phase of the distributed SpGEMM (and, with values, the
// one-call product): spgemm_pattern runs the steps below in order.  Three
// instances besides the caller's `space` each get work that does not
// depend on the others' until it joins them:
// * `space` (and its bin streams): the interior rows' product, which needs
//   nothing fetched and is the bulk of the work;
// * `side`: the fetch of B's rows (lengths, then the rows), a chain of
//   small kernels, copies to the host and exchanges that the other ranks
//   wait for, then A_rest's product (when small) and C's ghost block and
//   plan; it is the instance the GPU serves first (priority_instance;
//   `space` itself on hosts);
// * `helper`: copies that need nothing fetched (A_rest, B's own rows in
//   B_ext, the ghost rows' marks), at the highest priority too (at the
//   caller's they waited for the interior count's blocks, and the fetch
//   chain for them).
#pragma once

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdint>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_dist_ghost_columns.hpp>
#include <impl/spk_dist_local_ops.hpp>
#include <impl/spk_dist_mpi.hpp>
#include <impl/spk_dist_spgemm_fetch.hpp>
#include <impl/spk_dist_spgemm_ghost_rows.hpp>
#include <impl/spk_dist_spgemm_operands.hpp>
#include <impl/spk_dist_timing.hpp>
#include <impl/spk_spgemm_common.hpp>
#include <limits>
#include <memory>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_instances.hpp>
#include <spk_memory_pool.hpp>
#include <utility>
#include <vector>

namespace spk::dist::Impl {

/// What the steps of spgemm_pattern share: the operands, the instances,
/// the sizes found on the way and the arrays handed from step to step.
/// Not copyable, so that no kernel captures it by mistake: each step copies
/// what its kernels read into locals first.
template <class ExecSpace, class S, class O, class F, class D>
struct PatternState {
  using Matrix = DistCsrMatrix<S, O, F, D>;
  using Handle = DistSpgemmHandle<S, O, F, D>;
  using Dev = typename Matrix::device_type;
  using Local = CsrMatrix<S, O, F, Dev>;
  using execution_space = ExecSpace;

  /// Resets `h_` (keeping its options) and starts the step clock.
  PatternState(const ExecSpace& space_, Handle& h_, const Matrix& A_, const Matrix& B_,
               bool with_values_)
      : space(space_), h(h_), A(A_), B(B_), with_values(with_values_) {
    const StepTiming timing = h.step_timing;
    const bool split = h.split_interior;
    time_steps = timing != StepTiming::Off;
    fenced = timing == StepTiming::Fenced;
    h = Handle();
    h.step_timing = timing;
    h.split_interior = split;
    step_t = now();
    side = spk::Impl::priority_instance(space);
    helper = spk::Impl::helper_instance(space);
    na = A.row_layout().local_size();
    nb = B.row_layout().local_size();
    ng = A.num_ghosts();
    ext_rows = nb + ng;
    ns = A.plan().num_sent();
    cb = B.col_layout().begin();
    ce = B.col_layout().end();
    bl_nnz = B.local_block().nnz();
    bg_nnz = B.ghost_block().nnz();
    h.na_ = na;
    h.a_nnz_ = A.local_block().nnz() + A.ghost_block().nnz();
  }
  PatternState(const PatternState&) = delete;
  PatternState& operator=(const PatternState&) = delete;

  /// Records the time since the last step as `name`'s (StepTiming).
  void step(const char* name) {
    if (!time_steps) return;
    if (fenced) Kokkos::fence();  // every instance (steps one after the other)
    h.times.steps.emplace_back(name, seconds_since(step_t));
    step_t = now();
  }
  /// step() for the callees that time their own stages (none when off).
  StepTimer step_timer() {
    return time_steps ? StepTimer([this](const char* name) { step(name); }) : StepTimer();
  }
  /// An array that MPI may read or write in place, on `side`.
  template <class View>
  View exchanged(std::vector<std::shared_ptr<void>>& owners, const char* label, std::size_t n) {
    return exchange_view<View>(side, owners, label, n);
  }

  const ExecSpace& space;
  Handle& h;
  const Matrix& A;
  const Matrix& B;
  const bool with_values;
  bool time_steps = false, fenced = false;
  std::chrono::steady_clock::time_point step_t;
  ExecSpace side, helper;
  // Temporaries come from spk's memory pool (stream-ordered, no
  // synchronisation to free them); `temps` frees this product's when the
  // state goes, h.pooled_ keeps the handle's.  (Declared before the arrays
  // below, which go first.)
  std::vector<std::shared_ptr<void>> temps;
  long long na = 0, nb = 0, ng = 0, ext_rows = 0, ns = 0, cb = 0, ce = 0;
  long long bl_nnz = 0, bg_nnz = 0;      // B's local and ghost blocks' entries
  long long r0 = 0, r1 = 0, n_rest = 0;  // the interior rows [r0, r1), the others' number
  bool has_rest = false;  // A_rest has rows (or B_ext fetched ones: A has ghost columns)
  long long nf = 0;       // fetched entries
  // C's local block's row counts (counts(i + 1): row i), from both products.
  Kokkos::View<std::uint64_t*, Dev> counts;
  Kokkos::View<F*, Dev> row_len;   // B's local rows' lengths (both blocks)
  Kokkos::View<F*, Dev> recv_len;  // the fetched rows' lengths
  // B_ext's two parts (columns this rank owns, the others), long enough
  // for every fetched entry.
  typename Local::row_map_type bl_rm, bg_rm;
  typename Local::index_type bl_ci, bg_ci;
  typename Local::values_type bl_va, bg_va;
  Kokkos::View<O*, Dev> fcols;           // the fetched rows' columns (global)
  Kokkos::View<S*, Dev> fvals;           // and values (one-call product only)
  CompactedColumns<S, O, F, Dev> ghost;  // C's ghost block and its columns
};

/// Finds the interior rows, decides where A_rest's product runs, allocates
/// A_rest and C's row counts, and orders `side` and `helper` after `space`.
template <class St>
void choose_rows(St& st) {
  using Dev = typename St::Dev;
  using Local = typename St::Local;
  using O = typename Local::ordinal_type;
  using F = typename Local::offset_type;
  using S = typename Local::scalar_type;
  auto& h = st.h;
  const auto t = now();
  find_interior_rows(st.space, st.A, h, h.split_interior, st.temps);
  st.r0 = h.int_begin_;
  st.r1 = h.int_end_;
  st.n_rest = st.na - (st.r1 - st.r0);
  // (A has ghost columns then; with ghost columns, the fetched rows need
  // B_ext's local part, which only A_rest's product reads)
  st.has_rest = st.n_rest > 0 || st.ng > 0;
  h.rest_on_side_ = st.has_rest && 2 * st.n_rest <= st.na;
  h.rest_is_c_ = st.has_rest && st.r1 == st.r0;  // (its C is C's local block)
  // (allocated before the other instances are ordered after `space`)
  if (st.has_rest) {
    const F rest_nnz = static_cast<F>(h.a_nnz_ - (h.a_int_off_[1] - h.a_int_off_[0]));
    h.a_rest_ = Local(static_cast<O>(st.n_rest), static_cast<O>(st.ext_rows),
                      spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(
                          st.space, h.pooled_, "spk::dist::a_rest.row_map", st.n_rest + 1),
                      spk::Impl::pooled_view<Kokkos::View<O*, Dev>>(
                          st.space, h.pooled_, "spk::dist::a_rest.col_idx", rest_nnz),
                      spk::Impl::pooled_view<Kokkos::View<S*, Dev>>(
                          st.space, h.pooled_, "spk::dist::a_rest.values", rest_nnz));
  }
  st.counts = spk::Impl::pooled_view<Kokkos::View<std::uint64_t*, Dev>>(
      st.space, st.temps, "spk::dist::c_counts", st.na + 1);
  spk::Impl::stream_wait(st.side, st.space);  // A and B as the caller's work on `space` left them
  spk::Impl::stream_wait(st.helper, st.space);
  h.times.assemble += seconds_since(t);
}

/// Lengths of B's local rows, and the packed layout of the rows we send
/// (h.send_rp_), on `side`.
template <class St>
static void b_row_lengths(St& st) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using F = typename St::Local::offset_type;
  auto& h = st.h;
  const auto t = now();
  const long long nb = st.nb, ns = st.ns;
  auto lrm = st.B.local_block().row_map(), grm = st.B.ghost_block().row_map();
  st.row_len =
      spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(st.side, st.temps, "spk::dist::row_len", nb);
  auto row_len = st.row_len;
  Kokkos::parallel_for(
      "spk::dist::b_row_len", Kokkos::RangePolicy<ExecSpace>(st.side, 0, nb),
      KOKKOS_LAMBDA(const long long i) { row_len(i) = lrm(i + 1) + grm(i + 1) - lrm(i) - grm(i); });
  h.send_rp_ = spk::Impl::pooled_view<Kokkos::View<long long*, Dev>>(st.side, h.pooled_,
                                                                     "spk::dist::send_rp", ns + 1);
  auto srp = h.send_rp_;
  Kokkos::deep_copy(st.side, Kokkos::subview(srp, std::make_pair(0LL, 1LL)), 0LL);
  auto idx = st.A.plan().send_indices();
  Kokkos::parallel_scan(
      "spk::dist::send_rp", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ns),
      KOKKOS_LAMBDA(const long long k, long long& upd, const bool final) {
        upd += row_len(idx(k));
        if (final) srp(k + 1) = upd;
      });
  h.times.assemble += seconds_since(t);
  st.step("b_row_lengths");
}

/// 1. The interior rows' counts, on `space`: A's and B's local blocks as
/// they are (the host waits for the count's first pass only).
template <class St>
static void count_interior_rows(St& st) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using F = typename St::Local::offset_type;
  auto& h = st.h;
  const auto t = now();
  const long long r0 = st.r0, r1 = st.r1;
  if (r1 > r0) {
    h.a_int_rm_ = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(
        st.space, h.pooled_, "spk::dist::a_int.row_map", r1 - r0 + 1);
    auto arm = h.a_int_rm_;
    auto alrm = st.A.local_block().row_map();
    Kokkos::parallel_for(
        "spk::dist::a_int_row_map", Kokkos::RangePolicy<ExecSpace>(st.space, 0, r1 - r0 + 1),
        KOKKOS_LAMBDA(const long long i) { arm(i) = alrm(r0 + i) - alrm(r0); });
    local_spgemm_count(st.space, h.interior_, interior_a(st.A, h), st.B.local_block(),
                       Kokkos::subview(st.counts, std::make_pair(r0, r1 + 1)), st.fenced);
  }
  h.times.local += seconds_since(t);
  if (st.fenced && h.interior_.handle)
    for (const auto& [phase, ms] : h.interior_.handle->phase_times())
      h.times.steps.emplace_back("interior." + phase, 1e-3 * ms);
  st.step("interior_count");
}

/// 2. A_rest (columns: B_ext's rows), and the rows the ghost product needs
/// (select_ghost_rows lists them later), on `helper`.
template <class St>
void assemble_a_rest(St& st) {
  using Dev = typename St::Dev;
  using Local = typename St::Local;
  using F = typename Local::offset_type;
  auto& h = st.h;
  const auto t = now();
  const bool b_ghost = st.bg_nnz > 0 || st.ng > 0;
  if (st.has_rest && st.r1 == st.r0) {
    mark_ghost_rows(st.helper, st.A, st.B, h, b_ghost, true);
  } else {
    if (st.has_rest)
      side_by_side(st.helper, st.A, h.a_rest_.row_map(), h.a_rest_.col_idx(), h.a_rest_.values(),
                   Kokkos::View<F*, Dev>(), typename Local::row_map_type(), st.r0, st.r1);
    mark_ghost_rows(st.helper, st.A, st.B, h, b_ghost, false);
  }
  h.times.assemble += seconds_since(t);
  st.step("a_rest");
}

/// 3. Lengths of the fetched rows, to A's ghost columns' owners (the SpMV
/// plan's pattern), and the fetched rows' entry offsets (h.fetch_rp_,
/// h.send_edispls_ / recv_edispls_, h.fetched_nnz_).  Only `side` is
/// fenced before the exchange.
template <class St>
static void exchange_row_lengths(St& st) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using F = typename St::Local::offset_type;
  auto& h = st.h;
  const auto& plan = st.A.plan();
  const auto t = now();
  const long long ns = st.ns, ng = st.ng;
  auto row_len = st.row_len;
  auto idx = plan.send_indices();
  auto srp = h.send_rp_;
  st.recv_len = st.template exchanged<Kokkos::View<F*, Dev>>(st.temps, "spk::dist::recv_len", ng);
  auto recv_len = st.recv_len;
  {
    auto send_len =
        st.template exchanged<Kokkos::View<F*, Dev>>(st.temps, "spk::dist::send_len", ns);
    Kokkos::parallel_for(
        "spk::dist::pack_lengths", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ns),
        KOKKOS_LAMBDA(const long long k) { send_len(k) = row_len(idx(k)); });
    st.side.fence();
    exchange_views(st.A.comm(), 7103, plan.send_ranks(), plan.send_displs(), send_len,
                   plan.recv_ranks(), plan.recv_displs(), recv_len, true, st.side);
  }
  h.times.bytes_sent += ns * static_cast<long long>(sizeof(F));
  // The fetched rows' entry offsets are scanned on the device (numeric
  // reuses them); the host reads only the entry offsets at the neighbours'
  // boundaries and the total (not every row's offset, to the host and back,
  // through pageable memory, on the fetch chain).
  h.fetch_rp_ = spk::Impl::pooled_view<Kokkos::View<long long*, Dev>>(st.side, h.pooled_,
                                                                      "spk::dist::rrp", ng + 1);
  auto rrp_d = h.fetch_rp_;
  Kokkos::parallel_for(
      "spk::dist::fetched_lengths", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ng + 1),
      KOKKOS_LAMBDA(const long long j) { rrp_d(j) = j < ng ? recv_len(j) : 0; });
  spk::Impl::exclusive_scan_queued(st.side, rrp_d, ng);
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
    auto at_d = spk::Impl::pooled_view<Kokkos::View<long long*, Dev>>(st.side, st.temps,
                                                                      "spk::dist::displ_at", nat);
    Kokkos::deep_copy(st.side, at_d, HostLL(at.data(), nat));
    Kokkos::parallel_for(
        "spk::dist::entry_displs", Kokkos::RangePolicy<ExecSpace>(st.side, 0, nat),
        KOKKOS_LAMBDA(const long long k) { at_d(k) = k < nsd ? srp(at_d(k)) : rrp_d(at_d(k)); });
    Kokkos::deep_copy(st.side, HostLL(at.data(), nat), at_d);
    st.side.fence();
    h.send_edispls_.assign(at.begin(), at.begin() + nsd);
    h.recv_edispls_.assign(at.begin() + nsd, at.end() - 1);
    h.fetched_nnz_ = at.back();
  }
  h.fetched_rows_ = ng;
  st.nf = h.fetched_nnz_;
  const long long need = st.bl_nnz + st.bg_nnz + st.nf;
  SPK_REQUIRE(spk::Impl::fits_integer<F>(need), Overflow, "spk::dist::spgemm: rank ",
              st.A.row_layout().rank(), " needs ", need,
              " entries of B, more than the offset type holds");
  h.times.fetch += seconds_since(t);
  st.step("exchange_lengths");
}

/// 4. B_ext = B's local rows, then the fetched rows, split by column
/// owner.  B's own rows are split already (its blocks): copied now on
/// `helper` (the local part only for A_rest's product), into arrays long
/// enough for every fetched entry (how a fetched row's entries split is
/// known only once its columns are here).  `side` allocates the arrays and
/// `helper` waits for it: `side` has nothing else queued by then (fenced
/// for the exchange), so the wait costs nothing.
template <class St>
static void copy_own_rows_of_b(St& st) {
  using ExecSpace = typename St::execution_space;
  using Local = typename St::Local;
  using O = typename Local::ordinal_type;
  using S = typename Local::scalar_type;
  auto& h = st.h;
  const auto t = now();
  const bool has_rest = st.has_rest;
  const long long bl_nnz = st.bl_nnz, bg_nnz = st.bg_nnz, nf = st.nf;
  const long long bl_cap = has_rest ? bl_nnz + nf : 0, bg_cap = bg_nnz + nf;
  auto pooled_side = [&](auto view_tag, const char* label, std::size_t n) {
    return spk::Impl::pooled_view<decltype(view_tag)>(st.side, h.pooled_, label, n);
  };
  st.bl_rm = pooled_side(typename Local::row_map_type(), "spk::dist::b_local.row_map",
                         has_rest ? st.ext_rows + 1 : 0);
  st.bl_ci = pooled_side(typename Local::index_type(), "spk::dist::b_local.col_idx", bl_cap);
  st.bl_va = pooled_side(typename Local::values_type(), "spk::dist::b_local.values", bl_cap);
  st.bg_rm =
      pooled_side(typename Local::row_map_type(), "spk::dist::b_ghost.row_map", st.ext_rows + 1);
  st.bg_ci = pooled_side(typename Local::index_type(), "spk::dist::b_ghost.col_idx", bg_cap);
  st.bg_va = pooled_side(typename Local::values_type(), "spk::dist::b_ghost.values", bg_cap);
  spk::Impl::stream_wait(st.helper, st.side);
  // B's own rows: the local block's columns as they are, the ghost
  // block's as global columns; their values (zeros for symbolic, whose
  // local products compute values that numeric redoes).
  const auto head = std::make_pair(0LL, bl_nnz), ghead = std::make_pair(0LL, bg_nnz);
  const auto& B = st.B;
  if (has_rest) {
    Kokkos::deep_copy(st.helper, Kokkos::subview(st.bl_ci, head), B.local_block().col_idx());
    if (st.with_values)
      Kokkos::deep_copy(st.helper, Kokkos::subview(st.bl_va, head), B.local_block().values());
    else
      Kokkos::deep_copy(st.helper, Kokkos::subview(st.bl_va, head), S(0));
  }
  auto gci = B.ghost_block().col_idx();
  auto gid = B.ghost_gids_view();
  auto bgc = st.bg_ci;
  Kokkos::parallel_for(
      "spk::dist::b_ghost_columns", Kokkos::RangePolicy<ExecSpace>(st.helper, 0, bg_nnz),
      KOKKOS_LAMBDA(const long long k) { bgc(k) = static_cast<O>(gid(gci(k))); });
  if (st.with_values)
    Kokkos::deep_copy(st.helper, Kokkos::subview(st.bg_va, ghead), B.ghost_block().values());
  else
    Kokkos::deep_copy(st.helper, Kokkos::subview(st.bg_va, ghead), S(0));
  h.times.assemble += seconds_since(t);
}

/// 5. The fetched rows' columns (global), and their values for the whole
/// product, in one exchange (on `side`).
template <class St>
void fetch_rows_of_b(St& st) {
  using Dev = typename St::Dev;
  using Local = typename St::Local;
  using O = typename Local::ordinal_type;
  using S = typename Local::scalar_type;
  const auto t = now();
  st.fcols =
      st.template exchanged<Kokkos::View<O*, Dev>>(st.temps, "spk::dist::fetched_cols", st.nf);
  st.fvals = st.template exchanged<Kokkos::View<S*, Dev>>(st.temps, "spk::dist::fetched_values",
                                                          st.with_values ? st.nf : 0);
  fetch_rows(st.side, st.A, st.B, st.h, st.fcols, st.fvals, st.h.fetch_rp_, true, st.with_values,
             7106);
  st.h.times.fetch += seconds_since(t);
  st.step("fetch_rows_of_b");
}

/// The fetched rows into B_ext's two parts, split by where their columns
/// live (on `side`, past B's own entries, which `helper` writes), with
/// each fetched entry's place (h.fetch_dest_) for numeric; then `side`
/// joins `helper`.
template <class St>
static void split_b_ext(St& st) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using Local = typename St::Local;
  using O = typename Local::ordinal_type;
  using F = typename Local::offset_type;
  using S = typename Local::scalar_type;
  auto& h = st.h;
  const auto t = now();
  const long long ng = st.ng, nb = st.nb, cb = st.cb, ce = st.ce, nf = st.nf;
  const long long bl_nnz = st.bl_nnz, bg_nnz = st.bg_nnz, ext_rows = st.ext_rows;
  const bool has_rest = st.has_rest, with_values = st.with_values;
  auto rrp_d = h.fetch_rp_;
  auto fcols = st.fcols;
  auto fvals = st.fvals;
  auto flocal = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(st.side, st.temps,
                                                              "spk::dist::fetched_local", ng + 1);
  Kokkos::parallel_for(
      "spk::dist::fetched_local_count", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ng + 1),
      KOKKOS_LAMBDA(const long long j) {
        F n = 0;
        if (j < ng)
          for (long long e = rrp_d(j); e < rrp_d(j + 1); ++e)
            n += fcols(e) >= cb && fcols(e) < ce ? 1 : 0;
        flocal(j) = n;
      });
  const long long nfl = spk::Impl::exclusive_scan(st.side, flocal, ng);  // fetched local entries
  const long long bcols_local = ce - cb;
  const Local bl = has_rest ? Local(static_cast<O>(ext_rows), static_cast<O>(bcols_local), st.bl_rm,
                                    Kokkos::subview(st.bl_ci, std::make_pair(0LL, bl_nnz + nfl)),
                                    Kokkos::subview(st.bl_va, std::make_pair(0LL, bl_nnz + nfl)))
                            : Local();
  const Local bg(static_cast<O>(ext_rows), static_cast<O>(st.B.num_cols()), st.bg_rm,
                 Kokkos::subview(st.bg_ci, std::make_pair(0LL, bg_nnz + nf - nfl)),
                 Kokkos::subview(st.bg_va, std::make_pair(0LL, bg_nnz + nf - nfl)));
  h.fetch_dest_ = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(st.side, h.pooled_,
                                                                "spk::dist::fetch_dest", nf);
  auto lrm = st.B.local_block().row_map(), grm = st.B.ghost_block().row_map();
  auto blrm = st.bl_rm, bgrm = st.bg_rm;
  Kokkos::parallel_for(
      "spk::dist::b_ext_row_maps", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ext_rows + 1),
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
  auto blc = st.bl_ci, bgc = st.bg_ci;
  auto blv = st.bl_va, bgv = st.bg_va;
  auto dest = h.fetch_dest_;
  Kokkos::parallel_for(
      "spk::dist::b_ext_fetched", Kokkos::RangePolicy<ExecSpace>(st.side, 0, ng),
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
  h.b_local_ = bl;
  h.b_ghost_ = bg;
  spk::Impl::stream_wait(st.side, st.helper);  // B's own rows, A_rest and the marks are in place
  h.times.assemble += seconds_since(t);
  st.step("b_ext");
}

/// 6. A_rest's product (the rows next to other ranks' blocks, and any
/// others without an interior run): on `side` when it is small, so that it
/// runs beside the interior rows' count, else on `space` after it.  Its
/// numeric kernels are queued; its C is copied into C's local block later.
template <class St>
void rest_product(St& st) {
  auto& h = st.h;
  const auto t = now();
  if (st.has_rest) {
    if (!h.rest_on_side_) spk::Impl::stream_wait(st.space, st.side);
    const auto& rest_on = h.rest_on_side_ ? st.side : st.space;
    h.c_rest_ = local_spgemm_symbolic(rest_on, h.rest_, h.a_rest_, h.b_local_, false, st.fenced);
    if (st.fenced && h.rest_.handle)
      for (const auto& [phase, ms] : h.rest_.handle->phase_times())
        h.times.steps.emplace_back("rest." + phase, 1e-3 * ms);
  }
  h.times.local += seconds_since(t);
  st.step("rest_product");
}

/// 7. On `side` (the instance the GPU serves first; `space` itself on
/// hosts): C's ghost block and its column list (host work and small
/// kernels), into st.ghost.  spgemm_pattern runs it before the local block
/// while the interior rows' count still runs, beside it; else after the
/// local numeric is queued, beside that.  (Queued beside the numeric they
/// stretch it by about their own length: 1.4 ms at 2 GPUs, where building
/// them first took poisson3d:300 from 16.7 to 15.6 ms; but where the count
/// is short, building them first put them on the critical path:
/// poisson3d:200 at 4 GPUs 3.3 -> 3.8 ms.)
template <class St>
void ghost_block(St& st) {
  using Local = typename St::Local;
  auto& h = st.h;
  auto tg = now();
  select_ghost_rows(st.side, st.A, h);
  st.step("ghost_product.select_rows");
  h.c_ghost_sub_ = local_spgemm_symbolic(st.side, h.ghost_, h.a_ghost_rows_, h.b_ghost_);
  st.step("ghost_product.product");
  spread_ghost_product(st.side, h, st.B.num_cols());
  h.times.local += seconds_since(tg);
  st.step("ghost_product.spread");
  tg = now();
  // (compact_ghost_columns fences `side` after writing the ghost list.)
  // It runs over the ghost rows' product, whose entries are C's ghost
  // block's (a pass over every row of C was 0.17 ms at 2 GPUs), and the
  // result gets the row map over all rows back.
  auto& ghost = st.ghost;
  ghost =
      compact_ghost_columns(st.side, h.c_ghost_sub_, st.cb, st.ce, st.with_values, st.step_timer());
  ghost.matrix = Local(h.c_ghost_.num_rows(), ghost.matrix.num_cols(), h.c_ghost_.row_map(),
                       ghost.matrix.col_idx(), ghost.matrix.values());
  h.times.assemble += seconds_since(tg);
  st.step("ghost_columns");
}

/// C's local block with its row map (from the row counts of both
/// products, scanned on `space`: the host waits for the interior count
/// here) and its columns and values allocated; the interior rows' entry
/// range into h.c_int_off_.  (A_rest's C's row map is complete: the host
/// waited for its scan in symbolic.)
template <class St>
static typename St::Local allocate_c_local(St& st) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using Local = typename St::Local;
  using O = typename Local::ordinal_type;
  using F = typename Local::offset_type;
  auto& h = st.h;
  const long long na = st.na, r0 = st.r0, r1 = st.r1;
  auto counts = st.counts;
  if (st.has_rest) {
    auto crm = h.c_rest_.row_map();
    Kokkos::parallel_for(
        "spk::dist::rest_counts", Kokkos::RangePolicy<ExecSpace>(st.space, 0, st.n_rest),
        KOKKOS_LAMBDA(const long long j) {
          const long long i = j < r0 ? j : j + (r1 - r0);  // (A's row)
          counts(i + 1) = static_cast<std::uint64_t>(crm(j + 1) - crm(j));
        });
  }
  const bool pooled_c = !mpi_reads_directly<typename Dev::memory_space>();
  const auto rm = spk::Impl::result_view<typename Local::row_map_type>(
      st.space, "spk::dist::c_local.row_map", na + 1, pooled_c);
  const std::int64_t nnz = spk::Impl::row_map_from_counts(
      st.space, "spk::dist::c_local_row_map", counts, rm, na,
      static_cast<std::uint64_t>(h.interior_.products + h.rest_.products),
      "spk::dist::spgemm (C's local block)");
  F ends[2] = {0, 0};
  if (r1 > r0) {
    Kokkos::deep_copy(st.space, Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ends),
                      Kokkos::subview(rm, r0));
    Kokkos::deep_copy(st.space,
                      Kokkos::View<F, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ends + 1),
                      Kokkos::subview(rm, r1));
    st.space.fence();
  }
  h.c_int_off_[0] = ends[0];
  h.c_int_off_[1] = ends[1];
  return Local(static_cast<O>(na), static_cast<O>(st.ce - st.cb), rm,
               spk::Impl::result_view<typename Local::index_type>(
                   st.space, "spk::dist::c_local.col_idx", nnz, pooled_c),
               spk::Impl::result_view<typename Local::values_type>(
                   st.space, "spk::dist::c_local.values", nnz, pooled_c));
}

/// The interior rows' numeric queued in place in C's local block (on
/// `space`), and A_rest's product's rows copied in on `side`.
template <class St>
static void queue_local_numeric(St& st, const typename St::Local& c_local) {
  using ExecSpace = typename St::execution_space;
  using Dev = typename St::Dev;
  using F = typename St::Local::offset_type;
  auto& h = st.h;
  const long long r0 = st.r0, r1 = st.r1;
  if (r1 > r0) {
    auto rm = c_local.row_map();
    if (r0 == 0) {
      h.c_int_rm_ = Kokkos::subview(rm, std::make_pair(0LL, r1 + 1));  // (from 0 already)
    } else {
      h.c_int_rm_ = spk::Impl::pooled_view<Kokkos::View<F*, Dev>>(
          st.space, h.pooled_, "spk::dist::c_int.row_map", r1 - r0 + 1);
      auto crm = h.c_int_rm_;
      const F c0 = static_cast<F>(h.c_int_off_[0]);
      Kokkos::parallel_for(
          "spk::dist::c_int_row_map", Kokkos::RangePolicy<ExecSpace>(st.space, 0, r1 - r0 + 1),
          KOKKOS_LAMBDA(const long long i) { crm(i) = rm(r0 + i) - c0; });
    }
    local_spgemm_adopt(h.interior_, h.c_int_rm_, h.c_int_off_[1] - h.c_int_off_[0]);
  }
  // `side` copies A_rest's rows into C (after their numeric, queued on
  // `side` or, when large, on `space` before the scan) once C's arrays
  // exist: it waits for `space` now, not for the interior numeric.
  spk::Impl::stream_wait(st.side, st.space);
  if (st.has_rest) copy_rest_rows(st.side, h, c_local, true);  // (queued after its numeric)
  if (r1 > r0)
    local_spgemm_numeric(st.space, h.interior_, interior_a(st.A, h), st.B.local_block(),
                         interior_c(c_local, h), false);
}

/// 8. C's local block: A_rest's product itself when there are no interior
/// rows, else allocated and filled by both products.
template <class St>
typename St::Local local_block(St& st) {
  const auto t = now();
  typename St::Local c_local;
  if (st.h.rest_is_c_) {
    c_local = st.h.c_rest_;
  } else {
    c_local = allocate_c_local(st);
    queue_local_numeric(st, c_local);
  }
  st.h.times.local += seconds_since(t);
  st.step("local_product");
  return c_local;
}

/// 9. C from its blocks, with its plan (MPI with the neighbours) built
/// beside the local numeric; then `space` joins the other instances and
/// waits for the numeric.
template <class St>
typename St::Matrix assemble_c(St& st, const typename St::Local& c_local) {
  using Matrix = typename St::Matrix;
  auto& h = st.h;
  auto t = now();
  Matrix C(GhostListComplete(), st.side, st.A.row_layout(), st.B.col_layout(), c_local,
           st.ghost.matrix, st.ghost.gids, st.ghost.gids_device, st.step_timer());
  h.times.assemble += seconds_since(t);
  st.step("c_matrix_and_plan");
  t = now();
  spk::Impl::stream_wait(st.space, st.side);    // later work on `space` sees C's ghost block
  spk::Impl::stream_wait(st.space, st.helper);  // (joined already: `side` waited for it)
  st.space.fence();                             // the local block's numeric
  h.times.local += seconds_since(t);
  st.step("local_numeric_wait");
  h.c_local_nnz_ = c_local.nnz();
  if (h.rest_is_c_) h.c_rest_ = typename St::Local();  // (C's local block: not kept by the handle)
  h.done_ = true;
  return C;
}

/// spgemm_symbolic, and with with_values the whole product: B's values
/// travel with its columns and the local products' values go into C, so
/// that numeric need not run (the one-call spgemm).  The operands are
/// checked by the caller (spk_dist_spgemm.hpp).
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm_pattern(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                         const DistCsrMatrix<S, O, F, D>& A,
                                         const DistCsrMatrix<S, O, F, D>& B, bool with_values) {
  PatternState<ExecSpace, S, O, F, D> st(space, h, A, B, with_values);
  choose_rows(st);
  b_row_lengths(st);
  count_interior_rows(st);
  assemble_a_rest(st);
  exchange_row_lengths(st);
  copy_own_rows_of_b(st);
  fetch_rows_of_b(st);
  split_b_ext(st);
  rest_product(st);
  const bool ghost_first = !spk::Impl::instance_idle(space);
  if (ghost_first) ghost_block(st);
  const auto c_local = local_block(st);
  if (!ghost_first) ghost_block(st);
  return assemble_c(st, c_local);
}

}  // namespace spk::dist::Impl
