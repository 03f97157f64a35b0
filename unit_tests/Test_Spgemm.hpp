// SpGEMM: a hand-checkable product, then every algorithm and option against
// the serial Gustavson reference on random matrices with the awkward cases
// (empty rows, dense rows, rows too long for scratch, rectangular and
// 0-sized shapes, power-law graphs), numeric reuse, and offset overflow.
#include <set>
#include <spk_convert.hpp>
#include <spk_matrix_market.hpp>
#include <spk_reference_convert.hpp>
#include <spk_reference_spgemm.hpp>
#include <spk_spgemm.hpp>
#include <spk_test_utils.hpp>

namespace {

using ExecSpace = TEST_EXECSPACE;
using Dev = spk::device_t<ExecSpace>;
template <class S = double, class O = int, class F = int>
using HostCsr = spk::CsrMatrix<S, O, F, spk::HostDevice>;

/// Host CSR: about per_row random columns per row (duplicates summed),
/// rows listed in empty_rows left empty, rows in dense_rows full.
inline HostCsr<> random_csr(int rows, int cols, int per_row, std::uint64_t seed,
                            std::vector<int> empty_rows = {}, std::vector<int> dense_rows = {}) {
  spk::Impl::SplitMix64 rng(seed);
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  for (int i = 0; i < rows; ++i) {
    if (std::find(empty_rows.begin(), empty_rows.end(), i) != empty_rows.end()) continue;
    const bool dense = std::find(dense_rows.begin(), dense_rows.end(), i) != dense_rows.end();
    std::vector<double> row(cols, 0.0);
    std::vector<char> used(cols, 0);
    const int n = dense ? cols : (cols ? static_cast<int>(rng.below(2 * per_row + 1)) : 0);
    for (int q = 0; q < n; ++q) {
      const int c = dense ? q : static_cast<int>(rng.below(cols));
      used[c] = 1;
      row[c] += 0.25 + rng.uniform();
    }
    for (int c = 0; c < cols; ++c)
      if (used[c]) r[i].emplace_back(c, rng.uniform() < 0.5 ? -row[c] : row[c]);
  }
  return spk::reference::csr_from_rows<double, int, int>(rows, cols, r);
}

struct Config {
  const char* name;
  spk::SpgemmOptions options;
};

inline std::vector<Config> configs() {
  std::vector<Config> out;
  for (auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
    const bool s = sort == spk::SpgemmSort::Sorted;
    spk::SpgemmOptions o;
    o.sort = sort;
    out.push_back({s ? "auto/sorted" : "auto/unsorted", o});
    o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
    out.push_back({s ? "binned/sorted" : "binned/unsorted", o});
    // Two threads per team in the team and global bins.
    spk::SpgemmOptions t = o;
    t.team_size = 2;
    out.push_back({s ? "binned-team2/sorted" : "binned-team2/unsorted", t});
    // Small scratch: rows beyond 128 slots go to the global slabs.
    t.max_scratch_bytes = 3000;
    out.push_back({s ? "binned-small-scratch/sorted" : "binned-small-scratch/unsorted", t});
    // One slab for all long rows.
    t.slab_budget_bytes = 1;
    out.push_back({s ? "binned-one-slab/sorted" : "binned-one-slab/unsorted", t});
    // Long rows on global slabs (dense markers or hash tables), not bitmaps.
    spk::SpgemmOptions nb = o;
    nb.max_scratch_bytes = 3000;
    nb.long_row_bitmap = false;
    out.push_back({s ? "binned-no-bitmap/sorted" : "binned-no-bitmap/unsorted", nb});
    // Every long row spread over teams of 64-product chunks, two rows of
    // bitmaps in flight.
    spk::SpgemmOptions sp = o;
    sp.max_scratch_bytes = 3000;
    sp.long_row_split = spk::SpgemmLongRowSplit::Force;
    sp.long_row_chunk_products = 64;
    sp.long_row_split_bytes = 1;
    out.push_back({s ? "binned-split/sorted" : "binned-split/unsorted", sp});
    if (spk::Impl::is_host_space_v<ExecSpace>) {
      spk::SpgemmOptions d;
      d.sort = sort;
      d.algorithm = spk::SpgemmAlgorithm::ThreadDense;
      out.push_back({s ? "thread-dense/sorted" : "thread-dense/unsorted", d});
      d.slab_budget_bytes = 1;  // per-thread hash tables
      out.push_back({s ? "thread-hash/sorted" : "thread-hash/unsorted", d});
    }
  }
  return out;
}

/// Runs symbolic + numeric on ExecSpace with C poisoned in between and
/// compares with the reference (pattern exact, values to 1e-12).
/// C (its rows sorted first when the product was unsorted) against the
/// reference ref = A·B: the pattern exactly, the values within
/// 1e-12 · max(1, (|A|·|B|)_ij), the error any summation order may make
/// (bcsstk03's A·A has entries where terms of 4e17 cancel to exactly 0).
template <class MC, class H>
void expect_product(const MC& C, spk::SpgemmSort sort, const H& ref, const H& bound,
                    const std::string& what) {
  if (sort == spk::SpgemmSort::Sorted)
    spk_test::expect_product_near(C, ref, bound, 1e-12, what);
  else
    spk_test::expect_product_near(spk::reference::sort_rows(C), ref, bound, 1e-12, what);
}

/// (|A|·|B|): the bound expect_product scales its tolerance by.
template <class H>
H product_bound(const H& A, const H& B) {
  return spk::reference::spgemm(spk_test::abs_values(A), spk_test::abs_values(B));
}

/// Numeric twice on one symbolic plan, C poisoned before each (its pattern
/// too the first time), each result checked against ref.
template <class Handle, class MA, class MC, class H>
void numeric_twice(Handle& handle, const MA& A, const MA& B, MC& C, spk::SpgemmSort sort,
                   const H& ref, const H& bound, const std::string& what) {
  spk_test::poison(C.col_idx());
  spk_test::poison(C.values());
  spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
  expect_product(C, sort, ref, bound, what);
  spk_test::poison(C.values());
  spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
  expect_product(C, sort, ref, bound, what + ", numeric again");
}

template <class S, class O, class F>
void check_product(const spk::CsrMatrix<S, O, F, spk::HostDevice>& A_h,
                   const spk::CsrMatrix<S, O, F, spk::HostDevice>& B_h, const std::string& what,
                   bool few_configs = false, const spk::SpgemmTuningOverrides& tuning = {}) {
  const auto ref = spk::reference::spgemm(A_h, B_h);
  const auto bound = product_bound(A_h, B_h);
  auto A = spk::create_mirror_view_and_copy(ExecSpace(), A_h);
  auto B = spk::create_mirror_view_and_copy(ExecSpace(), B_h);
  for (const Config& cfg : configs()) {
    const std::string cname = cfg.name;
    if (few_configs && cname != "auto/sorted" && cname != "binned/sorted" &&
        cname != "binned-small-scratch/unsorted")
      continue;
    SCOPED_TRACE(what + " [" + cfg.name + "]");
    spk::SpgemmOptions options = cfg.options;
    options.tuning = tuning;
    spk::SpgemmHandle<O, F, ExecSpace> handle(options);
    spk::CsrMatrix<S, O, F, ExecSpace> C;
    spk::spgemm_symbolic(ExecSpace(), handle, A, B, C);
    ASSERT_EQ(static_cast<long long>(handle.nnz()), static_cast<long long>(ref.nnz()));
    ASSERT_EQ(handle.products(), spk::reference::spgemm_products(A_h, B_h));
    if (spk::environment_variable("SPK_TEST_VERBOSE")) {
      const auto& lp = handle.plan().long_rows;
      std::printf("%s [%s]: algo %d long rows %d cap %llu slabs %d bins:", what.c_str(), cfg.name,
                  int(handle.algorithm()), int(lp.kind), (unsigned long long)lp.slab_capacity,
                  lp.num_slabs);
      for (auto& b : handle.bins())
        std::printf(" [%s 2^%d T%d n=%lld]", spk::Impl::to_string(b.kernel), b.log2_capacity,
                    b.team_size, (long long)(b.end - b.begin));
      std::printf("\n");
    }
    spk_test::poison(C.col_idx());
    spk_test::poison(C.values());
    spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
    expect_product(C, cfg.options.sort, ref, bound, what + " " + cfg.name);
  }
}

TEST(TEST_CATEGORY, spgemm_tiny) {
  // [1 0 2]   [1 2]   [9 2]
  // [0 3 0] · [0 1] = [0 3]
  //           [4 0]
  auto A =
      spk::reference::csr_from_rows<double, int, int>(2, 3, {{{0, 1.0}, {2, 2.0}}, {{1, 3.0}}});
  auto B = spk::reference::csr_from_rows<double, int, int>(
      3, 2, {{{0, 1.0}, {1, 2.0}}, {{1, 1.0}}, {{0, 4.0}}});
  auto C = spk::create_mirror_view_and_copy_host(
      spk::spgemm(ExecSpace(), spk::create_mirror_view_and_copy(ExecSpace(), A),
                  spk::create_mirror_view_and_copy(ExecSpace(), B)));
  ASSERT_EQ(C.num_rows(), 2);
  ASSERT_EQ(C.num_cols(), 2);
  ASSERT_EQ(C.nnz(), 3);
  EXPECT_EQ(C.row_map()(0), 0);
  EXPECT_EQ(C.row_map()(1), 2);
  EXPECT_EQ(C.row_map()(2), 3);
  EXPECT_EQ(C.col_idx()(0), 0);
  EXPECT_EQ(C.values()(0), 9.0);
  EXPECT_EQ(C.col_idx()(1), 1);
  EXPECT_EQ(C.values()(1), 2.0);
  EXPECT_EQ(C.col_idx()(2), 1);
  EXPECT_EQ(C.values()(2), 3.0);
  check_product(A, B, "tiny");
}

TEST(TEST_CATEGORY, spgemm_random_rectangular) {
  // Empty rows in A and B, a dense row in each, rectangular shapes.
  auto A = random_csr(300, 200, 6, 11, {0, 7, 8, 150}, {42});
  auto B = random_csr(200, 250, 5, 12, {3, 4, 5}, {17});
  check_product(A, B, "300x200 * 200x250");
  auto A2 = random_csr(90, 1000, 3, 13, {}, {5});
  auto B2 = random_csr(1000, 40, 2, 14, {}, {999});
  check_product(A2, B2, "90x1000 * 1000x40");
}

/// The rows of a host CSR as (column, value) lists.
inline std::vector<std::vector<std::pair<int, double>>> rows_of(const HostCsr<>& A) {
  std::vector<std::vector<std::pair<int, double>>> r(A.num_rows());
  for (int i = 0; i < A.num_rows(); ++i)
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      r[i].emplace_back(A.col_idx()(k), A.values()(k));
  return r;
}

/// A with the entries of each row in random order.
inline HostCsr<> shuffle_rows(const HostCsr<>& A, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  auto r = rows_of(A);
  for (auto& row : r)
    for (std::size_t q = row.size(); q > 1; --q) std::swap(row[q - 1], row[rng.below(q)]);
  return spk::reference::csr_from_rows<double, int, int>(A.num_rows(), A.num_cols(), r);
}

/// A with row `row` replaced by n distinct random columns (sorted): a hub.
inline HostCsr<> with_hub_row(const HostCsr<>& A, int row, int n, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  auto r = rows_of(A);
  std::vector<char> used(A.num_cols(), 0);
  r[row].clear();
  for (int c = 0; c < n;) {
    const int x = static_cast<int>(rng.below(A.num_cols()));
    if (used[x]) continue;
    used[x] = 1;
    ++c;
  }
  for (int x = 0; x < A.num_cols(); ++x)
    if (used[x]) r[row].emplace_back(x, 0.5 + rng.uniform());
  return spk::reference::csr_from_rows<double, int, int>(A.num_rows(), A.num_cols(), r);
}

TEST(TEST_CATEGORY, spgemm_table_log2) {
  // The bit-trick log2 of a table's capacity against the loops it replaces,
  // around every power of two.
  std::vector<std::uint64_t> bounds = {0, 1, 2, 3, 24, 25, 26};
  for (int k = 1; k < 62; ++k)
    for (std::int64_t d = -2; d <= 2; ++d)
      bounds.push_back((std::uint64_t(1) << k) + static_cast<std::uint64_t>(d));
  for (const std::uint64_t b : bounds) {
    if (b > (std::uint64_t(1) << 61)) continue;  // 1.25 b + 1 must not wrap
    EXPECT_EQ(spk::Impl::spgemm_table_log2(b),
              spk::Impl::log2_exact(spk::Impl::spgemm_table_capacity(b)))
        << b;
  }
  for (int k = 0; k < 64; ++k) {
    EXPECT_EQ(spk::Impl::floor_log2(std::uint64_t(1) << k), k);
    if (k > 1) EXPECT_EQ(spk::Impl::floor_log2((std::uint64_t(1) << k) - 1), k - 1);
  }
}

TEST(TEST_CATEGORY, spgemm_hash_waves) {
  // Numeric's Hash groups side by side: slabs of 2^12 x 3, 2^11 x 20,
  // 2^10 x 40 and 2^9 x 10 rows (12288, 40960, 40960 and 5120 slots) under a
  // budget of 65536 slots, key buffers of 1500 entries at most (the 2^12 and
  // 2^11 tables' rows may outgrow theirs): the first two share a launch (and
  // a key buffer), the third would pass the budget, the fourth has a key
  // buffer of its own.
  spk::Impl::SpgemmBinnedTuning t;
  t.max_slabs = 1000;
  spk::Impl::SpgemmLongRowPlan lp;
  lp.budget_entries = 65536;
  std::vector<spk::Impl::SpgemmLongRowGroup> runs = {
      {0, 3, 4096, 0}, {3, 23, 2048, 0}, {23, 63, 1024, 0}, {63, 73, 512, 0}};
  spk::Impl::spgemm_set_hash_groups(lp, t, runs);
  ASSERT_EQ(lp.groups.size(), 4u);
  for (const auto& g : lp.groups) EXPECT_EQ(g.slabs, g.end - g.begin);
  EXPECT_EQ(lp.hash_entries, 53248u);  // the first two groups' slots
  const auto room = [](const spk::Impl::SpgemmLongRowGroup& g) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(g.capacity, 1500));
  };
  // B of 2^20 columns (32768 words): 64 words per column allow the 2^11
  // tables' rows; 8 bitmaps (8 x 128 KiB) in the byte budget.
  spk::SpgemmWideRowTuning wide;
  wide.max_bytes = std::size_t(8) * 4 * 32768;
  auto waves = spk::Impl::spgemm_hash_waves(lp.groups, lp.hash_entries, room);
  int bitmap_teams = spk::Impl::spgemm_assign_wide_row_bitmaps(waves, 32768, wide);
  ASSERT_EQ(waves.size(), 3u);
  EXPECT_EQ(spk::Impl::spgemm_hash_wave_entries(waves), 53248u);
  EXPECT_EQ(waves[0].count, 2);
  EXPECT_EQ(waves[0].teams, 23);
  EXPECT_EQ(waves[0].entries, 53248u);
  EXPECT_EQ(waves[0].kcap, 1500u);
  EXPECT_EQ(waves[1].count, 1);
  EXPECT_EQ(waves[1].teams, 40);
  EXPECT_EQ(waves[1].entries, 40960u);
  EXPECT_EQ(waves[1].kcap, 1024u);
  EXPECT_EQ(waves[2].count, 1);
  EXPECT_EQ(waves[2].kcap, 512u);
  const auto& g0 = waves[0].group[0];
  const auto& g1 = waves[0].group[1];
  EXPECT_EQ(g0.row_begin, 0);
  EXPECT_EQ(g0.rows, 3);
  EXPECT_EQ(g0.team_begin, 0);
  EXPECT_EQ(g0.slab_begin, 0u);
  EXPECT_EQ(g0.bitmap_begin, 0);
  EXPECT_EQ(g0.bitmaps, 3);
  EXPECT_EQ(g1.row_begin, 3);
  EXPECT_EQ(g1.rows, 20);
  EXPECT_EQ(g1.team_begin, 3);
  EXPECT_EQ(g1.slab_begin, 12288u);
  EXPECT_EQ(g1.bitmap_begin, 3);
  EXPECT_EQ(g1.bitmaps, 5);  // what the byte budget leaves
  // The 2^10 tables' rows fit their key buffer: no bitmaps.
  EXPECT_EQ(waves[1].group[0].slab_begin, 0u);
  EXPECT_EQ(waves[1].group[0].bitmaps, 0);
  EXPECT_EQ(bitmap_teams, 8);
  // B of 2^37 columns (past 32-bit words), or too wide for 4 words per
  // column of the 2^11 and 2^12 tables: no bitmaps.
  waves = spk::Impl::spgemm_hash_waves(lp.groups, lp.hash_entries, room);
  bitmap_teams = spk::Impl::spgemm_assign_wide_row_bitmaps(waves, std::uint64_t(1) << 32, wide);
  EXPECT_EQ(bitmap_teams, 0);
  wide.max_words_per_column = 4;
  bitmap_teams = spk::Impl::spgemm_assign_wide_row_bitmaps(waves, 32768, wide);
  EXPECT_EQ(bitmap_teams, 0);
  EXPECT_EQ(waves[0].group[0].bitmaps, 0);
  // A budget below a slab: one slab a group, the largest one's table is the
  // area, and each group is a launch of its own.
  lp.budget_entries = 1000;
  spk::Impl::spgemm_set_hash_groups(lp, t, runs);
  for (const auto& g : lp.groups) EXPECT_EQ(g.slabs, 1);
  EXPECT_EQ(lp.hash_entries, 4096u);
  waves = spk::Impl::spgemm_hash_waves(lp.groups, lp.hash_entries, room);
  EXPECT_EQ(waves.size(), 4u);
  // Symbolic's keys-only launches have one key buffer: the groups share
  // launches as the limit allows (6144 slots: 4096 + 2048, then 1024 + 512).
  waves = spk::Impl::spgemm_hash_waves(
      lp.groups, 6144, [](const spk::Impl::SpgemmLongRowGroup&) { return std::uint32_t(0); });
  ASSERT_EQ(waves.size(), 2u);
  EXPECT_EQ(waves[0].count, 2);
  EXPECT_EQ(waves[1].count, 2);
  EXPECT_EQ(waves[1].group[1].team_begin, 1);
  EXPECT_EQ(waves[1].group[1].slab_begin, 1024u);
  // A launch's teams find their groups.
  EXPECT_EQ(waves[1].group_of(0).row_begin, waves[1].group[0].row_begin);
  EXPECT_EQ(waves[1].group_of(1).row_begin, waves[1].group[1].row_begin);
}

