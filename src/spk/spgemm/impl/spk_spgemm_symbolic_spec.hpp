// SpGEMM's symbolic phase in named steps (spk_spgemm.hpp is its entry
// point): the checks and the analysis, BinnedHash's or ThreadDense's
// counting of C's rows, then C's row pointers and arrays.
#pragma once

#include <impl/spk_spgemm_dispatch.hpp>

namespace spk::Impl {

/// What the counting steps leave for the handle (SpgemmHandle::set_counted).
struct SpgemmCounted {
  std::vector<SpgemmBin> bins;
  std::size_t slab_bytes = 0;
  std::uint64_t total = 0, max_row = 0;
};

/// Symbolic's Hash groups: the long rows (kept_products: theirs, ordered by
/// table size, largest first) in runs of one table size.  Returns the slab
/// area's slots.
inline std::uint64_t spgemm_plan_hash_groups(const SpgemmBinnedTuning& t, std::uint64_t ncols,
                                             const std::vector<std::uint64_t>& kept_products,
                                             SpgemmLongRowPlan& lp) {
  const std::int64_t n = static_cast<std::int64_t>(kept_products.size());
  auto log2 = [&](std::int64_t r) { return spgemm_table_log2(std::min(kept_products[r], ncols)); };
  std::vector<SpgemmLongRowGroup> runs;
  for (std::int64_t r = 0; r < n;) {
    const int l = log2(r);
    std::int64_t e = r + 1;
    while (e < n && log2(e) == l) ++e;
    runs.push_back({r, e, std::uint64_t(1) << l, 0});
    r = e;
  }
  spgemm_set_hash_groups(lp, t, runs);
  lp.num_symbolic_slabs = lp.num_slabs;
  return lp.hash_entries;
}

/// BinnedHash's rows too long for scratch tables (the last bin, `g`): which
/// accumulator they use (SpgemmLongRows) and how many global-memory slabs
/// fit the budget; returns the slabs' bytes.
template <class ExecSpace, class S, class O, class F>
std::size_t spgemm_plan_long_rows(const SpgemmBin& g, const SpgemmRowStats& stats,
                                  const SpgemmBinnedTuning& t, const SpgemmOptions& opt,
                                  std::uint64_t ncols,
                                  const std::vector<std::uint64_t>& kept_products,
                                  SpgemmLongRowPlan& lp) {
  const std::size_t entry = sizeof(O) + sizeof(S);
  // Default budget: in proportion to the work of these rows
  // (SpgemmSlabBudget).
  const std::size_t budget =
      opt.slab_budget_bytes
          ? opt.slab_budget_bytes
          : std::clamp<std::size_t>(stats.long_products * entry / SpgemmSlabBudget::entry_divisor,
                                    SpgemmSlabBudget::min_bytes, SpgemmSlabBudget::max_bytes);
  const std::size_t bitmap_bytes = (ncols + 31) / 32 * 4;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Balanced = Impl::BalancedTeamGroup<typename Policy::member_type, F>;
  // The bitmap path when its numeric kernels' team scratch fits.
  const Impl::BitmapNumericScratch<Policy, Balanced> bitmap_scratch(ncols, g.team_size);
  std::uint64_t per_slab = 0;
  if (t.bitmap && bitmap_scratch.bytes() <= t.scratch) {
    // Numeric on a dense value slab of B's width per team when the long
    // rows cover much of it (their sums hit most of the slab's sectors:
    // Maragal_6, wiki-Vote, PGPgiantcompo), else at the columns' ranks
    // in C's row (rmat:18:8's sparse rows missed L2 on nearly every
    // product of its 2.2 GB of slabs).  Coverage: products per long row
    // against B's width (a bound on the share of B's columns a row has).
    const std::uint64_t nlong = static_cast<std::uint64_t>(g.end - g.begin);
    const bool sparse_rows = stats.long_products < nlong * (ncols / 2);
    lp.kind = sparse_rows ? Impl::SpgemmLongRows::BitmapRanks : Impl::SpgemmLongRows::Bitmap;
    lp.slab_capacity = ncols;
    // BitmapRanks' numeric needs a 32-bit rank per bitmap word.
    per_slab = sparse_rows ? bitmap_bytes : ncols * sizeof(S);
  } else {
    // The long rows hold the largest row (not split), so it bounds their
    // tables.
    const std::uint64_t max_u = std::min(lp.split.max_kept_products, ncols);
    const std::uint64_t hash_cap = Impl::spgemm_table_capacity(max_u);
    const bool dense = ncols <= 2 * hash_cap;
    lp.kind = dense ? Impl::SpgemmLongRows::DenseMarker : Impl::SpgemmLongRows::Hash;
    lp.slab_capacity = dense ? ncols : hash_cap;
    SPK_REQUIRE(lp.slab_capacity < (std::uint64_t(1) << 32), Overflow,
                "spk::spgemm_symbolic: a row with ", max_u,
                " distinct columns at most needs a table of more than 2^32 entries");
    per_slab = lp.slab_capacity * entry;
    if (!dense) {
      lp.budget_entries = budget / entry;
      return spgemm_plan_hash_groups(t, ncols, kept_products, lp) * entry;
    }
  }
  // DenseMarker's numeric keeps dense values and a bitmap of the row's
  // columns per slab (the row comes out of it in order, with no sort).
  if (lp.kind == Impl::SpgemmLongRows::DenseMarker) per_slab = ncols * sizeof(S) + bitmap_bytes;
  const std::int64_t by_budget = std::max<std::int64_t>(1, budget / per_slab);
  lp.num_slabs =
      static_cast<int>(std::min<std::int64_t>({by_budget, t.max_slabs, g.end - g.begin}));
  const std::size_t slab_bytes = lp.num_slabs * per_slab;
  lp.num_symbolic_slabs = lp.num_slabs;
  if (lp.kind == Impl::SpgemmLongRows::DenseMarker)
    lp.num_symbolic_slabs = static_cast<int>(std::min<std::int64_t>(
        {std::max<std::int64_t>(1, budget / bitmap_bytes), t.max_slabs, g.end - g.begin}));
  return slab_bytes;
}

/// BinnedHash's symbolic steps: 1. one analysis pass (validation, products
/// per row, rows per bin), 2. rows grouped by bin and a plan for the long
/// ones, 3. distinct columns per row into counts(i + 1).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class Counts,
          class Views, class Products, class Mark>
SpgemmCounted spgemm_binned_count(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                                  const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                                  const Counts& counts, const Views& v, const Products& products,
                                  bool fused_validation, Mark& mark) {
  using Handle = SpgemmHandle<O, F, HD>;
  typename Handle::Plan& plan = handle.plan();
  const SpgemmOptions& opt = handle.options();
  const std::int64_t m = A.num_rows(), k = A.num_cols();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  SpgemmCounted r;
  // 1. One pass: validation, products per row (64 bits), rows per bin.
  const double avg_b = B.num_rows() > 0 ? double(B.nnz()) / double(B.num_rows()) : 0.0;
  const auto t = Impl::spgemm_binned_tuning<O, S, F>(space, opt, avg_b);
  const Impl::SpgemmBinOf bin_of{ncols, t.max_team_log2,
                                 t.max_team_log2 - Impl::spgemm_min_log2 + 2, t.sort_max_log2()};
  // B is often A itself (C = A·A): then A's check covers it.
  const bool b_is_a = Impl::same_operand(A, B);
  // What grouping the rows needs, made before the analysis waits for its
  // result: after it the device would idle during these allocations.
  const Impl::TempBlock<ExecSpace> perm_mem(space, "spk::spgemm::perm", m * sizeof(O));
  // The analysis' result and the grouping's cursors: zeroed at once.
  const Impl::TempBlock<ExecSpace> zeroed(space, "spk::spgemm::analyze_result",
                                          Impl::spgemm_analyze_bytes + bin_of.nb * 4);
  Kokkos::deep_copy(space, zeroed.template view<char>(zeroed.bytes()), char(0));
  const auto cursors = zeroed.template view<std::uint32_t>(bin_of.nb, Impl::spgemm_analyze_bytes);
  const auto stats =
      Impl::spgemm_analyze(space, v, m, k, ncols, opt.validate_inputs && fused_validation, !b_is_a,
                           bin_of, products, counts, zeroed.data());
  Impl::throw_if_invalid_rows(space, A, B, stats.bad_a, stats.bad_b, "spk::spgemm_symbolic");
  r.total = stats.products;
  r.max_row = stats.max_products;
  plan.vector_length = t.vector_length;
  plan.scratch_bytes = t.scratch;
  plan.wide_row = t.wide_row;
  mark("symbolic.analyze");
  // 2. Rows grouped by bin, and a plan for the long ones.
  plan.perm = typename Handle::perm_type(perm_mem.template view<O>(m).data(), m);
  plan.perm_owner = perm_mem.owner();
  r.bins = Impl::spgemm_bin_rows(space, m, bin_of, stats, products, plan.perm, t,
                                 Impl::SpgemmScratchLayout::of<O, S, F>(), cursors);
  // The longest rows spread over several teams each (the last rows of the
  // long bin's range; the bin keeps the others).
  std::vector<std::uint64_t> kept_products;
  plan.long_rows.split = Impl::spgemm_long_rows_split_plan(
      space, v, plan.perm, r.bins, products, ncols, t.long_row_split, opt, t.vector_length,
      t.max_slabs, kept_products);
  mark("symbolic.bin_rows");
  if (!r.bins.empty() && r.bins.back().kernel == Impl::SpgemmBinKernel::LongRows)
    r.slab_bytes = spgemm_plan_long_rows<ExecSpace, S, O, F>(r.bins.back(), stats, t, opt, ncols,
                                                             kept_products, plan.long_rows);
  r.slab_bytes += plan.long_rows.split.bytes;
  // 3. Distinct columns per row into counts(i + 1), the warp-sortable bins
  // of many products per column on hash tables.
  if (r.total > 0) {
    Impl::spgemm_sample_compression(space, v, plan.perm, products, r.bins, t);
    mark("symbolic.sample");
  }
  if (r.total > 0)
    Impl::spgemm_binned_symbolic(space, v, plan.perm, r.bins, counts, products, ncols, t,
                                 plan.long_rows);
  mark("symbolic.count_columns");
  // 4. Numeric's grouping of the rows by their length in C: the scratch
  // bins' rows of heavy accumulation, the long rows.
  if (r.total > 0) {
    Impl::spgemm_regroup_compressed_rows(space, plan.perm, counts, products, r.bins, t,
                                         Impl::SpgemmScratchLayout::of<O, S, F>());
    Impl::spgemm_regroup_long_rows(space, plan.perm, counts, products, r.bins, t,
                                   Impl::SpgemmScratchLayout::of<O, S, F>(), plan.long_rows);
    r.slab_bytes = std::max<std::size_t>(
        r.slab_bytes,
        plan.long_rows.split.bytes + plan.long_rows.hash_entries * (sizeof(O) + sizeof(S)));
    mark("symbolic.regroup");
  }
  return r;
}

/// ThreadDense's symbolic steps (host spaces only, spgemm_resolve): 1. one
/// pass (validation, products per row, B compressed to (word, mask) pairs),
/// 2. distinct columns per row into counts(i + 1) on per-thread dense or
/// hash accumulators.  With m = 0 or k = 0 there are no products.
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class Counts,
          class Views, class Products, class Mark>
SpgemmCounted spgemm_thread_dense_count(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                                        const CsrMatrix<S, O, F, DA>& A,
                                        const CsrMatrix<S, O, F, DB>& B, const Counts& counts,
                                        const Views& v, const Products& products,
                                        bool fused_validation, Mark& mark) {
  SpgemmCounted r;
  const SpgemmOptions& opt = handle.options();
  auto& plan = handle.plan();
  const std::int64_t m = A.num_rows(), k = A.num_cols();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  if (fused_validation) {
    // 1. One pass: validation, products per row (64 bits), B's pairs.
    Impl::SpgemmHostPlan<F> hp;
    hp.num_threads = Kokkos::Experimental::UniqueToken<ExecSpace>(space).size();
    const std::size_t budget =
        opt.slab_budget_bytes ? opt.slab_budget_bytes : SpgemmHostPolicy::slab_budget_bytes;
    hp.dense = Impl::host_dense_fits<S>(ncols, hp.num_threads, budget);
    auto cb = hp.dense ? Impl::host_compressed_b_arrays<F>(k, B.nnz(), ncols, B.row_map().data(),
                                                           B.col_idx().data(),
                                                           SpgemmHostPolicy::compress_pct)
                       : Impl::HostCompressedB<F>();
    const bool b_is_a = Impl::same_operand(A, B);
    const auto st = Impl::host_spgemm_analyze(
        space, m, k, ncols, A.row_map().data(), A.col_idx().data(), A.nnz(), B.row_map().data(),
        B.col_idx().data(), B.nnz(), opt.validate_inputs, !b_is_a, cb, products.data());
    Impl::throw_if_invalid_rows(space, A, B, st.bad_a, st.bad_b, "spk::spgemm_symbolic");
    r.total = st.products;
    r.max_row = st.max_products;
    mark("symbolic.analyze");
    // 2. Distinct columns per row into counts(i + 1).
    if (r.total > 0) {
      if (!hp.dense) {
        hp.hash_capacity = Impl::host_hash_capacity(std::min(r.max_row, ncols));
        SPK_REQUIRE(hp.hash_capacity < (std::uint64_t(1) << 32), Overflow,
                    "spk::spgemm_symbolic: a row with ", r.max_row,
                    " products needs a hash table of more than 2^32 entries");
      }
      hp.blocks = Impl::host_row_blocks(m, products, r.total, hp.num_threads);
      if (cb.word.extent(0) > 0 &&
          st.pairs * 100 <= SpgemmHostPolicy::compress_pct * static_cast<std::uint64_t>(B.nnz())) {
        hp.cb = cb;
        hp.cb.pairs = st.pairs;
        hp.cb.used = true;
      }
      Impl::spgemm_host_symbolic(space, v, ncols, products, counts, hp);
      plan.slab_dense = hp.dense;
      plan.slab_capacity = hp.hash_capacity;
      plan.num_slabs = hp.num_threads;
      plan.host_blocks = std::move(hp.blocks);
      plan.host_cb_end = hp.cb.end;
      plan.host_cb_word = hp.cb.word;
      plan.host_cb_mask = hp.cb.mask;
      plan.host_cb_pairs = hp.cb.pairs;
      r.slab_bytes = hp.num_threads * (hp.dense ? ncols * sizeof(S) + (ncols + 63) / 64 * 8
                                                : hp.hash_capacity * (sizeof(O) + sizeof(S)));
    }
  }
  return r;
}

/// The first part of spgemm_symbolic: checks, analysis, bins (the handle's
/// plan) and counts(i + 1) = the number of distinct columns of row i of C,
/// for the m rows of A (counts: m + 1 values of 64 bits; counts(0) is not
/// written).  The handle is not ready for numeric until
/// spgemm_symbolic_adopt gives it C's row map.  The distributed product
/// counts parts of one C's rows with separate products this way.
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class Counts>
void spgemm_symbolic_count(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                           const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                           const Counts& counts) {
  using Dev = device_t<ExecSpace>;
  using Handle = SpgemmHandle<O, F, HD>;
  Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DA>, CsrMatrix<S, O, F, DB>,
                            CsrMatrix<S, O, F, HD>>();
  Impl::require_product_shapes(A, B, "spk::spgemm_symbolic");
  const SpgemmOptions& opt = handle.options();
  handle.clear_phase_times();
  Impl::SpgemmPhaseTimer<ExecSpace, Handle> mark(space, handle);
  const SpgemmAlgorithm algo = Impl::spgemm_resolve<ExecSpace>(opt.algorithm);
  const std::int64_t m = A.num_rows();
  const std::int64_t k = A.num_cols();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  // BinnedHash validates inside its analysis pass (the full check below runs
  // only to name what is wrong); edge shapes take the plain path.
  // So does ThreadDense's (host_spgemm_analyze).
  const bool fused_validation =
      (algo == SpgemmAlgorithm::BinnedHash ||
       (algo == SpgemmAlgorithm::ThreadDense && Impl::is_host_space_v<ExecSpace>)) &&
      m > 0 && k > 0 && A.row_map().extent(0) == static_cast<std::size_t>(m + 1) &&
      B.row_map().extent(0) == static_cast<std::size_t>(k + 1);
  if (opt.validate_inputs && !fused_validation) {
    validate(space, A);
    // B is often A itself (C = A·A): one check is enough.
    if (!Impl::same_operand(A, B)) validate(space, B);
    mark("symbolic.validate");
  }
  typename Handle::Plan& plan = handle.plan();
  plan = typename Handle::Plan();
  plan.a_rows = A.num_rows();
  plan.a_cols = A.num_cols();
  plan.b_cols = B.num_cols();
  plan.a_nnz = static_cast<std::uint64_t>(A.nnz());
  plan.b_nnz = static_cast<std::uint64_t>(B.nnz());

  SPK_REQUIRE(counts.extent(0) == static_cast<std::size_t>(m + 1), ShapeMismatch,
              "spk::spgemm_symbolic: ", counts.extent(0), " counts for ", m, " rows");
  // Products per row (BinnedHash's analysis writes the zero counts).
  const Impl::TempView<std::uint64_t, ExecSpace> products_mem(space, "spk::spgemm::products", m);
  const auto products = products_mem.view;
  if (algo != SpgemmAlgorithm::BinnedHash)
    Kokkos::deep_copy(space, Kokkos::subview(counts, std::make_pair(std::int64_t(1), m + 1)), 0);
  CsrMatrix<S, O, F, Dev> none;  // C's arrays are not needed yet
  const auto v = Impl::spgemm_views<ExecSpace>(A, B, none);
  SpgemmCounted r;
  if (algo == SpgemmAlgorithm::BinnedHash)
    r = spgemm_binned_count(space, handle, A, B, counts, v, products, fused_validation, mark);
  else if constexpr (is_host_space_v<ExecSpace>)  // ThreadDense: host spaces only
    r = spgemm_thread_dense_count(space, handle, A, B, counts, v, products, fused_validation, mark);
  mark("symbolic.count_columns");
  handle.set_counted(algo, r.total, r.max_row, std::move(r.bins), r.slab_bytes);
}

/// Completes a symbolic phase made by spgemm_symbolic_count: C's row map
/// (m + 1 offsets from 0 to nnz, scanned from the counts) is the caller's,
/// and numeric fills C's columns and values at those offsets.
template <class O, class F, class HD, class RowMap>
void spgemm_symbolic_adopt(SpgemmHandle<O, F, HD>& handle, const RowMap& row_map,
                           std::uint64_t nnz) {
  SPK_REQUIRE(handle.counted(), Error, "spk::spgemm: spgemm_symbolic_adopt before the counts");
  handle.plan().row_map_c = row_map;
  handle.set_nnz(nnz);
}

/// spgemm_symbolic's body (in Impl, where its helpers live).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic_into(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                          const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                          CsrMatrix<S, O, F, DC>& C) {
  using Handle = SpgemmHandle<O, F, HD>;
  Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DC>>();
  const std::int64_t m = A.num_rows();
  const Impl::TempView<std::uint64_t, ExecSpace> counts_mem(space, "spk::spgemm::counts", m + 1);
  const auto counts = counts_mem.view;
  Impl::spgemm_symbolic_count(space, handle, A, B, counts);
  const SpgemmOptions& opt = handle.options();
  Impl::SpgemmPhaseTimer<ExecSpace, Handle> mark(space, handle);

