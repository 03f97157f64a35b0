// Sparse matrix-matrix product C = A·B (CSR), in two phases:
//   spgemm_symbolic(space, handle, A, B, C)  C's row pointers and nnz
//   spgemm_numeric(space, handle, A, B, C)   C's columns and values
// numeric may run again whenever A's and B's values change (same patterns)
// at numeric cost only.  spgemm(A, B) does both in one call.
//
//   spk::SpgemmHandle<int, int, Kokkos::Cuda> h;   // options: SpgemmOptions
//   spk::CsrMatrix<double, int, int, Kokkos::Cuda> C;
//   spk::spgemm_symbolic(h, A, B, C);
//   spk::spgemm_numeric(h, A, B, C);
//
// Rows of C have sorted columns unless the handle's options say
// SpgemmSort::Unsorted.  Products are counted in 64 bits and nnz(C) is
// checked against the Offset type before C is allocated (spk::Overflow).
#pragma once

#include <cstdint>
#include <impl/spk_spgemm_binned.hpp>
#include <impl/spk_spgemm_host_fused.hpp>
#include <impl/spk_spgemm_thread_dense.hpp>
#include <limits>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_memory_pool.hpp>
#include <spk_spgemm_handle.hpp>
#include <spk_validate.hpp>

namespace spk {
namespace Impl {

/// Records phase times in the handle when its options ask for them.  Each
/// phase's end is also a Kokkos Tools event ("spk::spgemm::" + phase), so a
/// profiling tool sees where the host is between kernel launches.
template <class ExecSpace, class Handle>
struct SpgemmPhaseTimer {
  const ExecSpace& space;
  const Handle& handle;
  Kokkos::Timer timer;
  SpgemmPhaseTimer(const ExecSpace& s, const Handle& h) : space(s), handle(h) {}
  void operator()(const char* phase) {
    if (Kokkos::Tools::profileLibraryLoaded())
      Kokkos::Tools::markEvent(std::string("spk::spgemm::") + phase);
    if (!handle.options().time_phases) return;
    space.fence();
    handle.add_phase_time(phase, timer.seconds() * 1e3);
    timer.reset();
  }
};

template <class ExecSpace, class S, class O, class F, class DA, class DB, class DC>
SpgemmViews<S, O, F, device_t<ExecSpace>> spgemm_views(const CsrMatrix<S, O, F, DA>& A,
                                                       const CsrMatrix<S, O, F, DB>& B,
                                                       const CsrMatrix<S, O, F, DC>& C) {
  return {A.row_map(), B.row_map(), C.row_map(), A.col_idx(), B.col_idx(),
          A.values(),  B.values(),  C.col_idx(), C.values()};
}

template <class ExecSpace, class... Mats>
constexpr void spgemm_check_access() {
  static_assert((is_accessible_v<ExecSpace, typename Mats::memory_space> && ...),
                "spk::spgemm: the matrices and the handle must live in memory the execution "
                "space can access");
}

template <class ExecSpace>
SpgemmAlgorithm spgemm_resolve(SpgemmAlgorithm a) {
  if (a == SpgemmAlgorithm::Auto)
    return is_host_space_v<ExecSpace> ? SpgemmAlgorithm::ThreadDense : SpgemmAlgorithm::BinnedHash;
  SPK_REQUIRE(a != SpgemmAlgorithm::ThreadDense || is_host_space_v<ExecSpace>, Error,
              "spk::spgemm: SpgemmAlgorithm::ThreadDense runs on host execution spaces only, not ",
              ExecSpace::name());
  return a;
}

}  // namespace Impl

namespace Impl {
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic_into(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                          const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                          CsrMatrix<S, O, F, DC>& C);
}  // namespace Impl

/// Symbolic phase of C = A·B: checks the shapes (and A's and B's structure
/// unless options().validate_inputs is false), counts the products, bins the
/// rows, counts the distinct columns of each row of C and allocates C
/// (row pointers filled, columns and values left for spgemm_numeric).
/// Throws ShapeMismatch when A's columns differ from B's rows, Overflow when
/// nnz(C) does not fit Offset (before allocating C).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                     const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                     CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_symbolic_into(space, handle, A, B, C);
}