/// BinnedHash with 3000 bytes of scratch (rows past 128 slots are long), the
/// long rows on one team each (not split), bitmaps allowed or not.
inline spk::SpgemmOptions long_row_options(spk::SpgemmSort sort, bool bitmap) {
  spk::SpgemmOptions o;
  o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  o.sort = sort;
  o.max_scratch_bytes = 3000;
  o.long_row_bitmap = bitmap;
  o.long_row_split = spk::SpgemmLongRowSplit::Off;
  return o;
}

TEST(TEST_CATEGORY, spgemm_long_rows) {
  // A dense row of A meets 500 rows of B with 40 entries each: 20000
  // products, too many for any scratch table.  Narrow B: dense slabs; wide
  // B: hash slabs.
  auto A = random_csr(200, 500, 4, 21, {}, {3, 100});
  auto B_narrow = random_csr(500, 3000, 40, 22);
  check_product(A, B_narrow, "long rows, 500x3000 B");
  auto B_wide = random_csr(500, 200000, 40, 23);
  check_product(A, B_wide, "long rows, 500x200000 B");
  // With 32 KB of scratch, A's two dense rows (20000 products each) are long
  // rows on a bitmap of B's columns.  Numeric sums them in a dense value
  // slab when their products cover B's width (3000 columns), at their
  // columns' ranks in C when they are sparse in it (200000).  (Not split
  // over several teams: spgemm_long_row_split tests that.)
  for (const auto& [B, want] : {std::pair{&B_narrow, spk::Impl::SpgemmLongRows::Bitmap},
                                std::pair{&B_wide, spk::Impl::SpgemmLongRows::BitmapRanks}}) {
    spk::SpgemmOptions o;
    o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
    o.max_scratch_bytes = 32000;
    o.long_row_split = spk::SpgemmLongRowSplit::Off;
    spk::SpgemmHandle<int, int, ExecSpace> handle(o);
    auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
    auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), *B);
    spk::CsrMatrix<double, int, int, ExecSpace> C;
    spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
    EXPECT_EQ(int(handle.plan().long_rows.kind), int(want)) << B->num_cols() << " columns";
    spk_test::poison(C.values());
    spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
    expect_product(C, o.sort, spk::reference::spgemm(A, *B), product_bound(A, *B), "long-row kind");
  }
  // Without bitmaps, B_wide's long rows go to hash tables in global memory
  // in groups of one table size (the dense rows' and the 160-product rows'),
  // largest first, each group with its own slabs; the dense rows' 20000
  // columns exceed the key buffer that 3000 bytes of scratch hold and are
  // written in order through a bitmap of B's 200000 columns (6250 words),
  // or, with that bitmap off or past the budget (30000 bytes: one team
  // of several has a bitmap), compacted and
  // sorted in C's row; the others are sorted in scratch.
  struct WideRow {
    std::uint64_t words_per_column;
    std::size_t max_bytes;
  };
  for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted})
    for (const WideRow wide : {WideRow{64, std::size_t(1) << 28}, WideRow{0, std::size_t(1) << 28},
                               WideRow{64, 30000}}) {
      SCOPED_TRACE(::testing::Message() << "wide rows " << wide.words_per_column
                                        << " words/column, " << wide.max_bytes << " bytes");
      spk::SpgemmOptions o = long_row_options(sort, false);
      o.tuning.wide_row_words_per_column = wide.words_per_column;
      o.tuning.wide_row_max_bytes = wide.max_bytes;
      spk::SpgemmHandle<int, int, ExecSpace> handle(o);
      auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
      auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B_wide);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      const auto& lp = handle.plan().long_rows;
      ASSERT_EQ(int(lp.kind), int(spk::Impl::SpgemmLongRows::Hash));
      // Numeric's key buffers are sized from the scratch symbolic saw.
      EXPECT_EQ(handle.plan().scratch_bytes, 3000u);
      ASSERT_GE(lp.groups.size(), 2u);
      const auto& long_bin = handle.bins().back();
      ASSERT_EQ(long_bin.kernel, spk::Impl::SpgemmBinKernel::LongRows);
      std::int64_t at = 0;
      for (std::size_t q = 0; q < lp.groups.size(); ++q) {
        const auto& grp = lp.groups[q];
        EXPECT_EQ(grp.begin, at);
        EXPECT_LT(grp.begin, grp.end);
        EXPECT_GE(grp.slabs, 1);
        EXPECT_LE(grp.slabs, grp.end - grp.begin);
        EXPECT_LE(grp.capacity * grp.slabs, lp.hash_entries);
        if (q > 0) EXPECT_LT(grp.capacity, lp.groups[q - 1].capacity);
        at = grp.end;
      }
      EXPECT_EQ(at, long_bin.end - long_bin.begin);
      EXPECT_EQ(lp.groups.front().capacity, lp.slab_capacity);
      spk_test::poison(C.col_idx());
      spk_test::poison(C.values());
      spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
      expect_product(C, sort, spk::reference::spgemm(A, B_wide), product_bound(A, B_wide),
                     "hash groups");
    }
  // Rows of B in any order, and a hub row of B (3000 entries) met by rows of
  // A with 2000 entries.
  check_product(A, shuffle_rows(B_wide, 24), "long rows, unsorted 500x200000 B");
  auto A_wide = random_csr(40, 2000, 6, 25, {}, {7, 30});
  auto B_hub = random_csr(2000, 200000, 3, 26, {}, {});
  check_product(A_wide, with_hub_row(B_hub, 11, 3000, 27), "long rows, hub B row");
}

