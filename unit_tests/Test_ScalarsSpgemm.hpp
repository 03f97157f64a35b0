// SpGEMM for every scalar type (float, double, Kokkos::complex<float>,
// Kokkos::complex<double>) and the ordinal/offset pairs int/int, int/size_t
// and long long/long long: every BinnedHash path (scratch tables, global
// slabs with and without bitmaps, long rows split over teams), ThreadDense
// on host spaces, sorted and unsorted output, and the numeric phase reused
// with new values, against a host reference in complex<double> with a
// tolerance that follows the scalar type.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <spk_scalar_traits.hpp>
#include <spk_spgemm.hpp>
#include <spk_test_scalars.hpp>
#include <spk_test_utils.hpp>
#include <string>
#include <vector>

namespace {
namespace scalars_spgemm_test {

using Exec = TEST_EXECSPACE;
using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
using Z = std::complex<double>;

using spk_test::from_z;
using spk_test::HostCsr;
using spk_test::to_z;

/// The shared random matrix with a dense row 0 and a long row (a long
/// row of C for the split and slab paths, a dense one for the widest rows).
template <class S, class O, class F>
HostCsr<S, O, F> random_csr(long long rows, long long cols, int max_len, long long long_len,
                            std::uint64_t seed) {
  return spk_test::random_csr<S, O, F>(rows, cols, max_len, long_len, seed, true);
}

/// Expects C (any row order) = A·B: per row the same set of columns, each
/// value within 4·(terms + 2)·eps·Σ|a||b|.
template <class S, class O, class F, class MC>
void expect_product(const HostCsr<S, O, F>& A, const HostCsr<S, O, F>& B, const MC& C_in,
                    const std::string& what) {
  auto C = spk::create_mirror_view_and_copy_host(C_in);
  const double eps = std::numeric_limits<spk::real_type_t<S>>::epsilon();
  ASSERT_EQ(static_cast<long long>(C.num_rows()), static_cast<long long>(A.num_rows())) << what;
  ASSERT_EQ(static_cast<long long>(C.num_cols()), static_cast<long long>(B.num_cols())) << what;
  int bad = 0;
  long long entries = 0;
  for (long long i = 0; i < A.num_rows(); ++i) {
    struct Entry {
      Z value;
      double magnitude = 0;
      int terms = 0;
    };
    std::map<long long, Entry> want;
    for (auto ka = A.row_map()(i); ka < A.row_map()(i + 1); ++ka) {
      const long long j = A.col_idx()(ka);
      const Z a = to_z(A.values()(ka));
      for (auto kb = B.row_map()(j); kb < B.row_map()(j + 1); ++kb) {
        Entry& e = want[B.col_idx()(kb)];
        const Z b = to_z(B.values()(kb));
        e.value += a * b;
        e.magnitude += std::abs(a) * std::abs(b);
        e.terms += 1;
      }
    }
    const long long len =
        static_cast<long long>(C.row_map()(i + 1)) - static_cast<long long>(C.row_map()(i));
    if (len != static_cast<long long>(want.size()) && ++bad <= 5)
      ADD_FAILURE() << what << ": row " << i << " has " << len << " entries, expected "
                    << want.size();
    for (auto k = C.row_map()(i); k < C.row_map()(i + 1); ++k) {
      const auto it = want.find(C.col_idx()(k));
      if (it == want.end()) {
        if (++bad <= 5) ADD_FAILURE() << what << ": C(" << i << ", " << C.col_idx()(k) << ") extra";
        continue;
      }
      const double tol = 4.0 * (it->second.terms + 2) * eps * it->second.magnitude + 1e-300;
      const Z got = to_z(C.values()(k));
      if (!(std::abs(got - it->second.value) <= tol) && ++bad <= 5)
        ADD_FAILURE() << what << ": C(" << i << ", " << it->first << ") = " << got << ", expected "
                      << it->second.value << " (tolerance " << tol << ")";
      ++entries;
    }
  }
  EXPECT_EQ(bad, 0) << what;
  EXPECT_GT(entries, 0) << what;
}

struct Config {
  const char* name;
  spk::SpgemmOptions options;
};

inline std::vector<Config> configs() {
  std::vector<Config> out;
  spk::SpgemmOptions o;
  out.push_back({"auto", o});
  o.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  out.push_back({"binned", o});
  spk::SpgemmOptions u = o;
  u.sort = spk::SpgemmSort::Unsorted;
  out.push_back({"binned/unsorted", u});
  spk::SpgemmOptions small = o;
  small.max_scratch_bytes = 3000;  // rows beyond ~128 slots on global slabs
  out.push_back({"binned-small-scratch", small});
  spk::SpgemmOptions nb = small;
  nb.long_row_bitmap = false;
  out.push_back({"binned-no-bitmap", nb});
  spk::SpgemmOptions split = small;
  split.long_row_split = spk::SpgemmLongRowSplit::Force;
  split.long_row_chunk_products = 64;
  split.long_row_split_bytes = 1;
  out.push_back({"binned-split", split});
  if (spk::Impl::is_host_space_v<Exec>) {
    spk::SpgemmOptions d;
    d.algorithm = spk::SpgemmAlgorithm::ThreadDense;
    out.push_back({"thread-dense", d});
    d.slab_budget_bytes = 1;  // per-thread hash tables
    out.push_back({"thread-hash", d});
  }
  return out;
}

template <class Combination>
void every_path_against_the_reference() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  const auto Ah = random_csr<S, O, F>(140, 170, 8, 60, 31);
  const auto Bh = random_csr<S, O, F>(170, 150, 9, 90, 37);
  const auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  const auto B = spk::create_mirror_view_and_copy(Device(), Bh);
  for (const auto& config : configs()) {
    const auto C = spk::spgemm(Exec(), A, B, config.options);
    expect_product(Ah, Bh, C, config.name);
  }
}

/// A few rows of C with 2,000-4,000 columns each: the largest tables a
/// team keeps in scratch (on CUDA, 48 KB a block), so that the scratch a
/// team row takes (table, key buffer, list, alignment) is what the binning
/// sized for every scalar and ordinal width.
template <class Combination>
void largest_scratch_tables() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  const auto Ah = spk_test::random_csr<S, O, F>(9, 64, 64, 64, 43);
  const auto Bh = spk_test::random_csr<S, O, F>(64, 6000, 112, 112, 47);
  const auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  const auto B = spk::create_mirror_view_and_copy(Device(), Bh);
  spk::SpgemmOptions options;
  options.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  expect_product(Ah, Bh, spk::spgemm(Exec(), A, B, options), "binned");
  options.sort = spk::SpgemmSort::Unsorted;
  expect_product(Ah, Bh, spk::spgemm(Exec(), A, B, options), "binned/unsorted");
}