namespace Impl {

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
  std::vector<Impl::SpgemmBin> bins;
  std::size_t slab_bytes = 0;
  std::uint64_t total = 0, max_row = 0;
  if (algo == SpgemmAlgorithm::BinnedHash) {
    // 1. One pass: validation, products per row (64 bits), rows per bin.
    const double avg_b = B.num_rows() > 0 ? double(B.nnz()) / double(B.num_rows()) : 0.0;
    const auto t = Impl::spgemm_binned_tuning<S>(space, opt, avg_b, sizeof(O) + sizeof(S));
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
        Impl::spgemm_analyze(space, v, m, k, ncols, opt.validate_inputs && fused_validation,
                             !b_is_a, bin_of, products, counts, zeroed.data());
    Impl::throw_if_invalid_rows(space, A, B, stats.bad_a, stats.bad_b, "spk::spgemm_symbolic");
    total = stats.products;
    max_row = stats.max_products;
    plan.vector_length = t.vector_length;
    mark("symbolic.analyze");
    // 2. Rows grouped by bin, and a plan for the long ones.
    plan.perm = typename Handle::perm_type(perm_mem.template view<O>(m).data(), m);
    plan.perm_owner = perm_mem.owner();
    bins = Impl::spgemm_bin_rows(space, m, bin_of, stats, products, plan.perm, t,
                                 sizeof(O) + sizeof(S), cursors);
    // The longest rows spread over several teams each (the last rows of the
    // long bin's range; the bin keeps the others).
    plan.long_rows.split =
        Impl::spgemm_long_rows_split_plan(space, v, plan.perm, bins, products, ncols,
                                          t.long_row_split, opt, t.vector_length, t.max_slabs);
    mark("symbolic.bin_rows");
    if (!bins.empty() && bins.back().group == 2) {
      const auto& g = bins.back();
      auto& lp = plan.long_rows;
      const std::size_t entry = sizeof(O) + sizeof(S);
      // Default budget: in proportion to the work of these rows (so that
      // small products stay small; 6 bytes per product for fp64, where
      // cuSPARSE's default algorithm held 35-40), between 16 MiB and 4 GiB.
      // More slabs are more long rows at once: rmat:20:2's 52,213 long rows
      // on 1M columns had 61 slabs at the old 512 MiB cap.
      const std::size_t budget =
          opt.slab_budget_bytes
              ? opt.slab_budget_bytes
              : std::clamp<std::size_t>(stats.long_products * entry / 2, std::size_t(16) << 20,
                                        std::size_t(4) << 30);
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
        // The long rows hold the largest row, so it bounds their tables
        // (the largest not split, when some are).
        const std::uint64_t longest =
            lp.split.rows > 0 ? lp.split.max_kept_products : stats.max_products;
        const std::uint64_t max_u = std::min(longest, ncols);
        const std::uint64_t hash_cap = Impl::spgemm_table_capacity(max_u);
        const bool dense = ncols <= 2 * hash_cap;
        lp.kind = dense ? Impl::SpgemmLongRows::DenseMarker : Impl::SpgemmLongRows::Hash;
        lp.slab_capacity = dense ? ncols : hash_cap;
        SPK_REQUIRE(lp.slab_capacity < (std::uint64_t(1) << 32), Overflow,
                    "spk::spgemm_symbolic: a row with ", max_u,
                    " distinct columns at most needs a table of more than 2^32 entries");
        per_slab = lp.slab_capacity * entry;
      }
      // DenseMarker's numeric keeps dense values and a bitmap of the row's
      // columns per slab (the row comes out of it in order, with no sort).
      if (lp.kind == Impl::SpgemmLongRows::DenseMarker) per_slab = ncols * sizeof(S) + bitmap_bytes;
      const std::int64_t by_budget = std::max<std::int64_t>(1, budget / per_slab);
      lp.num_slabs =
          static_cast<int>(std::min<std::int64_t>({by_budget, t.max_slabs, g.end - g.begin}));
      slab_bytes = lp.num_slabs * per_slab;
      lp.num_symbolic_slabs = lp.num_slabs;
      if (lp.kind == Impl::SpgemmLongRows::DenseMarker)
        lp.num_symbolic_slabs = static_cast<int>(std::min<std::int64_t>(
            {std::max<std::int64_t>(1, budget / bitmap_bytes), t.max_slabs, g.end - g.begin}));
    }
    slab_bytes += plan.long_rows.split.bytes;
    // 3. Distinct columns per row into counts(i + 1).
    if (total > 0)
      Impl::spgemm_binned_symbolic(space, v, plan.perm, bins, counts, products, ncols, t,
                                   plan.long_rows);
    mark("symbolic.count_columns");
  } else {
    // ThreadDense: host spaces only (spgemm_resolve); with m = 0 or k = 0
    // there are no products.
    if constexpr (Impl::is_host_space_v<ExecSpace>) {
      if (fused_validation) {
        // 1. One pass: validation, products per row (64 bits), B's pairs.
        Impl::SpgemmHostPlan<F> hp;
        hp.num_threads = Kokkos::Experimental::UniqueToken<ExecSpace>(space).size();
        const std::size_t budget =
            opt.slab_budget_bytes ? opt.slab_budget_bytes : std::size_t(512) << 20;
        hp.dense = Impl::host_dense_fits<S>(ncols, hp.num_threads, budget);
        auto cb = hp.dense ? Impl::host_compressed_b_arrays<F>(
                                 k, B.nnz(), ncols, B.row_map().data(), B.col_idx().data(),
                                 Impl::host_compress_pct)
                           : Impl::HostCompressedB<F>();
        const bool b_is_a = Impl::same_operand(A, B);
        const auto st = Impl::host_spgemm_analyze(
            space, m, k, ncols, A.row_map().data(), A.col_idx().data(), A.nnz(), B.row_map().data(),
            B.col_idx().data(), B.nnz(), opt.validate_inputs, !b_is_a, cb, products.data());
        Impl::throw_if_invalid_rows(space, A, B, st.bad_a, st.bad_b, "spk::spgemm_symbolic");
        total = st.products;
        max_row = st.max_products;
        mark("symbolic.analyze");
        // 2. Distinct columns per row into counts(i + 1).
        if (total > 0) {
          if (!hp.dense) {
            hp.hash_capacity = Impl::host_hash_capacity(std::min(max_row, ncols));
            SPK_REQUIRE(hp.hash_capacity < (std::uint64_t(1) << 32), Overflow,
                        "spk::spgemm_symbolic: a row with ", max_row,
                        " products needs a hash table of more than 2^32 entries");
          }
          hp.blocks = Impl::host_row_blocks(m, products, total, hp.num_threads);
          if (cb.word.extent(0) > 0 &&
              st.pairs * 100 <= Impl::host_compress_pct * static_cast<std::uint64_t>(B.nnz())) {
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
          slab_bytes = hp.num_threads * (hp.dense ? ncols * sizeof(S) + (ncols + 63) / 64 * 8
                                                  : hp.hash_capacity * (sizeof(O) + sizeof(S)));
        }
      }
    }
    mark("symbolic.count_columns");
  }
  handle.set_counted(algo, total, max_row, std::move(bins), slab_bytes);
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

}  // namespace Impl