TEST(TEST_CATEGORY, spgemm_long_rows_few_columns) {
  // Heavy accumulation: B's rows lie in its first 60 of 5000 columns, so
  // rows of A with hundreds of products (two dense ones with ~20000) have at
  // most 60 columns in C.  With 3000 bytes of scratch their products
  // overflow every table (symbolic counts them as long rows).  Without
  // bitmaps numeric's tables hold only the columns, so the rows move to lane
  // groups, the dense rows (too many products for a lane group) to a team
  // each; with a scratch bitmap of B's columns they stay long rows.
  auto A = random_csr(200, 500, 4, 31, {}, {3, 100});
  const auto B = spk::reference::csr_from_rows<double, int, int>(
      500, 5000, rows_of(random_csr(500, 60, 40, 32)));
  const auto ref = spk::reference::spgemm(A, B);
  for (const bool bitmap : {true, false}) {
    for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
      SCOPED_TRACE(std::string(bitmap ? "bitmap" : "no bitmap") +
                   (sort == spk::SpgemmSort::Sorted ? " sorted" : " unsorted"));
      spk::SpgemmHandle<int, int, ExecSpace> handle(long_row_options(sort, bitmap));
      auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
      auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      EXPECT_NE(int(handle.plan().long_rows.kind), int(spk::Impl::SpgemmLongRows::None));
      const auto perm =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), handle.plan().perm);
      int dense_rows_seen = 0;
      for (const auto& b : handle.bins()) {
        if (!bitmap) EXPECT_NE(b.kernel, spk::Impl::SpgemmBinKernel::LongRows);
        for (auto q = b.begin; q < b.end; ++q) {
          if (perm(q) != 3 && perm(q) != 100) continue;
          ++dense_rows_seen;
          if (bitmap) {
            EXPECT_EQ(b.kernel, spk::Impl::SpgemmBinKernel::LongRows);
          } else {
            EXPECT_EQ(b.kernel, spk::Impl::SpgemmBinKernel::TeamPerRow);
            EXPECT_LE(b.log2_capacity, 7);
          }
        }
      }
      EXPECT_EQ(dense_rows_seen, 2);
      numeric_twice(handle, Ad, Bd, C, sort, ref, product_bound(A, B), "few columns");
    }
  }
  check_product(A, B, "long rows, few columns");
}

/// Heavy accumulation beside light (enough rows that no bin counts as few
/// on a GPU), and the rows of A and B.
struct HeavyAndLight {
  HostCsr<> A, B;
  std::vector<std::vector<std::pair<int, double>>> a, b;  // their rows
  static constexpr int narrow = 20000;  // A's rows below this meet B's narrow rows
};

inline HeavyAndLight heavy_and_light() {
  // Heavy accumulation beside light: B's rows 0-299 lie in its first 40
  // columns, rows 300-599 anywhere in 20000.  A's rows 0-19999 take 20
  // entries among B's narrow rows (~160 products, at most 40 columns), rows
  // 20000-23999 20 among the wide ones (~160 products, ~160 columns); a few
  // rows are empty, one is dense (a long row).
  const int m = 24000, narrow = HeavyAndLight::narrow;
  spk::Impl::SplitMix64 rng(41);
  std::vector<std::vector<std::pair<int, double>>> a(m), b(600);
  for (int k = 0; k < 600; ++k) {
    const int n = 4 + static_cast<int>(rng.below(9));
    std::vector<char> used(20000, 0);
    for (int q = 0; q < n; ++q) {
      const int c = static_cast<int>(k < 300 ? rng.below(40) : rng.below(20000));
      if (!used[c]) b[k].emplace_back(c, 0.5 + rng.uniform());
      used[c] = 1;
    }
    std::sort(b[k].begin(), b[k].end());
  }
  for (int i = 0; i < m; ++i) {
    if (i % 997 == 5) continue;  // empty rows
    const int lo = i < narrow ? 0 : 300;
    const int n = i == 7 ? 300 : 20;  // row 7 dense over the narrow rows of B
    std::vector<char> used(300, 0);
    for (int q = 0; q < n; ++q) {
      const int c = i == 7 ? q : static_cast<int>(rng.below(300));
      if (!used[c]) a[i].emplace_back(lo + c, rng.uniform() < 0.5 ? -1.0 - rng.uniform() : 1.0);
      used[c] = 1;
    }
    std::sort(a[i].begin(), a[i].end());
  }
  return {spk::reference::csr_from_rows<double, int, int>(m, 600, a),
          spk::reference::csr_from_rows<double, int, int>(600, 20000, b), a, b};
}

TEST(TEST_CATEGORY, spgemm_regroup_compressed_rows) {
  // Symbolic bins every row by its products; numeric's tables need to hold
  // only the columns, so with the regrouping forced (no minimum of products,
  // warp-sorted bins too, any products per lane) the narrow rows of 2^8 slots or more by their
  // products move to bins of 64 slots (warp-hashed where they were
  // warp-sorted, lane bins elsewhere), the wide rows keep their bins.
  const auto [A, B, a, b] = heavy_and_light();
  const int m = A.num_rows(), narrow = HeavyAndLight::narrow;
  const auto ref = spk::reference::spgemm(A, B);
  const auto bound = product_bound(A, B);
  auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
  auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B);
  spk::SpgemmTuningOverrides forced;
  forced.regroup_shrink_log2 = 2;
  forced.regroup_min_products = 0;
  forced.regroup_warp_sorted = true;        // on CUDA the narrow rows' bin is warp-sorted
  forced.regroup_max_lane_products = 1000;  // host lane groups are one thread
  forced.sample_compression = 0;            // ... and hashed by symbolic
  forced.sample_min_products = 0;
  spk::SpgemmTuningOverrides off;
  off.regroup_shrink_log2 = 0;
  for (const bool regroup : {true, false}) {
    for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
      SCOPED_TRACE(std::string(regroup ? "regrouped" : "not regrouped") +
                   (sort == spk::SpgemmSort::Sorted ? " sorted" : " unsorted"));
      spk::SpgemmOptions o;
      o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
      o.sort = sort;
      o.tuning = regroup ? forced : off;
      spk::SpgemmHandle<int, int, ExecSpace> handle(o);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      ASSERT_EQ(static_cast<long long>(handle.nnz()), static_cast<long long>(ref.nnz()));
      const auto perm =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), handle.plan().perm);
      // Every row in exactly one bin; a row in a hash bin fits its table.
      std::vector<int> seen(m, 0);
      int narrow_in_lanes = 0, narrow_rows = 0, wide_in_small_lanes = 0, narrow_hashed = 0;
      std::int64_t at = handle.bins().empty() ? 0 : handle.bins().front().begin;
      for (const auto& bin : handle.bins()) {
        EXPECT_EQ(bin.begin, at);
        at = bin.end;
        for (auto q = bin.begin; q < bin.end; ++q) {
          const int i = perm(q);
          ASSERT_GE(i, 0);
          ASSERT_LT(i, m);
          ++seen[i];
          const auto n = static_cast<std::uint64_t>(ref.row_map()(i + 1) - ref.row_map()(i));
          const bool hashed = bin.kernel == spk::Impl::SpgemmBinKernel::WarpHashed;
          const bool lanes = hashed || bin.kernel == spk::Impl::SpgemmBinKernel::LanesPerRow;
          if (lanes || bin.kernel == spk::Impl::SpgemmBinKernel::TeamPerRow)
            EXPECT_LE(spk::Impl::spgemm_table_capacity(n), std::uint64_t(1) << bin.log2_capacity)
                << "row " << i;
          std::uint64_t products = 0;
          for (const auto& [k, x] : a[i]) products += b[k].size();
          const int by_products = spk::Impl::spgemm_table_log2(products);
          const bool small_lanes = lanes && bin.log2_capacity <= 6;
          if (i < narrow && i != 7 && by_products >= 8 && spk::Impl::spgemm_table_log2(n) <= 6) {
            ++narrow_rows;
            if (small_lanes) ++narrow_in_lanes;
            if (hashed) ++narrow_hashed;
          }
          if (i >= narrow && by_products >= 8 && small_lanes) ++wide_in_small_lanes;
        }
      }
      for (int i = 0; i < m; ++i) {
        EXPECT_LE(seen[i], 1) << "row " << i;
        if (!a[i].empty()) EXPECT_EQ(seen[i], 1) << "row " << i;
      }
      EXPECT_GT(narrow_rows, 10000);
      if (regroup)
        EXPECT_EQ(narrow_in_lanes, narrow_rows);
      else
        EXPECT_EQ(narrow_in_lanes, 0);
      // Warp-sorted bins (CUDA) move their rows to warp-hashed tables.
      const bool sorts = spk::Impl::spgemm_warp_sort_capable<ExecSpace, double>();
      EXPECT_EQ(narrow_hashed, regroup && sorts ? narrow_rows : 0);
      EXPECT_EQ(wide_in_small_lanes, 0);
      numeric_twice(handle, Ad, Bd, C, sort, ref, bound, "regrouped rows");
    }
  }
  // Every option set with the regrouping forced.
  check_product(A, B, "regrouped rows, every option set", false, forced);
}

TEST(TEST_CATEGORY, spgemm_sampled_symbolic_hash) {
  // Symbolic samples the bins it would warp-sort (CUDA only) and hashes
  // those whose sampled rows have many products per column.  Forced (no
  // minimum of products, any compression): every such bin is hashed; with a
  // compression no row reaches: none.  The wide rows (~1 product per column)
  // and the narrow ones (~4) share the 2^8 bin: by default their mix (~2)
  // stays sorted.
  const auto [A, B, a, b] = heavy_and_light();
  const auto ref = spk::reference::spgemm(A, B);
  const auto bound = product_bound(A, B);
  auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
  auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B);
  const bool sorts = spk::Impl::spgemm_warp_sort_capable<ExecSpace, double>();
  for (const double compression : {0.0, 1e9, -1.0}) {
    for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
      SCOPED_TRACE("compression " + std::to_string(compression));
      spk::SpgemmOptions o;
      o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
      o.sort = sort;
      if (compression >= 0) {
        o.tuning.sample_compression = compression;
        o.tuning.sample_min_products = 0;
      }
      o.tuning.regroup_shrink_log2 = 0;  // the bins as symbolic left them
      spk::SpgemmHandle<int, int, ExecSpace> handle(o);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      ASSERT_EQ(static_cast<long long>(handle.nnz()), static_cast<long long>(ref.nnz()));
      // Sortable: warp-sorted by symbolic (sm_90 policy) and not few rows.
      const int min_sym = spk::Impl::spgemm_cuda_sm90.warp_sort_min_log2_sym;
      const std::int64_t conc = spk::Impl::concurrency(ExecSpace());
      int sortable = 0, hashed = 0;
      for (const auto& bin : handle.bins()) {
        if (bin.kernel == spk::Impl::SpgemmBinKernel::WarpSorted && bin.log2_capacity >= min_sym &&
            (bin.end - bin.begin) * 32 >= conc)
          ++sortable;
        if (bin.symbolic_hash) ++hashed;
      }
      if (sorts) EXPECT_GE(sortable, 1);
      EXPECT_EQ(hashed, sorts && compression == 0.0 ? sortable : 0);
      spk_test::poison(C.col_idx());
      spk_test::poison(C.values());
      spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
      expect_product(C, sort, ref, bound, "sampled rows");
    }
  }
}