/// Heavy accumulation: 14,000 rows of A of 45-65 entries (two or three
/// rounds of a warp's lanes) over B's rows of up to 6 entries in 24
/// columns (~100-200 products, at most 24 columns a row), with the
/// regrouping and symbolic's sampling forced: on CUDA, float and double
/// rows leave their warp-sorted bin (enough rows that it does not count as
/// few) for warp-hashed tables; complex ones and the host spaces take lane
/// tables.
template <class Combination>
void heavy_accumulation_on_warp_tables() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  spk::Impl::SplitMix64 g(53);
  const auto Ah = spk_test::random_csr_of_lengths<S, O, F>(
      14000, 300, g, [](long long i, spk::Impl::SplitMix64& r) {
        return i % 7 == 3 ? 0LL : 45 + static_cast<long long>(r.below(21));  // 45-65, some empty
      });
  const auto Bh = spk_test::random_csr<S, O, F>(300, 24, 6, 6, 59);
  const auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  const auto B = spk::create_mirror_view_and_copy(Device(), Bh);
  spk::SpgemmOptions options;
  options.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  options.tuning.regroup_shrink_log2 = 2;
  options.tuning.regroup_min_products = 0;
  options.tuning.regroup_warp_sorted = true;
  options.tuning.regroup_team_products_per_column = 1;
  options.tuning.sample_compression = 0;
  options.tuning.sample_min_products = 0;
  for (const auto sort : {spk::SpgemmSort::Sorted, spk::SpgemmSort::Unsorted}) {
    options.sort = sort;
    spk::SpgemmHandle<O, F, Device> handle(options);
    spk::CsrMatrix<S, O, F, Device> C;
    spk::spgemm_symbolic(Exec(), handle, A, B, C);
    std::int64_t hashed = 0;
    for (const auto& bin : handle.bins())
      if (bin.kernel == spk::Impl::SpgemmBinKernel::WarpHashed) hashed += bin.end - bin.begin;
    if (spk::Impl::spgemm_warp_sort_capable<Exec, S>())
      EXPECT_GT(hashed, 7000);
    else
      EXPECT_EQ(hashed, 0);
    Kokkos::deep_copy(C.values(), from_z<S>(Z(std::nan(""), 0)));
    spk::spgemm_numeric(Exec(), handle, A, B, C);
    expect_product(Ah, Bh, C, sort == spk::SpgemmSort::Sorted ? "sorted" : "unsorted");
  }
}