namespace Impl {
/// spgemm_numeric without its final fence: the kernels are queued on `space`
/// (and its bin streams, joined to it) when it returns.  For callers with
/// host work to overlap (the distributed product builds C's plan meanwhile).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_numeric_queue(const ExecSpace& space, const SpgemmHandle<O, F, HD>& handle,
                          const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                          CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DA>, CsrMatrix<S, O, F, DB>,
                            CsrMatrix<S, O, F, DC>, CsrMatrix<S, O, F, HD>>();
  SPK_REQUIRE(handle.symbolic_done(), Error,
              "spk::spgemm_numeric: run spgemm_symbolic with this handle first");
  const auto& plan = handle.plan();
  SPK_REQUIRE(A.num_rows() == plan.a_rows && A.num_cols() == plan.a_cols &&
                  B.num_cols() == plan.b_cols && B.num_rows() == plan.a_cols &&
                  static_cast<std::uint64_t>(A.nnz()) == plan.a_nnz &&
                  static_cast<std::uint64_t>(B.nnz()) == plan.b_nnz,
              ShapeMismatch, "spk::spgemm_numeric: A is ", +A.num_rows(), " x ", +A.num_cols(),
              " with ", +A.nnz(), " entries and B ", +B.num_rows(), " x ", +B.num_cols(), " with ",
              +B.nnz(), ", but symbolic saw A ", +plan.a_rows, " x ", +plan.a_cols, " with ",
              plan.a_nnz, " and B with ", plan.b_nnz, " entries");
  SPK_REQUIRE(static_cast<std::uint64_t>(C.nnz()) == handle.nnz() &&
                  C.row_map().data() == plan.row_map_c.data(),
              ShapeMismatch, "spk::spgemm_numeric: C (", +C.nnz(),
              " entries) is not the matrix spgemm_symbolic made for this handle (", handle.nnz(),
              " entries)");
  if (handle.nnz() == 0) return;
  const std::int64_t m = A.num_rows();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  const bool sorted = handle.options().sort == SpgemmSort::Sorted;
  const auto v = Impl::spgemm_views<ExecSpace>(A, B, C);
  Impl::SpgemmPhaseTimer<ExecSpace, SpgemmHandle<O, F, HD>> mark(space, handle);
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    if (handle.algorithm() == SpgemmAlgorithm::ThreadDense) {
      Impl::SpgemmHostPlan<F> hp;
      hp.blocks = plan.host_blocks;
      hp.cb.used = plan.host_cb_word.extent(0) > 0;
      hp.cb.end = plan.host_cb_end;
      hp.cb.pairs = plan.host_cb_pairs;
      hp.cb.word = plan.host_cb_word;
      hp.cb.mask = plan.host_cb_mask;
      hp.dense = plan.slab_dense;
      hp.hash_capacity = plan.slab_capacity;
      hp.num_threads = plan.num_slabs;
      Impl::spgemm_host_numeric(space, v, ncols, hp, sorted);
    }
  }
  if (handle.algorithm() == SpgemmAlgorithm::BinnedHash) {
    Impl::SpgemmBinnedTuning t;
    t.vector_length = plan.vector_length;
    Impl::spgemm_binned_numeric(space, v, plan.perm, handle.bins(), ncols, t, plan.long_rows,
                                sorted);
  }
  mark("numeric");  // fences only when the handle times its phases
}
}  // namespace Impl