TEST(TEST_CATEGORY, spgemm_warp_hashed_rows) {
  // Heavy accumulation on rows whose A rows take two to twelve rounds of a
  // warp's lanes (33-360 entries) over B rows of 0-6 entries in few columns:
  // ~100-1,350 products and at most 24, 90 or 180 columns a row (tables of
  // 32, 128 and 256 slots), some rows and some of B's rows empty.  With the
  // regrouping forced the rows leave their warp-sorted bins for warp-hashed
  // tables and symbolic hashes every sampled bin (CUDA); elsewhere they take
  // lane tables.  Sorted and unsorted, numeric twice, every option set.
  // The last cases' rows (~600-850 and ~1,100-1,350 products, >= 7 a
  // column) are team rows, counted and moved to warp-hashed tables (of
  // 1,024 and 2,048 slots in symbolic) when the tuning asks for 1 product
  // per column, not when it asks for 10^9.
  struct Case {
    int columns, a_min, a_span, b_min, b_span, shrink;
    double team_products_per_column;
  };
  for (const Case c : {Case{24, 33, 38, 1, 5, 2, 0}, Case{90, 60, 41, 2, 5, 2, 0},
                       Case{180, 70, 31, 2, 5, 1, 0}, Case{90, 150, 61, 3, 4, 2, 1},
                       Case{90, 150, 61, 3, 4, 2, 1e9}, Case{90, 300, 61, 3, 4, 2, 1}}) {
    SCOPED_TRACE("columns " + std::to_string(c.columns) + ", team rows at " +
                 std::to_string(c.team_products_per_column) + " products per column");
    // Enough rows on a GPU that no bin counts as few; fewer suffice on hosts.
    const int m = spk::Impl::is_host_space_v<ExecSpace> ? 3000 : 12000, k = 400;
    spk::Impl::SplitMix64 rng(71 + c.columns);
    std::vector<std::vector<std::pair<int, double>>> a(m), b(k);
    for (int q = 0; q < k; ++q) {
      if (q % 50 == 3) continue;
      const int n = c.b_min + static_cast<int>(rng.below(c.b_span));
      std::vector<char> used(c.columns, 0);
      for (int e = 0; e < n; ++e) {
        const int j = static_cast<int>(rng.below(c.columns));
        if (!used[j]) b[q].emplace_back(j, 0.5 + rng.uniform());
        used[j] = 1;
      }
      std::sort(b[q].begin(), b[q].end());
    }
    for (int i = 0; i < m; ++i) {
      if (i % 1001 == 9) continue;
      const int n = c.a_min + static_cast<int>(rng.below(c.a_span));
      std::vector<char> used(k, 0);
      for (int e = 0; e < n; ++e) {
        const int j = static_cast<int>(rng.below(k));
        if (!used[j]) a[i].emplace_back(j, rng.uniform() < 0.5 ? -1.0 - rng.uniform() : 1.0);
        used[j] = 1;
      }
      std::sort(a[i].begin(), a[i].end());
    }
    const auto A = spk::reference::csr_from_rows<double, int, int>(m, k, a);
    const auto B = spk::reference::csr_from_rows<double, int, int>(k, c.columns, b);
    const auto ref = spk::reference::spgemm(A, B);
    const auto bound = product_bound(A, B);
    auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
    auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B);
    spk::SpgemmTuningOverrides forced;
    forced.regroup_shrink_log2 = c.shrink;
    forced.regroup_min_products = 0;
    forced.regroup_warp_sorted = true;
    forced.regroup_max_lane_products = 1000;  // host lane groups are one thread
    forced.sample_compression = 0;
    forced.sample_min_products = 0;
    forced.regroup_team_products_per_column = c.team_products_per_column;
    const bool sorts = spk::Impl::spgemm_warp_sort_capable<ExecSpace, double>();
    for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
      spk::SpgemmOptions o;
      o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
      o.sort = sort;
      o.tuning = forced;
      spk::SpgemmHandle<int, int, ExecSpace> handle(o);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      ASSERT_EQ(static_cast<long long>(handle.nnz()), static_cast<long long>(ref.nnz()));
      std::int64_t hashed_rows = 0;
      int largest = 0;
      for (const auto& bin : handle.bins())
        if (bin.kernel == spk::Impl::SpgemmBinKernel::WarpHashed) {
          hashed_rows += bin.end - bin.begin;
          largest = std::max(largest, bin.log2_capacity);
        }
      if (sorts && c.team_products_per_column < 1e9) {
        EXPECT_GT(hashed_rows, m / 2);
        EXPECT_EQ(largest, spk::Impl::spgemm_table_log2(c.columns));
      } else {
        EXPECT_EQ(hashed_rows, 0);
      }
      numeric_twice(handle, Ad, Bd, C, sort, ref, bound, "warp-hashed rows");
    }
    check_product(A, B, "warp-hashed rows, every option set", true, forced);
  }
}

/// A copy of A with other values (same pattern), none zero.
inline HostCsr<> other_values(const HostCsr<>& A, double phase) {
  auto B = spk::clone(spk::HostDevice(), A);
  for (int k = 0; k < B.nnz(); ++k) B.values()(k) = std::sin(phase + k) + 1.5;
  return B;
}

TEST(TEST_CATEGORY, spgemm_long_row_split) {
  // Dense rows of A (400 entries) meet rows of B of 0-12 entries and two hub
  // rows of B (3000 and 2500 entries): about 7,900 products per dense row,
  // cut into chunks that start and end inside rows of B (hub rows included).
  // Row 5 of A is empty, row 9's entries meet only empty rows of B.
  auto A = random_csr(60, 400, 3, 61, {5}, {2, 17, 40});
  {
    auto r = rows_of(A);
    r[9] = {{300, 1.25}, {301, -0.5}, {302, 2.0}};
    A = spk::reference::csr_from_rows<double, int, int>(60, 400, r);
  }
  std::vector<int> empty_b = {300, 301, 302};
  auto B = with_hub_row(with_hub_row(random_csr(400, 5000, 6, 62, empty_b), 11, 3000, 63), 250,
                        2500, 64);
  auto B_wide = with_hub_row(random_csr(400, 70000, 6, 65, empty_b), 7, 3000, 66);  // rectangular
  struct Case {
    const char* name;
    const HostCsr<>* B;
  };
  const HostCsr<> B_shuffled = shuffle_rows(B, 67);
  for (const Case& c : {Case{"hub rows", &B}, Case{"wide hub rows", &B_wide},
                        Case{"unsorted B rows", &B_shuffled}}) {
    const auto ref = spk::reference::spgemm(A, *c.B);
    const auto bound = product_bound(A, *c.B);
    const auto A2 = other_values(A, 0.5);
    const auto B2 = other_values(*c.B, 2.0);
    const auto ref2 = spk::reference::spgemm(A2, B2);
    const auto bound2 = product_bound(A2, B2);
    for (const std::uint64_t chunk :
         {std::uint64_t(1), std::uint64_t(37), std::uint64_t(1024), std::uint64_t(1) << 20}) {
      for (const std::size_t cap : {std::size_t(1), std::size_t(0)}) {
        for (const int team : {0, 3}) {
          for (auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
            const std::string what = std::string(c.name) + " chunk " + std::to_string(chunk) +
                                     " cap " + std::to_string(cap) + " team " +
                                     std::to_string(team) +
                                     (sort == spk::SpgemmSort::Sorted ? " sorted" : " unsorted");
            SCOPED_TRACE(what);
            spk::SpgemmOptions o;
            o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
            o.max_scratch_bytes = 3000;
            o.long_row_split = spk::SpgemmLongRowSplit::Force;
            o.long_row_chunk_products = chunk;
            o.long_row_split_bytes = cap;
            o.team_size = team;
            o.sort = sort;
            auto Ad = spk::clone(ExecSpace(), A);
            auto Bd = spk::clone(ExecSpace(), *c.B);
            spk::SpgemmHandle<int, int, ExecSpace> handle(o);
            spk::CsrMatrix<double, int, int, ExecSpace> C;
            spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
            const auto& split = handle.plan().long_rows.split;
            // The three dense rows at least, and with the one-byte cap one
            // row in flight.
            EXPECT_GE(split.rows, 3);
            EXPECT_EQ(split.batch_rows, cap == 1 ? 1 : split.rows);
            EXPECT_GE(handle.slab_bytes(), split.bytes);
            EXPECT_GT(split.bytes, std::size_t(0));
            ASSERT_EQ(static_cast<long long>(handle.nnz()), static_cast<long long>(ref.nnz()));
            spk_test::poison(C.col_idx());
            spk_test::poison(C.values());
            spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
            expect_product(C, sort, ref, bound, what);
            // New values, same patterns: numeric alone.
            Kokkos::deep_copy(Ad.values(), A2.values());
            Kokkos::deep_copy(Bd.values(), B2.values());
            spk_test::poison(C.values());
            spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
            expect_product(C, sort, ref2, bound2, what + " reuse");
          }
        }
      }
    }
  }
  // Off keeps every long row on one team; Auto splits none of these short
  // ones (SpgemmLongRowTuning's threshold).
  for (const auto mode : {spk::SpgemmLongRowSplit::Off, spk::SpgemmLongRowSplit::Auto}) {
    spk::SpgemmOptions o;
    o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
    o.max_scratch_bytes = 3000;
    o.long_row_split = mode;
    auto Ad = spk::clone(ExecSpace(), A);
    auto Bd = spk::clone(ExecSpace(), B);
    spk::SpgemmHandle<int, int, ExecSpace> handle(o);
    spk::CsrMatrix<double, int, int, ExecSpace> C;
    spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
    EXPECT_EQ(handle.plan().long_rows.split.rows, 0);
    EXPECT_NE(int(handle.plan().long_rows.kind), int(spk::Impl::SpgemmLongRows::None));
    spk_test::poison(C.values());
    spk::spgemm_numeric(ExecSpace(), handle, Ad, Bd, C);
    expect_product(C, o.sort, spk::reference::spgemm(A, B), product_bound(A, B), "not split");
  }
}

/// Host CSR of `rows` rows with 0 … 2·per_row distinct random columns each
/// (sparse construction: for many rows).
inline HostCsr<> random_sparse_rows(int rows, int cols, int per_row, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  for (auto& row : r) {
    const int n = std::min<int>(cols, static_cast<int>(rng.below(2 * per_row + 1)));
    std::vector<int> c;
    while (static_cast<int>(c.size()) < n) {
      const int x = static_cast<int>(rng.below(cols));
      if (std::find(c.begin(), c.end(), x) == c.end()) c.push_back(x);
    }
    std::sort(c.begin(), c.end());
    for (int x : c)
      row.emplace_back(x, (rng.uniform() < 0.5 ? -1.0 : 1.0) * (0.25 + rng.uniform()));
  }
  return spk::reference::csr_from_rows<double, int, int>(rows, cols, r);
}