template <class Combination>
void numeric_phase_reused_with_new_values() {
  using S = typename Combination::scalar;
  using O = typename Combination::ordinal;
  using F = typename Combination::offset;
  auto Ah = random_csr<S, O, F>(120, 120, 7, 50, 41);
  const auto A = spk::create_mirror_view_and_copy(Device(), Ah);
  spk::SpgemmOptions options;
  options.algorithm = spk::SpgemmAlgorithm::BinnedHash;
  spk::SpgemmHandle<O, F, Device> handle(options);
  spk::CsrMatrix<S, O, F, Device> C;
  spk::spgemm_symbolic(Exec(), handle, A, A, C);
  spk::spgemm_numeric(Exec(), handle, A, A, C);
  expect_product(Ah, Ah, C, "first numeric");
  // New values (complex: a rotation too), same pattern.
  for (long long k = 0; k < static_cast<long long>(Ah.nnz()); ++k)
    Ah.values()(k) =
        from_z<S>(to_z(Ah.values()(k)) * (spk::is_complex_v<S> ? Z(0.5, 0.75) : Z(-1.5, 0)));
  Kokkos::deep_copy(A.values(), Ah.values());
  Kokkos::deep_copy(C.values(), from_z<S>(Z(std::nan(""), 0)));
  spk::spgemm_numeric(Exec(), handle, A, A, C);
  expect_product(Ah, Ah, C, "second numeric");
}

// Both tests for each type combination of this translation unit's part
// (spk_test_scalar_combinations.inc).
#define SPK_SCALAR_TESTS(S, O, F, tag)                                \
  TEST(TEST_CATEGORY, scalars_spgemm_every_path_##tag) {              \
    every_path_against_the_reference<spk_test::Types<S, O, F>>();     \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_spgemm_numeric_reuse_##tag) {           \
    numeric_phase_reused_with_new_values<spk_test::Types<S, O, F>>(); \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_spgemm_largest_tables_##tag) {          \
    largest_scratch_tables<spk_test::Types<S, O, F>>();               \
  }                                                                   \
  TEST(TEST_CATEGORY, scalars_spgemm_heavy_accumulation_##tag) {      \
    heavy_accumulation_on_warp_tables<spk_test::Types<S, O, F>>();    \
  }
#include <spk_test_scalar_combinations.inc>
#undef SPK_SCALAR_TESTS

}  // namespace scalars_spgemm_test
}  // namespace