/// Numeric phase: fills C's columns and values from A's and B's current
/// values.  A and B must have the patterns symbolic saw, C must come from
/// symbolic (its row pointers are the handle's).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_numeric(const ExecSpace& space, const SpgemmHandle<O, F, HD>& handle,
                    const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                    CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_numeric_queue(space, handle, A, B, C);
  space.fence();
}

/// spgemm_symbolic in C's execution space.
template <class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic(SpgemmHandle<O, F, HD>& handle, const CsrMatrix<S, O, F, DA>& A,
                     const CsrMatrix<S, O, F, DB>& B, CsrMatrix<S, O, F, DC>& C) {
  spgemm_symbolic(typename CsrMatrix<S, O, F, DC>::execution_space(), handle, A, B, C);
}

/// spgemm_numeric in C's execution space.
template <class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_numeric(const SpgemmHandle<O, F, HD>& handle, const CsrMatrix<S, O, F, DA>& A,
                    const CsrMatrix<S, O, F, DB>& B, CsrMatrix<S, O, F, DC>& C) {
  spgemm_numeric(typename CsrMatrix<S, O, F, DC>::execution_space(), handle, A, B, C);
}

/// C = A·B in one call, in the execution space `space` (C lives there).
template <class ExecSpace, class S, class O, class F, class DA, class DB>
CsrMatrix<S, O, F, device_t<ExecSpace>> spgemm(const ExecSpace& space,
                                               const CsrMatrix<S, O, F, DA>& A,
                                               const CsrMatrix<S, O, F, DB>& B,
                                               const SpgemmOptions& options = SpgemmOptions()) {
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    // Host spaces: no symbolic phase (nothing to keep for a next numeric).
    if (Impl::spgemm_resolve<ExecSpace>(options.algorithm) == SpgemmAlgorithm::ThreadDense) {
      Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DA>, CsrMatrix<S, O, F, DB>>();
      Impl::require_product_shapes(A, B, "spk::spgemm");
      return Impl::spgemm_host_fused(space, A, B, options);
    }
  }
  SpgemmHandle<O, F, device_t<ExecSpace>> handle(options);
  CsrMatrix<S, O, F, device_t<ExecSpace>> C;
  spgemm_symbolic(space, handle, A, B, C);
  spgemm_numeric(space, handle, A, B, C);
  return C;
}

/// C = A·B in one call, in A's execution space.
template <class S, class O, class F, class DA, class DB>
auto spgemm(const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
            const SpgemmOptions& options = SpgemmOptions()) {
  return spgemm(typename CsrMatrix<S, O, F, DA>::execution_space(), A, B, options);
}

}  // namespace spk