TEST(TEST_CATEGORY, spgemm_many_rows) {
  // Enough rows per bin to fill a GPU, so that the per-thread, lane, and
  // (CUDA) warp-sorted row kernels run, not a team per row: 0-24 entries per
  // row of A times 0-12 per row of B gives rows of 0 to about 300 products,
  // most of them under 256.  Narrow B: many products per column, so runs of
  // equal columns cross the lanes of a warp.  Very wide B: columns too wide
  // to pack beside a product number in 32 bits (warp-sorted rows of 256).
  auto A = random_sparse_rows(60000, 60000, 12, 31);
  check_product(A, random_sparse_rows(60000, 60000, 6, 32), "60000 rows, wide B", true);
  check_product(A, random_sparse_rows(60000, 150, 6, 33), "60000 rows, 150-column B", true);
  check_product(A, random_sparse_rows(60000, (1 << 24) + 3, 6, 34), "60000 rows, 2^24+3 columns",
                true);
  if (!spk::Impl::is_host_space_v<ExecSpace>) {
    // Every bin sorted, by groups of 8 and 16 lanes too (4 products per
    // lane), in both phases: the tuning overrides of the options.
    spk::SpgemmTuningOverrides sort_all;
    sort_all.warp_sort_min_log2 = sort_all.warp_sort_min_log2_sym = 5;
    sort_all.warp_sort_max_log2 = sort_all.warp_sort_max_log2_sym = 8;
    sort_all.warp_sort_warps = sort_all.warp_sort_slots = 4;
    check_product(A, random_sparse_rows(60000, 60000, 6, 32), "sub-warp rows, wide B", true,
                  sort_all);
    check_product(A, random_sparse_rows(60000, 150, 6, 33), "sub-warp rows, 150-column B", true,
                  sort_all);
  }
}

/// Operands with a zero dimension or no entries (both APIs are checked on them).
struct EdgeCase {
  HostCsr<> A, B;
  const char* name;
};
inline std::vector<EdgeCase> zero_size_cases() {
  return {{random_csr(0, 5, 2, 1), random_csr(5, 7, 2, 2), "0x5 * 5x7"},
          {random_csr(6, 0, 2, 1), random_csr(0, 4, 2, 2), "6x0 * 0x4"},
          {random_csr(5, 3, 2, 1), random_csr(3, 0, 2, 2), "5x3 * 3x0"},
          {random_csr(40, 30, 0, 1), random_csr(30, 20, 3, 2), "empty A"}};
}

TEST(TEST_CATEGORY, spgemm_zero_sizes) {
  for (const EdgeCase& c : zero_size_cases()) check_product(c.A, c.B, c.name);
}

TEST(TEST_CATEGORY, spgemm_generated) {
  auto P = spk::poisson2d<double, int, int>(24);
  check_product(P, P, "poisson2d:24 squared");
  auto P3 = spk::poisson3d<double, int, int>(9);
  check_product(P3, P3, "poisson3d:9 squared");
  auto G = spk::rmat<double, int, int>(11, 8, 3);
  check_product(G, G, "rmat:11:8 squared");
  auto R = spk::random_uniform<double, int, int>(700, 500, 9, 5);
  check_product(R, spk::transpose(R), "random A * A^T");
}

/// Host CSR with the columns of row i within i ± half_width (clipped), each
/// present with probability 3/4: banded, so that B compresses into (word,
/// mask) pairs.
inline HostCsr<> banded_csr(int rows, int cols, int half_width, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  for (int i = 0; i < rows; ++i)
    for (int c = std::max(0, i - half_width); c <= std::min(cols - 1, i + half_width); ++c)
      if (rng.uniform() < 0.75) r[i].emplace_back(c, 0.5 + rng.uniform());
  return spk::reference::csr_from_rows<double, int, int>(rows, cols, r);
}

/// The same matrix with the columns of every row unsorted: first, last,
/// second, second to last, ... (neighbours no longer adjacent).
inline HostCsr<> interleaved_rows(const HostCsr<>& A) {
  std::vector<std::vector<std::pair<int, double>>> r(A.num_rows());
  for (int i = 0; i < A.num_rows(); ++i)
    for (int lo = A.row_map()(i), hi = A.row_map()(i + 1) - 1; lo <= hi; ++lo, --hi) {
      r[i].emplace_back(A.col_idx()(lo), A.values()(lo));
      if (hi > lo) r[i].emplace_back(A.col_idx()(hi), A.values()(hi));
    }
  return spk::reference::csr_from_rows<double, int, int>(A.num_rows(), A.num_cols(), r);
}

TEST(TEST_CATEGORY, spgemm_thread_dense_paths) {
  // The host kernels' paths on the same inputs: B compressed to (word, mask)
  // pairs (banded) or not (scattered), rows of C touching few bitset words
  // (insertion-sorted) or many (summary scan), B's rows unsorted (less
  // compression, same product), and the per-thread hash tables
  // (slab_budget_bytes = 1).
  if (!spk::Impl::is_host_space_v<ExecSpace>) GTEST_SKIP() << "host kernels only";
  const auto banded = banded_csr(3000, 3000, 40, 61);
  const auto scattered = random_csr(3000, 5000, 8, 62, {10}, {20});
  const auto A_short = random_csr(400, 3000, 2, 63, {0});
  const auto A_long = random_csr(400, 3000, 30, 64, {1}, {2});
  // Rows of C with ~48 columns over 200000: more touched words than the
  // insertion sort takes, fewer than 4 per summary word (read off the
  // summary branch-free; some summary words hold 5 or more).
  const auto A_mid = random_csr(400, 3000, 6, 65, {4}, {5});
  const auto wide = random_csr(3000, 200000, 8, 66, {7});
  struct Case {
    const char* name;
    HostCsr<> A, B;
    bool compressed;
  };
  const std::vector<Case> cases = {
      {"banded B, short rows", A_short, banded, true},
      {"banded B, long rows", A_long, banded, true},
      {"banded B squared", banded, banded, true},
      {"banded B unsorted rows", A_long, interleaved_rows(banded), false},
      {"scattered B, short rows", A_short, scattered, false},
      {"scattered B, long rows", A_long, scattered, false},
      {"wide scattered B, sparse summary", A_mid, wide, false},
  };
  for (const Case& c : cases) {
    const auto ref = spk::reference::spgemm(c.A, c.B);
    const auto bound = product_bound(c.A, c.B);
    auto A = spk::create_mirror_view_and_copy(ExecSpace(), c.A);
    auto B = spk::create_mirror_view_and_copy(ExecSpace(), c.B);
    for (const std::size_t budget : {std::size_t(0), std::size_t(1)})
      for (auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
        SCOPED_TRACE(std::string(c.name) + (budget ? " [hash]" : " [dense]") +
                     (sort == spk::SpgemmSort::Sorted ? " sorted" : " unsorted"));
        spk::SpgemmOptions o;
        o.algorithm = spk::SpgemmAlgorithm::ThreadDense;
        o.slab_budget_bytes = budget;
        o.sort = sort;
        spk::SpgemmHandle<int, int, ExecSpace> handle(o);
        spk::CsrMatrix<double, int, int, ExecSpace> C;
        spk::spgemm_symbolic(ExecSpace(), handle, A, B, C);
        EXPECT_EQ(handle.plan().slab_dense, budget == 0);
        // The unsorted banded B still merges some neighbours: only the
        // sorted cases are sure to pass the compression threshold.
        if (budget == 0 &&
            (c.compressed || std::string(c.name).find("scattered") != std::string::npos))
          EXPECT_EQ(handle.plan().host_cb_word.extent(0) > 0, c.compressed);
        spk_test::poison(C.col_idx());
        spk_test::poison(C.values());
        spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
        expect_product(C, sort, ref, bound, c.name);
      }
  }
}

TEST(TEST_CATEGORY, spgemm_64bit_offsets) {
  auto A = spk::reference::coo_to_csr(
      spk_test::random_coo<double, long long, long long>(300, 280, 2000, 31, 250));
  auto B = spk::reference::coo_to_csr(
      spk_test::random_coo<double, long long, long long>(280, 310, 2500, 32));
  check_product(A, B, "int64 ordinals and offsets");
  auto A2 = spk::reference::coo_to_csr(
      spk_test::random_coo<double, int, std::int64_t>(300, 280, 2000, 33));
  check_product(A2, spk::transpose(A2), "int64 offsets");
}

TEST(TEST_CATEGORY, spgemm_numeric_reuse) {
  auto A_h = random_csr(400, 300, 7, 41, {2}, {9});
  auto B_h = random_csr(300, 350, 6, 42, {}, {1});
  for (const Config& cfg : configs()) {
    SCOPED_TRACE(cfg.name);
    auto A = spk::clone(ExecSpace(), A_h);
    auto B = spk::clone(ExecSpace(), B_h);
    spk::SpgemmHandle<int, int, ExecSpace> handle(cfg.options);
    spk::CsrMatrix<double, int, int, ExecSpace> C;
    spk::spgemm_symbolic(ExecSpace(), handle, A, B, C);
    spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
    // New values, same patterns: numeric only.
    auto A2_h = spk::clone(spk::HostDevice(), A_h);
    auto B2_h = spk::clone(spk::HostDevice(), B_h);
    for (int k = 0; k < A2_h.nnz(); ++k) A2_h.values()(k) = std::sin(1.0 + k);
    for (int k = 0; k < B2_h.nnz(); ++k) B2_h.values()(k) = std::cos(2.0 * k) + 0.1;
    Kokkos::deep_copy(A.values(), A2_h.values());
    Kokkos::deep_copy(B.values(), B2_h.values());
    spk_test::poison(C.col_idx());
    spk_test::poison(C.values());
    spk::spgemm_numeric(ExecSpace(), handle, A, B, C);
    expect_product(C, cfg.options.sort, spk::reference::spgemm(A2_h, B2_h),
                   product_bound(A2_h, B2_h), cfg.name);
    // A pattern that differs from symbolic's is refused.
    auto A3 = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(400, 300, 7, 43));
    if (A3.nnz() != A.nnz())
      EXPECT_THROW(spk::spgemm_numeric(ExecSpace(), handle, A3, B, C), spk::ShapeMismatch);
  }
}

// Two products at once: one queued on an instance (numeric not waited for)
// while another runs on priority_instance, as the distributed product does
// with its local and ghost blocks.  Each instance's bins go on streams of
// their own; both results match the reference.
TEST(TEST_CATEGORY, spgemm_two_instances) {
  const ExecSpace space;
  const ExecSpace side = spk::Impl::priority_instance(space);
  const auto A1_h = random_csr(6000, 5000, 24, 51);
  const auto B1_h = random_csr(5000, 7000, 20, 52);
  const auto A2_h = random_csr(700, 600, 9, 53, {5}, {3});
  const auto B2_h = random_csr(600, 800, 8, 54);
  for (int rep = 0; rep < 2; ++rep) {
    SCOPED_TRACE("repeat " + std::to_string(rep));
    auto A1 = spk::create_mirror_view_and_copy(ExecSpace(), A1_h);
    auto B1 = spk::create_mirror_view_and_copy(ExecSpace(), B1_h);
    auto A2 = spk::create_mirror_view_and_copy(ExecSpace(), A2_h);
    auto B2 = spk::create_mirror_view_and_copy(ExecSpace(), B2_h);
    space.fence();
    spk::SpgemmHandle<int, int, ExecSpace> h1, h2;
    spk::CsrMatrix<double, int, int, ExecSpace> C1, C2;
    spk::spgemm_symbolic(space, h1, A1, B1, C1);
    spk::Impl::spgemm_numeric_queue(space, h1, A1, B1, C1);
    spk::spgemm_symbolic(side, h2, A2, B2, C2);
    spk::spgemm_numeric(side, h2, A2, B2, C2);
    space.fence();
    expect_product(C1, h1.options().sort, spk::reference::spgemm(A1_h, B1_h),
                   product_bound(A1_h, B1_h), "queued");
    expect_product(C2, h2.options().sort, spk::reference::spgemm(A2_h, B2_h),
                   product_bound(A2_h, B2_h), "priority instance");
  }
}