  // 4. Row pointers, scanned in 64 bits; nnz(C) is checked against Offset
  // before C's columns and values are allocated.
  using CMat = CsrMatrix<S, O, F, DC>;
  // C's arrays are managed Kokkos Views the caller owns (on CUDA from spk's
  // pool by default: a cudaMalloc per array cost ~0.1 ms on small products).
  auto c_array = [&](auto view_tag, const char* label, std::size_t n) {
    return Impl::result_view<decltype(view_tag)>(space, label, n,
                                                 opt.result_memory == SpgemmResultMemory::Pool);
  };
  const auto row_map = c_array(typename Handle::row_map_type(), "spk::spgemm::C.row_map", m + 1);
  const std::int64_t nnz_c = Impl::row_map_from_counts(
      space, "spk::spgemm::row_map", counts, row_map, m, handle.products(), "spk::spgemm_symbolic");
  mark("symbolic.scan");
  C = CMat(A.num_rows(), B.num_cols(), typename CMat::row_map_type(row_map),
           c_array(typename CMat::index_type(), "spk::spgemm::C.col_idx", nnz_c),
           c_array(typename CMat::values_type(), "spk::spgemm::C.values", nnz_c));
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    // Numeric writes C for the first time: fewer page faults.
    const bool pooled = opt.result_memory == SpgemmResultMemory::Pool;
    Impl::host_advise_result(C.col_idx(), pooled);
    Impl::host_advise_result(C.values(), pooled);
  }
  mark("symbolic.allocate_c");
  Impl::spgemm_symbolic_adopt(handle, row_map, static_cast<std::uint64_t>(nnz_c));
}

}  // namespace spk::Impl