TEST(TEST_CATEGORY, spgemm_result_memory) {
  // C's arrays are managed Views the caller owns, from spk's pool (CUDA) or
  // from Kokkos: a copy keeps an array alive after C and the handle are gone.
  auto A_h = random_csr(500, 400, 6, 51, {3}, {7});
  auto B_h = random_csr(400, 450, 5, 52, {}, {2});
  const auto ref = spk::reference::spgemm(A_h, B_h);
  auto A = spk::create_mirror_view_and_copy(ExecSpace(), A_h);
  auto B = spk::create_mirror_view_and_copy(ExecSpace(), B_h);
  for (const auto where : {spk::SpgemmResultMemory::Pool, spk::SpgemmResultMemory::Kokkos}) {
    SCOPED_TRACE(where == spk::SpgemmResultMemory::Pool ? "pool" : "kokkos");
    spk::CsrMatrix<double, int, int, ExecSpace>::values_type values;
    spk::CsrMatrix<double, int, int, ExecSpace>::index_type cols;
    spk::CsrMatrix<double, int, int, ExecSpace>::row_map_type rows;
    for (int round = 0; round < 3; ++round) {  // earlier arrays go back while later ones come
      spk::SpgemmOptions o;
      o.result_memory = where;
      spk::SpgemmHandle<int, int, ExecSpace> h(o);
      spk::CsrMatrix<double, int, int, ExecSpace> C;
      spk::spgemm_symbolic(ExecSpace(), h, A, B, C);
      spk_test::poison(C.values());
      spk::spgemm_numeric(ExecSpace(), h, A, B, C);
      EXPECT_EQ(C.values().label(), "spk::spgemm::C.values");
      EXPECT_EQ(C.col_idx().label(), "spk::spgemm::C.col_idx");
      values = C.values();
      cols = C.col_idx();
      rows = C.row_map();
      EXPECT_EQ(values.use_count(), 2);
    }
    EXPECT_EQ(values.use_count(), 1);
    EXPECT_EQ(rows.use_count(), 1);
    spk::CsrMatrix<double, int, int, ExecSpace> kept(A.num_rows(), B.num_cols(), rows, cols,
                                                     values);
    expect_product(kept, spk::SpgemmSort::Sorted, ref, product_bound(A_h, B_h), "kept arrays");
  }
}

TEST(TEST_CATEGORY, spgemm_bad_input) {
  auto A = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(10, 12, 3, 51));
  auto B = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(11, 9, 3, 52));
  spk::SpgemmHandle<int, int, ExecSpace> handle;
  spk::CsrMatrix<double, int, int, ExecSpace> C;
  EXPECT_THROW(spk::spgemm_symbolic(ExecSpace(), handle, A, B, C), spk::ShapeMismatch);
  EXPECT_THROW(spk::spgemm_numeric(ExecSpace(), handle, A, B, C), spk::Error);
  // A column index out of range is caught by validation, not a crash.
  auto B_h = random_csr(12, 9, 3, 53);
  ASSERT_GT(B_h.nnz(), 0);
  B_h.col_idx()(B_h.nnz() - 1) = 100;
  auto B_bad = spk::create_mirror_view_and_copy(ExecSpace(), B_h);
  EXPECT_THROW(spk::spgemm_symbolic(ExecSpace(), handle, A, B_bad, C), spk::InvalidMatrix);
  // The same in a long row (hundreds of entries) of A and of B; fresh
  // operands each time (copies of a host matrix share its arrays).  With the
  // backend's default algorithm and with BinnedHash (the host default is
  // ThreadDense), whose analysis kernel finds the invalid rows.
  spk::SpgemmOptions binned;
  binned.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  for (const bool in_a : {true, false}) {
    for (const bool use_binned : {false, true}) {
      auto A_h = random_csr(10, 400, 3, 54, {}, {4});
      auto B2_h = random_csr(400, 300, 2, 55, {}, {7});
      auto& M = in_a ? A_h : B2_h;
      const int row = in_a ? 4 : 7;
      M.col_idx()(M.row_map()(row) + 200) = -3;
      auto A_d = spk::create_mirror_view_and_copy(ExecSpace(), A_h);
      auto B_d = spk::create_mirror_view_and_copy(ExecSpace(), B2_h);
      SCOPED_TRACE(std::string(in_a ? "long row of A" : "long row of B") +
                   (use_binned ? ", BinnedHash" : ", default algorithm"));
      spk::SpgemmHandle<int, int, ExecSpace> h(use_binned ? binned : spk::SpgemmOptions());
      EXPECT_THROW(spk::spgemm_symbolic(ExecSpace(), h, A_d, B_d, C), spk::InvalidMatrix);
    }
  }
}

TEST(TEST_CATEGORY, spgemm_analyze_long_rows) {
  // BinnedHash's analysis gives a row a thread, but shares the entries of
  // rows longer than a bound (64 by default) out among its team's threads.
  // Rows of 0-59 entries and two of 1500, with the bound at its default, at
  // 2 (most rows shared), 0 (all) and 2^30 (none): products per row, the bin
  // histogram, the totals and the first invalid row of A and of B must not
  // depend on who counted, nor on how many rows each thread takes.
  // On the device, 4 rows per thread once they fill a wave of teams (4 of
  // 256 threads per SM; 132 SMs: 540,672 rows), 2 above half that, else 1.
  EXPECT_EQ(spk::Impl::spgemm_analyze_rows_per_thread(21255, 256, 132 * 2048), 1);
  EXPECT_EQ(spk::Impl::spgemm_analyze_rows_per_thread(270336, 256, 132 * 2048), 2);
  EXPECT_EQ(spk::Impl::spgemm_analyze_rows_per_thread(540671, 256, 132 * 2048), 2);
  EXPECT_EQ(spk::Impl::spgemm_analyze_rows_per_thread(540672, 256, 132 * 2048), 4);
  EXPECT_EQ(spk::Impl::spgemm_analyze_rows_per_thread(1 << 30, 256, 32), 4);
  std::vector<std::vector<std::pair<int, double>>> rows(700);
  for (int i = 0; i < 700; ++i) {
    const int len = (i == 5 || i == 300) ? 1500 : (i * 37) % 60;
    for (int q = 0; q < len; ++q) rows[i].emplace_back((q * 97 + i) % 1500, 1.0);
    std::sort(rows[i].begin(), rows[i].end());
    rows[i].erase(std::unique(rows[i].begin(), rows[i].end(),
                              [](auto& a, auto& b) { return a.first == b.first; }),
                  rows[i].end());
  }
  const auto A0 = spk::reference::csr_from_rows<double, int, int>(700, 1500, rows);
  const auto B0 = random_csr(1500, 200, 3, 61, {2, 3}, {40});
  const spk::Impl::SpgemmBinOf bin_of{200, 7, 4, 0};  // tables up to 2^7: long rows too
  for (const int bad : {0, 1, 2}) {                   // none, two bad entries of A, one of B
    auto A_h = spk::clone(spk::HostDevice(), A0);
    auto B_h = spk::clone(spk::HostDevice(), B0);
    if (bad == 1) {
      A_h.col_idx()(A_h.row_map()(300) + 700) = -1;  // a team row
      A_h.col_idx()(A_h.row_map()(650) + 1) = 1500;
    }
    if (bad == 2) B_h.col_idx()(B_h.row_map()(40) + 150) = 200;  // B's dense row
    // The expected statistics, row by row.
    std::vector<std::uint64_t> p(700, 0);
    spk::Impl::SpgemmRowStats want;
    for (int i = 0; i < 700; ++i) {
      bool ok = true;
      for (int q = A_h.row_map()(i); q < A_h.row_map()(i + 1); ++q) {
        const int c = A_h.col_idx()(q);
        ok = ok && c >= 0 && c < 1500;
        if (ok) p[i] += B_h.row_map()(c + 1) - B_h.row_map()(c);
      }
      if (!ok) {
        p[i] = 0;
        want.bad_a = std::min<std::int64_t>(want.bad_a, i);
        continue;
      }
      want.products += p[i];
      want.max_products = std::max(want.max_products, p[i]);
      const int b = bin_of(p[i]);
      if (b >= 0) ++want.bins[b];
      if (b == bin_of.nb - 1) want.long_products += p[i];
    }
    if (bad == 2) want.bad_b = 40;
    ASSERT_GT(want.long_products, 0u);
    auto A = spk::create_mirror_view_and_copy(ExecSpace(), A_h);
    auto B = spk::create_mirror_view_and_copy(ExecSpace(), B_h);
    spk::CsrMatrix<double, int, int, ExecSpace> none;
    const auto v = spk::Impl::spgemm_views<ExecSpace>(A, B, none);
    for (const int team_row : {spk::Impl::spgemm_analyze_team_row, 2, 0, 1 << 30})
      for (const int rows_per_thread : {0, 1, 4}) {  // 0: chosen by spgemm_analyze
        SCOPED_TRACE("bad " + std::to_string(bad) + ", shared above " + std::to_string(team_row) +
                     " entries, " + std::to_string(rows_per_thread) + " rows per thread");
        Kokkos::View<std::uint64_t*, ExecSpace> products("products", 700), counts("counts", 701);
        Kokkos::deep_copy(products, 12345u);
        Kokkos::deep_copy(counts, 777u);
        Kokkos::View<char*, ExecSpace> zeroed("zeroed", spk::Impl::spgemm_analyze_bytes);
        const auto got =
            spk::Impl::spgemm_analyze(ExecSpace(), v, 700, 1500, 200, true, true, bin_of, products,
                                      counts, zeroed.data(), team_row, rows_per_thread);
        EXPECT_EQ(got.products, want.products);
        EXPECT_EQ(got.max_products, want.max_products);
        EXPECT_EQ(got.long_products, want.long_products);
        EXPECT_EQ(got.bad_a, want.bad_a);
        EXPECT_EQ(got.bad_b, want.bad_b);
        for (int b = 0; b < spk::Impl::spgemm_max_bins; ++b) EXPECT_EQ(got.bins[b], want.bins[b]);
        auto p_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products);
        auto c_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
        int wrong = 0;
        for (int i = 0; i < 700; ++i) {
          wrong += p_h(i) != p[i];
          wrong += (p[i] == 0) != (c_h(i + 1) == 0);  // counts(i + 1) zeroed for rows without any
        }
        EXPECT_EQ(wrong, 0);
      }
  }
}

TEST(TEST_CATEGORY, spgemm_offset_overflow) {
  using Short = spk::CsrMatrix<double, int, short, spk::HostDevice>;
  // nnz(C) = 40000 > 32767 with 16-bit offsets: refused before C exists.
  auto dense_rows = [](int rows, int cols) {
    std::vector<std::vector<std::pair<int, double>>> r(rows);
    for (int i = 0; i < rows; ++i)
      for (int c = 0; c < cols; ++c) r[i].emplace_back(c, 1.0 + ((i + c) % 3));
    return r;
  };
  Short A = spk::reference::csr_from_rows<double, int, short>(200, 1, dense_rows(200, 1));
  Short B = spk::reference::csr_from_rows<double, int, short>(1, 200, dense_rows(1, 200));
  auto Ad = spk::create_mirror_view_and_copy(ExecSpace(), A);
  auto Bd = spk::create_mirror_view_and_copy(ExecSpace(), B);
  for (const Config& cfg : configs()) {
    spk::SpgemmHandle<int, short, ExecSpace> handle(cfg.options);
    spk::CsrMatrix<double, int, short, ExecSpace> C;
    try {
      spk::spgemm_symbolic(ExecSpace(), handle, Ad, Bd, C);
      ADD_FAILURE() << cfg.name << ": no exception";
    } catch (const spk::Overflow& e) {
      EXPECT_NE(std::string(e.what()).find("40000 nonzeros"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(handle.symbolic_done());
  }
  // 2000 x 10 dense times 10 x 10 dense: 200000 products overflow 16 bits,
  // nnz(C) = 20000 does not: the product must come out right.
  Short A2 = spk::reference::csr_from_rows<double, int, short>(2000, 10, dense_rows(2000, 10));
  Short B2 = spk::reference::csr_from_rows<double, int, short>(10, 10, dense_rows(10, 10));
  check_product(A2, B2, "200000 products, 16-bit offsets");
}

TEST(TEST_CATEGORY, spgemm_real_matrices) {
  // C = A·A for the square matrices, A·Aᵀ for the rectangular ones.
  SPK_TEST_REQUIRE_MATRIX_DIR();
  std::vector<std::string> names = spk_test::real_matrix_names();
  names.push_back("Maragal_6.mtx.gz");
  const auto found = spk_test::present_matrices(names);
  if (found.empty()) GTEST_SKIP() << "none of the real matrices in " << spk_test::matrix_dir();
  for (const auto& [name, path] : found) {
    const auto A = spk::read_csr<double, int, int>(path);
    const auto B = A.num_rows() == A.num_cols() ? A : spk::transpose(A);
    check_product(A, B, name, true);
  }
}

}  // namespace

// ---- the one-call spk::spgemm (on host spaces: the fused single pass) --------

namespace {

/// Leaves freed memory poisoned where the next allocations of about these
/// sizes are likely to land (the one-call API allocates C and its buffers
/// itself, uninitialised): a best effort to catch entries never written.
/// Large host arrays come from spk's host pool, which would otherwise hand
/// back the previous product's C: the pool is emptied and refilled with
/// poisoned blocks of these sizes.
inline void poison_heap(std::size_t entries) {
  spk::trim_memory_pool();
  for (int round = 0; round < 2; ++round) {
    Kokkos::View<int*, spk::HostDevice> a(Kokkos::ViewAllocateWithoutInitializing("poison"),
                                          entries);
    Kokkos::View<double*, spk::HostDevice> b(Kokkos::ViewAllocateWithoutInitializing("poison"),
                                             entries);
    spk_test::poison(a);
    spk_test::poison(b);
  }
  const Kokkos::DefaultHostExecutionSpace host;
  using IntView = Kokkos::View<int*, Kokkos::HostSpace>;
  using RealView = Kokkos::View<double*, Kokkos::HostSpace>;
  std::vector<IntView> ints;
  std::vector<RealView> reals;
  for (int copy = 0; copy < 2; ++copy) {
    ints.push_back(spk::Impl::result_view<IntView>(host, "poison", entries, true));
    reals.push_back(spk::Impl::result_view<RealView>(host, "poison", entries, true));
    spk_test::poison(ints.back());
    spk_test::poison(reals.back());
  }
}

/// spk::spgemm(A, B, options) on ExecSpace against the reference: pattern
/// exact (rows sorted first when unsorted), values to 1e-12.
template <class S, class O, class F>
void check_one_call(const spk::CsrMatrix<S, O, F, spk::HostDevice>& A_h,
                    const spk::CsrMatrix<S, O, F, spk::HostDevice>& B_h, const std::string& what,
                    std::vector<spk::SpgemmOptions> options = {}) {
  if (options.empty()) {
    spk::SpgemmOptions o;
    options.push_back(o);
    o.sort = spk::SpgemmSort::Unsorted;
    options.push_back(o);
    o.sort = spk::SpgemmSort::Sorted;
    o.slab_budget_bytes = 1;  // per-thread hash tables
    options.push_back(o);
    o.sort = spk::SpgemmSort::Unsorted;
    options.push_back(o);
  }
  const auto ref = spk::reference::spgemm(A_h, B_h);
  const auto bound = product_bound(A_h, B_h);
  auto A = spk::create_mirror_view_and_copy(ExecSpace(), A_h);
  // The same object twice: B is A (C = A·A), as spk sees it.
  auto B = &A_h == &B_h ? A : spk::create_mirror_view_and_copy(ExecSpace(), B_h);
  for (const spk::SpgemmOptions& o : options) {
    const std::string name = what + (o.sort == spk::SpgemmSort::Sorted ? " sorted" : " unsorted") +
                             (o.slab_budget_bytes == 1 ? " hash" : "") +
                             (o.validate_inputs ? "" : " unvalidated");
    SCOPED_TRACE(name);
    poison_heap(static_cast<std::size_t>(ref.nnz()) + 4096);
    const auto C = spk::spgemm(ExecSpace(), A, B, o);
    ASSERT_EQ(C.num_rows(), ref.num_rows());
    ASSERT_EQ(C.num_cols(), ref.num_cols());
    expect_product(C, o.sort, ref, bound, name);
  }
}

}  // namespace

TEST(TEST_CATEGORY, spgemm_host_small_sort) {
  // The AVX-512 sorting network of the host kernels' touched words (rows of
  // C touching 17 to 64 bitset words), and the same products with it turned
  // off (the summary scan, as on CPUs without AVX-512).
  if (!spk::Impl::is_host_space_v<ExecSpace>) GTEST_SKIP() << "host kernels only";
  if (spk::Impl::host_use_avx512_sort) {
    spk::Impl::SplitMix64 rng(5);
    for (std::uint64_t n = 0; n <= spk::Impl::host_avx512_sort_max; ++n)
      for (int rep = 0; rep < 20; ++rep) {
        // Keys from a small range (repeats) or the whole one (the largest
        // key equals the network's padding); 16 slots past n that it must
        // leave alone.
        std::vector<std::uint32_t> a(n + 16, 12345u);
        for (std::uint64_t i = 0; i < n; ++i)
          a[i] = rep % 2 ? static_cast<std::uint32_t>(rng.below(40))
                         : 0xFFFFFFFFu - static_cast<std::uint32_t>(rng.below(1u << 20));
        auto want = a;
        std::sort(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(n));
        spk::Impl::host_sort_u32_avx512(a.data(), n);
        ASSERT_EQ(a, want) << "n = " << n;
      }
  }
  // Rows of C with 0 to ~190 columns over 3125 bitset words: most touch a
  // different word per column.
  const auto A = random_csr(3000, 3000, 6, 101, {0}, {});
  const auto B = random_csr(3000, 200000, 8, 102, {1});
  const auto ref = spk::reference::spgemm(A, B);
  int mid_rows = 0;  // rows touching 17..64 words
  for (int i = 0; i < ref.num_rows(); ++i) {
    std::set<int> words;
    for (int k = ref.row_map()(i); k < ref.row_map()(i + 1); ++k)
      words.insert(ref.col_idx()(k) >> 6);
    mid_rows += words.size() > spk::SpgemmHostPolicy::sort_words &&
                words.size() <= spk::Impl::host_avx512_sort_max;
  }
  ASSERT_GT(mid_rows, 1000);
  const bool had = spk::Impl::host_use_avx512_sort;
  for (const bool use : {true, false}) {
    if (use && !had) continue;
    spk::Impl::host_use_avx512_sort = use;
    SCOPED_TRACE(use ? "AVX-512 network" : "summary scan");
    check_one_call(A, B, "17..64 words per row");
    check_product(A, B, "17..64 words per row", true);
  }
  spk::Impl::host_use_avx512_sort = had;
}

TEST(TEST_CATEGORY, spgemm_one_call_random) {
  // Thousands of rows: several blocks per thread, and pool chunks filled
  // and reserved again many times.  Empty rows, dense rows, rectangular.
  const auto A = random_csr(5000, 3000, 6, 71, {0, 1, 2, 2500, 4999}, {17, 4000});
  const auto B = random_csr(3000, 4000, 5, 72, {3, 2999}, {1234});
  check_one_call(A, B, "5000x3000 * 3000x4000");
  // Narrow B (the dense row of A covers it) and wide B (hash-sized rows).
  check_one_call(random_csr(2000, 800, 4, 73, {5}, {6}), random_csr(800, 64, 3, 74), "narrow B");
  check_one_call(random_csr(600, 900, 5, 75), random_csr(900, 150000, 30, 76, {}, {8}), "wide B");
  check_one_call(random_csr(800, 900, 6, 79, {2}), random_csr(900, 200000, 8, 80),
                 "wide B, short rows");
  // C = A·A: B is A (validated once), banded (B compressed to few pairs:
  // counted first, written in place).
  const auto banded = banded_csr(4000, 4000, 30, 77);
  check_one_call(banded, banded, "banded squared");
  // Short rows over a B of few pairs: counted first, written in place.
  check_one_call(random_csr(3000, 4000, 2, 78, {0}, {9}), banded, "short rows, banded B");
  check_one_call(interleaved_rows(banded), interleaved_rows(banded), "banded, unsorted rows");
  const auto G = spk::rmat<double, int, int>(12, 8, 5);
  check_one_call(G, G, "rmat:12:8 squared");
  spk::SpgemmOptions o;
  o.validate_inputs = false;
  check_one_call(A, B, "5000x3000 * 3000x4000", {o});
}

TEST(TEST_CATEGORY, spgemm_one_call_heavy_rows) {
  // An arrow matrix squared: its dense rows (and their neighbours) are rows
  // of C as wide as B, each a block of the ordered path worth many light
  // blocks, so the threads' staging rings fill behind them and wrap.
  const auto W = spk::arrow<double, int, int>(24000, 3, 7);
  check_one_call(W, W, "arrow:24000:3 squared");
}

TEST(TEST_CATEGORY, spgemm_host_stage_ring) {
  // The ordered path's per-thread staging ring, by hand: reserve, trim,
  // wrap to the front, refuse while full, take back once placed.
  if (!spk::Impl::is_host_space_v<ExecSpace>) GTEST_SKIP() << "host kernels only";
  spk::Impl::HostStageRing ring(100);
  std::vector<char> placed(8, 0);
  auto is_placed = [&](std::int64_t b) { return placed[b] != 0; };
  EXPECT_EQ(ring.reserve(101), -1);
  EXPECT_EQ(ring.reserve(100), 0);
  ring.commit(0, 0, 30);  // [0, 30)
  EXPECT_EQ(ring.reserve(70), 30);
  EXPECT_EQ(ring.reserve(71), -1);
  ring.commit(1, 30, 50);  // [30, 80)
  EXPECT_EQ(ring.reserve(20), 80);
  EXPECT_EQ(ring.reserve(21), -1);  // 20 at the end, nothing before block 0
  placed[0] = 1;
  ring.reclaim(is_placed);          // [30, 80) left
  EXPECT_EQ(ring.reserve(25), 0);   // 20 at the end: wraps to the front
  ring.commit(2, 0, 10);            // wrapped: [30, 80) and [0, 10)
  EXPECT_EQ(ring.reserve(20), 10);  // between the new head and block 1
  EXPECT_EQ(ring.reserve(21), -1);
  ring.commit(3, 10, 0);  // nothing staged (written straight into C): not kept
  EXPECT_EQ(ring.reserve(20), 10);
  ring.reclaim(is_placed);  // block 1 not placed: nothing taken back
  EXPECT_EQ(ring.reserve(21), -1);
  placed[1] = 1;
  ring.reclaim(is_placed);  // [0, 10) left
  EXPECT_EQ(ring.reserve(90), 10);
  EXPECT_EQ(ring.reserve(91), -1);
  placed[2] = 1;
  ring.reclaim(is_placed);  // empty
  EXPECT_EQ(ring.reserve(100), 0);
}

TEST(TEST_CATEGORY, spgemm_one_call_rounds) {
  // nnz(C) is first estimated from the early rows: here they overlap heavily
  // (few distinct columns per product), the later ones hardly at all, so
  // the first pools run out and later rounds finish the rows.
  spk::Impl::SplitMix64 rng(81);
  const int n = 6000, cols = 50000;
  std::vector<std::vector<std::pair<int, double>>> ra(n), rb(n);
  for (int i = 0; i < n; ++i) {
    const bool early = i < n / 2;
    for (int q = 0; q < 8; ++q)
      ra[i].emplace_back(early ? q : static_cast<int>(rng.below(n)), 0.5 + rng.uniform());
    for (int q = 0; q < 10; ++q)
      rb[i].emplace_back(i < 8 ? q : static_cast<int>(rng.below(cols)), rng.uniform() - 0.5);
  }
  auto dedup = [](std::vector<std::vector<std::pair<int, double>>> r) {
    for (auto& row : r) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end(),
                            [](const auto& x, const auto& y) { return x.first == y.first; }),
                row.end());
    }
    return r;
  };
  const auto A = spk::reference::csr_from_rows<double, int, int>(n, n, dedup(ra));
  const auto B = spk::reference::csr_from_rows<double, int, int>(n, cols, dedup(rb));
  // C from Kokkos: the pool of pieces (the ordered path needs C's arrays
  // from spk's host pool).
  std::vector<spk::SpgemmOptions> options(2);
  for (auto& o : options) o.result_memory = spk::SpgemmResultMemory::Kokkos;
  options[1].sort = spk::SpgemmSort::Unsorted;
  check_one_call(A, B, "dense late rows", options);
}

namespace {
/// Launches of the one call's ordered kernel in spk::spgemm(A, B, o)
/// (Kokkos' tool callbacks see every parallel_for by label).
template <class M>
int ordered_launches(const M& A, const M& B, const spk::SpgemmOptions& o) {
  static std::atomic<int> count;
  count = 0;
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(
      [](const char* name, std::uint32_t, std::uint64_t*) {
        if (std::string(name) == "spk::spgemm::host_fused_ordered") ++count;
      });
  const auto C = spk::spgemm(ExecSpace(), A, B, o);
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  EXPECT_GT(C.nnz(), 0);
  return count;
}
}  // namespace

TEST(TEST_CATEGORY, spgemm_one_call_ordered) {
  // A bound of C above the host pool's 64 KiB minimum: host spaces take the
  // ordered path (C at the bound, blocks staged and copied in order), with
  // many blocks per thread; empty rows, a dense row, hash rows (no slab
  // budget), and the pool of pieces when C comes from Kokkos.
  auto A = spk::random_uniform<double, int, int>(40000, 30000, 7, 91);
  const auto B = spk::random_uniform<double, int, int>(30000, 35000, 6, 92);
  // Rows 0, 1 and 39999 emptied, row 20000 full.
  std::vector<std::vector<std::pair<int, double>>> rows(A.num_rows());
  for (int i = 0; i < A.num_rows(); ++i)
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      rows[i].emplace_back(A.col_idx()(k), A.values()(k));
  rows[0].clear();
  rows[1].clear();
  rows[39999].clear();
  rows[20000].clear();
  for (int c = 0; c < A.num_cols(); ++c) rows[20000].emplace_back(c, 1.0 + (c % 7) * 0.125);
  A = spk::reference::csr_from_rows<double, int, int>(A.num_rows(), A.num_cols(), rows);
  std::vector<spk::SpgemmOptions> options(5);
  options[1].sort = spk::SpgemmSort::Unsorted;
  options[2].slab_budget_bytes = 1;
  options[3].result_memory = spk::SpgemmResultMemory::Kokkos;
  options[4].validate_inputs = false;
  check_one_call(A, B, "40000x30000 * 30000x35000", options);
  if constexpr (spk::Impl::is_host_space_v<ExecSpace>) {
    // Which path ran: the ordered kernel's launches, counted by label (the
    // path needs C from the host pool, so results spk can adopt).
    if (spk::Impl::pooled_results_enabled()) {
      const auto A_d = spk::create_mirror_view_and_copy(ExecSpace(), A);
      const auto B_d = spk::create_mirror_view_and_copy(ExecSpace(), B);
      EXPECT_EQ(ordered_launches(A_d, B_d, spk::SpgemmOptions()), 1);
      EXPECT_EQ(ordered_launches(A_d, B_d, options[3]), 0);  // C from Kokkos: pieces
    }
  }
  const auto G = spk::rmat<double, int, int>(14, 6, 9);
  check_one_call(G, G, "rmat:14:6 squared", {spk::SpgemmOptions()});
}

TEST(TEST_CATEGORY, spgemm_one_call_edges) {
  for (const EdgeCase& c : zero_size_cases()) check_one_call(c.A, c.B, c.name);
  check_one_call(random_csr(40, 30, 3, 1), random_csr(30, 20, 0, 2), "empty B");
  check_one_call(random_csr(1, 1, 1, 3), random_csr(1, 1, 1, 4), "1x1");
  check_one_call(spk::reference::coo_to_csr(
                     spk_test::random_coo<double, long long, long long>(900, 700, 6000, 5, 800)),
                 spk::reference::coo_to_csr(
                     spk_test::random_coo<double, long long, long long>(700, 1100, 5000, 6)),
                 "int64 ordinals and offsets");
}

// C = A·A on stencils, B the same object as A (one validation serves both):
// the product matches, and a bad column or row pointer is still reported,
// naming the row, before any product.
TEST(TEST_CATEGORY, spgemm_one_call_stencil_squared) {
  auto S = spk::poisson2d<double, int, int>(150);  // 22500 rows, 5 per row
  for (std::size_t e = 0; e < S.nnz(); ++e)
    S.values()(e) = 0.25 + static_cast<double>((e * 7919) % 1013) / 1013.0;
  check_one_call(S, S, "poisson2d:150 squared");
  // A 3-D stencil (rows of 7).
  auto P = spk::poisson3d<double, int, int>(30);
  check_one_call(P, P, "poisson3d:30 squared", {spk::SpgemmOptions()});
  auto bad = spk::clone(spk::HostDevice(), S);
  bad.col_idx()(bad.row_map()(12345) + 1) = S.num_cols() + 3;  // row 12345
  auto Bad = spk::create_mirror_view_and_copy(ExecSpace(), bad);
  try {
    spk::spgemm(ExecSpace(), Bad, Bad);
    ADD_FAILURE() << "no exception for a column out of range";
  } catch (const spk::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find("12345"), std::string::npos) << e.what();
  }
  auto dec = spk::clone(spk::HostDevice(), S);
  dec.row_map()(20000) = dec.row_map()(20001) + 1;  // decreasing pointers
  auto Dec = spk::create_mirror_view_and_copy(ExecSpace(), dec);
  EXPECT_THROW(spk::spgemm(ExecSpace(), Dec, Dec), spk::InvalidMatrix);
}

TEST(TEST_CATEGORY, spgemm_one_call_errors) {
  using Short = spk::CsrMatrix<double, int, short, spk::HostDevice>;
  auto dense_rows = [](int rows, int cols) {
    std::vector<std::vector<std::pair<int, double>>> r(rows);
    for (int i = 0; i < rows; ++i)
      for (int c = 0; c < cols; ++c) r[i].emplace_back(c, 1.0 + ((i + c) % 3));
    return r;
  };
  // nnz(C) = 40000 does not fit 16-bit offsets: Overflow, with the count.
  const auto A = spk::create_mirror_view_and_copy(
      ExecSpace(), spk::reference::csr_from_rows<double, int, short>(200, 1, dense_rows(200, 1)));
  const auto B = spk::create_mirror_view_and_copy(
      ExecSpace(), spk::reference::csr_from_rows<double, int, short>(1, 200, dense_rows(1, 200)));
  for (const std::size_t budget : {std::size_t(0), std::size_t(1)}) {
    spk::SpgemmOptions o;
    o.slab_budget_bytes = budget;
    try {
      spk::spgemm(ExecSpace(), A, B, o);
      ADD_FAILURE() << "no exception";
    } catch (const spk::Overflow& e) {
      EXPECT_NE(std::string(e.what()).find("40000 nonzeros"), std::string::npos) << e.what();
    }
  }
  // 200000 products overflow 16 bits, nnz(C) = 20000 does not: computed.
  Short A2 = spk::reference::csr_from_rows<double, int, short>(2000, 10, dense_rows(2000, 10));
  Short B2 = spk::reference::csr_from_rows<double, int, short>(10, 10, dense_rows(10, 10));
  check_one_call(A2, B2, "200000 products, 16-bit offsets");
  // Shapes and bad columns (in A, in B, and in B = A).
  auto X = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(10, 12, 3, 51));
  auto Y = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(11, 9, 3, 52));
  EXPECT_THROW(spk::spgemm(ExecSpace(), X, Y), spk::ShapeMismatch);
  auto bad = random_csr(12, 12, 3, 53);
  ASSERT_GT(bad.nnz(), 0);
  bad.col_idx()(bad.nnz() - 1) = 100;
  auto Bad = spk::create_mirror_view_and_copy(ExecSpace(), bad);
  auto Good = spk::create_mirror_view_and_copy(ExecSpace(), random_csr(12, 12, 3, 54));
  EXPECT_THROW(spk::spgemm(ExecSpace(), Good, Bad), spk::InvalidMatrix);
  EXPECT_THROW(spk::spgemm(ExecSpace(), Bad, Good), spk::InvalidMatrix);
  EXPECT_THROW(spk::spgemm(ExecSpace(), Bad, Bad), spk::InvalidMatrix);
  // Decreasing row pointers.
  auto dec = random_csr(12, 12, 3, 55);
  ASSERT_GT(dec.row_map()(5), 0);
  dec.row_map()(4) = dec.row_map()(5) + 1;
  auto Dec = spk::create_mirror_view_and_copy(ExecSpace(), dec);
  EXPECT_THROW(spk::spgemm(ExecSpace(), Dec, Good), spk::InvalidMatrix);
  EXPECT_THROW(spk::spgemm(ExecSpace(), Good, Dec), spk::InvalidMatrix);
}

TEST(TEST_CATEGORY, spgemm_one_call_real_matrices) {
  // The small matrices kept in the repository, then the shared ones when
  // they are there: C = A·A (A·Aᵀ when rectangular).
  std::vector<std::string> paths;
  for (const char* name : {"bcsstk03.mtx.gz", "west0067_jumbled.mtx", "lp_afiro.mtx.gz",
                           "ash219.mtx.gz", "football_riscv.mtx.gz", "karate.mtx"})
    paths.push_back(spk_test::join(spk_test::data_dir(), name));
  if (!spk_test::matrix_dir().empty()) {
    std::vector<std::string> names = spk_test::real_matrix_names();
    names.push_back("Maragal_6.mtx.gz");
    for (const std::string& name : names)
      paths.push_back(spk_test::join(spk_test::matrix_dir(), name));
  }
  int done = 0;
  for (const std::string& path : paths) {
    if (!std::filesystem::exists(path)) continue;
    const auto A = spk::read_csr<double, int, int>(path);
    const auto B = A.num_rows() == A.num_cols() ? A : spk::transpose(A);
    check_one_call(A, B, path);
    ++done;
  }
  EXPECT_GT(done, 0);
}
