// Tests of spk::dist under mpiexec -n 1..4.  Every rank builds the same
// global inputs (same seeds), so each can check its own part against the
// serial reference without extra communication; gathered matrices are
// checked on rank 0.  Checks come after the collectives, so a failure on
// one rank never leaves the others waiting.
//
// Tolerance: products are summed in another order than the serial loop (a
// row is split into local and ghost blocks), so values are compared to
// 1e-12 relative to Σ|a·x| (SpMV) or 1e-12 relative to max(1, |ref|)
// (SpGEMM); SpGEMM patterns must match exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <spk.hpp>
#include <spk_dist.hpp>
#include <spk_reference_convert.hpp>
#include <spk_test_utils.hpp>
#include <sstream>

namespace {

using HostCsr = spk::CsrMatrix<double, int, int, spk::HostDevice>;

MPI_Comm world() { return MPI_COMM_WORLD; }
int rank() { return spk::dist::Impl::comm_rank(world()); }
int nranks() { return spk::dist::Impl::comm_size(world()); }

HostCsr empty_matrix(int rows, int cols) { return HostCsr("empty", rows, cols, 0); }

/// C = A·B, rows sorted, every product kept (also those summing to zero).
HostCsr reference_spgemm(const HostCsr& A, const HostCsr& B) {
  std::vector<std::map<int, double>> rows(A.num_rows());
  for (int i = 0; i < A.num_rows(); ++i)
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const int j = A.col_idx()(k);
      for (int l = B.row_map()(j); l < B.row_map()(j + 1); ++l)
        rows[i][B.col_idx()(l)] += A.values()(k) * B.values()(l);
    }
  long long nnz = 0;
  for (auto& r : rows) nnz += r.size();
  HostCsr C("ref", A.num_rows(), B.num_cols(), static_cast<int>(nnz));
  int q = 0;
  for (int i = 0; i < A.num_rows(); ++i) {
    for (auto& [c, v] : rows[i]) C.col_idx()(q) = c, C.values()(q++) = v;
    C.row_map()(i + 1) = q;
  }
  return C;
}

double xval(long long i) { return std::sin(0.37 * i) + 0.25; }
double yval(long long i) { return std::cos(0.11 * i) - 0.5; }

/// The layouts a test runs with: balanced, by nnz, and uneven user-given
/// sizes (rank 0 empty, the last rank the largest share).
std::vector<std::pair<std::string, spk::dist::RowLayout>> row_layouts(const HostCsr& A) {
  std::vector<std::pair<std::string, spk::dist::RowLayout>> out;
  out.emplace_back("rows", spk::dist::RowLayout::balanced(world(), A.num_rows()));
  std::vector<long long> rp(A.num_rows() + 1, 0);
  for (int i = 0; i <= A.num_rows() && A.row_map().extent(0); ++i) rp[i] = A.row_map()(i);
  out.emplace_back("nnz", spk::dist::RowLayout::by_nnz(world(), rp));
  // Uneven: rank r > 0 gets about r shares of n, rank 0 none, the last
  // rank the rest (one rank: all).
  const long long p = nranks(), n = A.num_rows(), shares = std::max(1LL, p * (p - 1) / 2);
  long long before = 0;
  for (int r = 1; r < rank(); ++r) before += n * r / shares;
  long long mine = p == 1            ? n
                   : rank() == 0     ? 0
                   : rank() == p - 1 ? n - before
                                     : n * rank() / shares;
  out.emplace_back("uneven", spk::dist::RowLayout::from_local_size(world(), mine));
  return out;
}

template <class Device>
using DMat = spk::dist::DistCsrMatrix<double, int, int, Device>;

template <class Device>
void check_spmv(const HostCsr& A, const spk::dist::RowLayout& rl, const spk::dist::RowLayout& cl,
                const std::string& what) {
  using Space = typename spk::device_t<Device>::execution_space;
  auto dA = DMat<Device>::scatter(A, rl, cl);
  EXPECT_EQ(dA.global_nnz(), A.nnz()) << what;
  const double alpha = 1.5;
  for (double beta : {0.0, -0.5}) {
    Kokkos::View<double*, Device> x("x", cl.local_size()), y("y", rl.local_size());
    auto xh = Kokkos::create_mirror_view(x);
    auto yh = Kokkos::create_mirror_view(y);
    for (long long i = 0; i < cl.local_size(); ++i) xh(i) = xval(cl.begin() + i);
    for (long long i = 0; i < rl.local_size(); ++i)
      yh(i) = beta == 0 ? std::nan("") : yval(rl.begin() + i);
    Kokkos::deep_copy(x, xh);
    Kokkos::deep_copy(y, yh);
    // Twice: the plan and the buffers are reused (y accumulates with beta).
    spk::dist::spmv(Space(), alpha, dA, x, beta, y);
    spk::dist::spmv(Space(), alpha, dA, x, beta, y);
    Kokkos::deep_copy(yh, y);
    // No ASSERT here: leaving early would skip collectives the others run.
    long long bad = 0, first = -1;
    double got = 0, want = 0;
    for (long long li = 0; li < rl.local_size(); ++li) {
      const long long i = rl.begin() + li;
      double ax = 0, scale = 0;
      for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
        ax += A.values()(k) * xval(A.col_idx()(k));
        scale += std::abs(A.values()(k) * xval(A.col_idx()(k)));
      }
      const double once = alpha * ax + (beta == 0 ? 0 : beta * yval(i));
      const double ref = alpha * ax + (beta == 0 ? 0 : beta * once);
      if (!(std::abs(yh(li) - ref) <= 1e-12 * (1 + 2 * scale))) {
        if (bad++ == 0) first = i, got = yh(li), want = ref;
      }
    }
    EXPECT_EQ(bad, 0) << what << " beta " << beta << ": first wrong row " << first << " has " << got
                      << ", expected " << want;
  }
}

/// C's ghost list is sorted, owned by other ranks, and every ghost column
/// is used by some entry of the ghost block (no column a product could
/// have named but did not).
template <class Device>
void expect_compact_ghosts(const DMat<Device>& C, const std::string& what) {
  const auto& g = C.ghost_gids();
  EXPECT_TRUE(std::is_sorted(g.begin(), g.end())) << what;
  EXPECT_TRUE(std::adjacent_find(g.begin(), g.end()) == g.end()) << what;
  for (long long c : g) EXPECT_FALSE(C.col_layout().owns(c)) << what << ": ghost " << c;
  auto gb = spk::clone(spk::HostDevice(), C.ghost_block());
  std::vector<char> used(g.size(), 0);
  for (long long k = 0; k < gb.nnz(); ++k) used[gb.col_idx()(k)] = 1;
  EXPECT_EQ(std::count(used.begin(), used.end(), 1), static_cast<long>(g.size()))
      << what << ": unused ghost columns on rank " << rank();
}

/// Checks the distributed product against the serial one: symbolic then
/// numeric, the one-call product, numeric reuse on its handle; with
/// `split` (DistSpgemmHandle::split_interior) as given.  Returns the rows
/// this rank multiplied before the fetch (the last product's).
template <class Device>
long long check_spgemm(const HostCsr& A, const HostCsr& B, const spk::dist::RowLayout& arl,
                       const spk::dist::RowLayout& mid, const spk::dist::RowLayout& bcl,
                       const std::string& what, bool split = true) {
  using Space = typename spk::device_t<Device>::execution_space;
  auto dA = DMat<Device>::scatter(A, arl, mid);
  auto dB = DMat<Device>::scatter(B, mid, bcl);
  spk::dist::DistSpgemmHandle<double, int, int, Device> h;
  h.split_interior = split;
  auto dC = spk::dist::spgemm_symbolic(Space(), h, dA, dB);
  spk_test::poison(dC.local_block().values());
  spk_test::poison(dC.ghost_block().values());
  spk::dist::spgemm_numeric(Space(), h, dA, dB, dC);
  EXPECT_EQ(dC.row_layout(), arl) << what;
  EXPECT_EQ(dC.col_layout(), bcl) << what;
  expect_compact_ghosts(dC, what);
  auto C = dC.gather();
  const auto ref = rank() == 0 ? reference_spgemm(A, B) : HostCsr();
  const auto bound =
      rank() == 0 ? reference_spgemm(spk_test::abs_values(A), spk_test::abs_values(B)) : HostCsr();
  if (rank() == 0) spk_test::expect_product_near(C, ref, bound, 1e-12, what);
  // The one-call product (values fetched with the columns, one local
  // product), then numeric reuse on its handle.
  spk::dist::DistSpgemmHandle<double, int, int, Device> h1;
  h1.split_interior = split;
  auto dC1 = spk::dist::spgemm(Space(), h1, dA, dB);
  EXPECT_EQ(h1.interior_rows(), h.interior_rows()) << what;
  auto C1 = dC1.gather();
  if (rank() == 0) spk_test::expect_product_near(C1, ref, bound, 1e-12, what + " (one call)");
  spk_test::poison(dC1.local_block().values());
  spk_test::poison(dC1.ghost_block().values());
  spk::dist::spgemm_numeric(Space(), h1, dA, dB, dC1);
  auto C2 = dC1.gather();
  if (rank() == 0)
    spk_test::expect_product_near(C2, ref, bound, 1e-12, what + " (one call, numeric)");
  return h1.interior_rows();
}

}  // namespace

template <class Space>
class Dist : public ::testing::Test {};

using Spaces = ::testing::Types<
#if defined(KOKKOS_ENABLE_SERIAL)
    Kokkos::Serial
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_CUDA)
    ,
#endif
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::OpenMP
#if defined(KOKKOS_ENABLE_CUDA)
    ,
#endif
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    Kokkos::Cuda
#endif
    >;
TYPED_TEST_SUITE(Dist, Spaces);

TEST(DistLayout, BalancedAndUserSizes) {
  const int p = nranks();
  for (long long n : {0LL, 1LL, 2LL, 3LL, 10LL, 101LL}) {
    auto l = spk::dist::RowLayout::balanced(world(), n);
    ASSERT_EQ(l.num_ranks(), p);
    EXPECT_EQ(l.global_size(), n);
    long long lo = n, hi = 0;
    for (int r = 0; r < p; ++r) lo = std::min(lo, l.size_of(r)), hi = std::max(hi, l.size_of(r));
    EXPECT_LE(hi - lo, 1) << n;  // more ranks than rows: some own nothing
    for (long long g = 0; g < n; ++g) {
      const int o = l.owner(g);
      EXPECT_TRUE(g >= l.offset(o) && g < l.offset(o + 1)) << g;
    }
  }
  auto u = spk::dist::RowLayout::from_local_size(world(), rank() == 0 ? 0 : 3 * rank());
  EXPECT_EQ(u.global_size(), 3LL * p * (p - 1) / 2);
  EXPECT_EQ(u.local_size(), rank() == 0 ? 0 : 3 * rank());
  EXPECT_THROW(spk::dist::RowLayout::balanced(world(), 5).owner(5), spk::InvalidMatrix);
}

TEST(DistLayout, ByNnzNeverSplitsRows) {
  // One very long row followed by short ones.
  std::vector<long long> rp = {0, 1000};
  for (int i = 0; i < 30; ++i) rp.push_back(rp.back() + 1 + i % 3);
  auto l = spk::dist::RowLayout::by_nnz(world(), rp);
  EXPECT_EQ(l.global_size(), 31);
  for (int r = 0; r < l.num_ranks(); ++r) EXPECT_LE(l.offset(r), l.offset(r + 1));
  // The long row is alone on its rank when there are at least two.
  if (nranks() > 1) EXPECT_EQ(l.size_of(l.owner(0)), 1);
  // No entries: cut by rows.
  auto z = spk::dist::RowLayout::by_nnz(world(), std::vector<long long>(8, 0));
  EXPECT_EQ(z, spk::dist::RowLayout::balanced(world(), 7));
}

TYPED_TEST(Dist, ScatterGatherRoundTrip) {
  using D = TypeParam;
  std::vector<std::pair<std::string, HostCsr>> cases = {
      {"0x0", empty_matrix(0, 0)},
      {"5x7 nnz=0", empty_matrix(5, 7)},
      {"1x1", spk::random_uniform(1, 1, 1, 3)},
      {"3x3", spk::random_uniform(3, 3, 2, 4)},
      {"37x37", spk::random_uniform(37, 37, 4, 5)},
      {"50x23", spk::random_uniform(50, 23, 6, 6)},
  };
  for (auto& [name, A] : cases)
    for (auto part : {spk::dist::Partition::Rows, spk::dist::Partition::Nnz}) {
      auto dA = DMat<D>::scatter(world(), rank() == 0 ? A : HostCsr(), part);
      EXPECT_EQ(dA.num_rows(), A.num_rows()) << name;
      EXPECT_EQ(dA.num_cols(), A.num_cols()) << name;
      EXPECT_EQ(dA.global_nnz(), A.nnz()) << name;
      auto G = dA.gather();
      if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, name);
    }
}

TYPED_TEST(Dist, OwnRowsUnevenSizes) {
  using D = TypeParam;
  auto A = spk::random_uniform(97, 97, 5, 11);
  for (auto& [lname, rl] : row_layouts(A)) {
    // Each rank hands over its own rows (global columns, reversed order in
    // each row to check that order does not matter).
    HostCsr mine("mine", static_cast<int>(rl.local_size()), A.num_cols(),
                 A.row_map()(rl.end()) - A.row_map()(rl.begin()));
    int q = 0;
    for (long long i = rl.begin(); i < rl.end(); ++i) {
      for (int k = A.row_map()(i + 1) - 1; k >= A.row_map()(i); --k)
        mine.col_idx()(q) = A.col_idx()(k), mine.values()(q++) = A.values()(k);
      mine.row_map()(i - rl.begin() + 1) = q;
    }
    DMat<D> dA(rl, rl, mine);
    auto G = dA.gather();
    if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, lname);
    // The ghost list is sorted, owned by others, and matches the plan.
    const auto& g = dA.ghost_gids();
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
    for (long long c : g) EXPECT_FALSE(rl.owns(c));
    EXPECT_EQ(dA.plan().num_received(), dA.num_ghosts());
  }
}

TYPED_TEST(Dist, FromBlocksWithDeviceGhostList) {
  // A matrix made from another's blocks and its ghost list, the list also
  // given in device memory (the public constructor fences before the plan
  // reads it), gathers to the same matrix and has the same plan.
  using D = TypeParam;
  auto A = spk::random_uniform(150, 150, 6, 24);
  for (auto& [lname, rl] : row_layouts(A)) {
    DMat<D> dA = DMat<D>::scatter(A, rl, rl);
    DMat<D> dB(rl, rl, dA.local_block(), dA.ghost_block(), dA.ghost_gids(), dA.ghost_gids_view());
    auto G = dB.gather();
    if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, lname);
    EXPECT_EQ(dB.ghost_gids(), dA.ghost_gids()) << lname;
    EXPECT_EQ(dB.plan().num_sent(), dA.plan().num_sent()) << lname;
    EXPECT_EQ(dB.plan().num_received(), dA.plan().num_received()) << lname;
  }
}

TYPED_TEST(Dist, SpmvMatchesSerial) {
  using D = TypeParam;
  auto A = spk::random_uniform(300, 300, 7, 21);
  for (auto& [lname, rl] : row_layouts(A)) check_spmv<D>(A, rl, rl, "square " + lname);
  auto R = spk::random_uniform(200, 130, 9, 22);
  auto cl = spk::dist::RowLayout::balanced(world(), R.num_cols());
  for (auto& [lname, rl] : row_layouts(R)) check_spmv<D>(R, rl, cl, "rectangular " + lname);
  auto E = empty_matrix(40, 40);
  auto el = spk::dist::RowLayout::balanced(world(), 40);
  check_spmv<D>(E, el, el, "nnz=0");
  auto Z = empty_matrix(0, 0);
  auto zl = spk::dist::RowLayout::balanced(world(), 0);
  check_spmv<D>(Z, zl, zl, "0x0");
  auto T = spk::random_uniform(2, 2, 2, 23);  // more ranks than rows at np >= 3
  auto tl = spk::dist::RowLayout::balanced(world(), 2);
  check_spmv<D>(T, tl, tl, "2x2");
}

TYPED_TEST(Dist, SpgemmMatchesSerial) {
  using D = TypeParam;
  auto A = spk::random_uniform(120, 120, 5, 31);
  for (auto& [lname, rl] : row_layouts(A)) check_spgemm<D>(A, A, rl, rl, rl, "A*A " + lname);
  // Rectangular: (90 x 60)(60 x 75), three different layouts.
  auto R = spk::random_uniform(90, 60, 4, 32);
  auto S = spk::random_uniform(60, 75, 6, 33);
  auto mid = row_layouts(S)[2].second;  // uneven user sizes in the middle
  for (auto& [lname, rl] : row_layouts(R))
    check_spgemm<D>(R, S, rl, mid, spk::dist::RowLayout::balanced(world(), 75),
                    "rectangular " + lname);
  auto l0 = spk::dist::RowLayout::balanced(world(), 0);
  check_spgemm<D>(empty_matrix(0, 0), empty_matrix(0, 0), l0, l0, l0, "0x0");
  auto la = spk::dist::RowLayout::balanced(world(), 40);
  auto lb = spk::dist::RowLayout::balanced(world(), 30);
  auto lc = spk::dist::RowLayout::balanced(world(), 20);
  check_spgemm<D>(empty_matrix(40, 30), spk::random_uniform(30, 20, 3, 34), la, lb, lc, "nnz(A)=0");
  auto T = spk::random_uniform(3, 3, 3, 35);
  auto tl = spk::dist::RowLayout::balanced(world(), 3);
  check_spgemm<D>(T, T, tl, tl, tl, "3x3 dense");
}

// A mesh cut into row blocks: each rank's rows without ghost entries (all
// but the planes next to its neighbours) are multiplied from its own blocks
// before the fetch, the others through the merged operands; the interior
// run starts the block on the first rank, ends it on the last, sits in the
// middle elsewhere.  Against the same product with every row fetched first,
// and with uneven user-given sizes (a rank with no rows, one whose rows are
// all next to a neighbour).
TYPED_TEST(Dist, SpgemmInteriorRows) {
  using D = TypeParam;
  auto P = spk::poisson2d<double, int, int>(30);  // 900 rows, 5-point
  for (int k = 0; k < P.nnz(); ++k) P.values()(k) += 0.01 * std::sin(0.7 * k);
  for (auto& [lname, rl] : row_layouts(P)) {
    const long long inner = check_spgemm<D>(P, P, rl, rl, rl, "poisson2d " + lname, true);
    check_spgemm<D>(P, P, rl, rl, rl, "poisson2d, no split, " + lname, false);
    // Rows next to another rank's block: 30 per neighbour (the grid's
    // width); the run is found exactly below 4096 rows a rank.
    const long long n = rl.local_size();
    const long long nbrs = (rl.begin() > 0 ? 1 : 0) + (rl.end() < P.num_rows() ? 1 : 0);
    const long long free_rows = std::max(0LL, n - 30 * nbrs);
    if (lname == "rows")
      EXPECT_EQ(inner, nbrs == 0 || 16 * free_rows >= n ? free_rows : 0)
          << lname << " rank " << rank();
  }
  // B's own rows reach other ranks' columns while A's do not: interior
  // rows with ghost products (A = I + a band inside each block, B = P).
  auto rl = spk::dist::RowLayout::balanced(world(), P.num_rows());
  std::vector<std::vector<std::pair<int, double>>> rows(P.num_rows());
  for (int r = 0; r < nranks(); ++r)
    for (long long i = rl.offset(r); i < rl.offset(r + 1); ++i) {
      rows[i].emplace_back(static_cast<int>(i), 2.0);
      if (i + 1 < rl.offset(r + 1)) rows[i].emplace_back(static_cast<int>(i + 1), -0.5 + 0.001 * i);
    }
  auto Band = spk::reference::csr_from_rows<double, int, int>(P.num_rows(), P.num_rows(), rows);
  check_spgemm<D>(Band, P, rl, rl, rl, "band*poisson2d");
}

TYPED_TEST(Dist, SpgemmNumericReuse) {
  using D = TypeParam;
  using Space = typename spk::device_t<D>::execution_space;
  auto A = spk::random_uniform(150, 150, 6, 41);
  auto rl = spk::dist::RowLayout::balanced(world(), 150);
  auto dA = DMat<D>::scatter(A, rl, rl);
  spk::dist::DistSpgemmHandle<double, int, int, D> h;
  auto dC = spk::dist::spgemm_symbolic(Space(), h, dA, dA);
  spk::dist::spgemm_numeric(Space(), h, dA, dA, dC);
  // New values, same pattern.
  auto A2 = spk::clone(spk::HostDevice(), A);
  for (int k = 0; k < A2.nnz(); ++k) A2.values()(k) = std::cos(3.0 * k) + 0.1;
  auto dA2 = DMat<D>::scatter(A2, rl, rl);
  spk_test::poison(dC.local_block().values());
  spk_test::poison(dC.ghost_block().values());
  spk::dist::spgemm_numeric(Space(), h, dA2, dA2, dC);
  auto C = dC.gather();
  if (rank() == 0) spk_test::expect_csr_equal(C, reference_spgemm(A2, A2), 1e-12, "reuse");
  EXPECT_EQ(h.fetched_rows(), dA.num_ghosts());
  // The product never writes into its operands (at one rank it multiplies
  // A's own blocks in place of copies).
  auto G = dA.gather();
  if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, "A after numeric with A2");
}

// Block-diagonal A (each rank's rows reach only its own columns) but for one
// entry of the first row, in the last rank's block: every rank but the first
// fetches nothing and multiplies its own blocks, shared, not copied; the
// first fetches a row.  One call, then numeric with new values in other
// matrices of the same pattern.
TYPED_TEST(Dist, SpgemmRanksWithoutGhosts) {
  using D = TypeParam;
  using Space = typename spk::device_t<D>::execution_space;
  const int n = 97;
  auto rl = spk::dist::RowLayout::balanced(world(), n);
  auto make = [&](double shift) {
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (int r = 0; r < nranks(); ++r)
      for (long long i = rl.offset(r); i < rl.offset(r + 1); ++i)
        for (long long j = rl.offset(r); j < rl.offset(r + 1); ++j)
          if ((i * 7 + j * 3) % 5 == 0 || i == j)
            rows[i].emplace_back(static_cast<int>(j), std::sin(shift + i + 0.5 * j) + 0.25);
    rows[0].emplace_back(n - 1, 2.5 + shift);  // the one entry across blocks
    for (auto& r : rows) std::sort(r.begin(), r.end());
    return spk::reference::csr_from_rows<double, int, int>(n, n, rows);
  };
  const HostCsr A = make(0.0), A2 = make(1.0);
  auto dA = DMat<D>::scatter(A, rl, rl);
  spk::dist::DistSpgemmHandle<double, int, int, D> h;
  auto dC = spk::dist::spgemm(Space(), h, dA, dA);
  const long long ghosts = dA.num_ghosts();
  EXPECT_EQ(h.fetched_rows(), ghosts);
  if (rank() != 0 || nranks() == 1) EXPECT_EQ(ghosts, 0);
  auto C = dC.gather();
  if (rank() == 0) spk_test::expect_csr_equal(C, reference_spgemm(A, A), 1e-12, "one call");
  auto dA2 = DMat<D>::scatter(A2, rl, rl);
  spk_test::poison(dC.local_block().values());
  spk_test::poison(dC.ghost_block().values());
  spk::dist::spgemm_numeric(Space(), h, dA2, dA2, dC);
  C = dC.gather();
  if (rank() == 0) spk_test::expect_csr_equal(C, reference_spgemm(A2, A2), 1e-12, "numeric");
  auto G = dA.gather();
  if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, "A unchanged");
}

TYPED_TEST(Dist, RealMatrices) {
  using D = TypeParam;
  SPK_TEST_REQUIRE_MATRIX_DIR();
  for (std::string name : {"small/bcsstk03.mtx.gz", "small/west0479.mtx.gz", "small/ash219.mtx.gz",
                           "small/empty_3x4.mtx.gz", "cage10.mtx.gz"}) {
    const std::string path = spk_test::join(spk_test::matrix_dir(), name);
    auto A = spk::read_csr<double, int, int>(path);
    for (auto part : {spk::dist::Partition::Rows, spk::dist::Partition::Nnz}) {
      auto dA = DMat<D>::read_matrix_market(world(), path, part);
      auto G = dA.gather();
      if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, name);
      check_spmv<D>(A, dA.row_layout(), dA.col_layout(), name);
      if (A.num_rows() == A.num_cols())
        check_spgemm<D>(A, A, dA.row_layout(), dA.row_layout(), dA.row_layout(), name + " A*A");
      else {
        HostCsr At = spk::transpose(A);
        check_spgemm<D>(At, A, spk::dist::RowLayout::balanced(world(), At.num_rows()),
                        dA.row_layout(), dA.col_layout(), name + " At*A");
      }
    }
  }
}

namespace {

/// A temporary file that rank 0 writes (text, or a matrix when text is
/// empty) and every rank can read; removed by rank 0 at the end.
class SharedFile {
 public:
  explicit SharedFile(const std::string& text, const HostCsr* A = nullptr,
                      const std::string& suffix = ".mtx") {
    if (rank() == 0) {
      file_.emplace(suffix);
      path_ = file_->path();
      if (A)
        spk::write_matrix_market(path_, *A);
      else
        std::ofstream(path_, std::ios::binary) << text;
    }
    int len = static_cast<int>(path_.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, world());
    path_.resize(len);
    MPI_Bcast(&path_[0], len, MPI_CHAR, 0, world());
  }
  ~SharedFile() { MPI_Barrier(world()); }  // (before rank 0 removes it)
  const std::string& path() const { return path_; }

 private:
  std::optional<spk_test::TempFile> file_;
  std::string path_;
};

/// A coordinate file of `n` pseudo-random entries (duplicates, empty rows,
/// comments and blank lines among them) in a rows × cols matrix.
std::string random_mm(int rows, int cols, int n, const std::string& kind, unsigned seed) {
  std::ostringstream os;
  os << "%%MatrixMarket matrix coordinate " << kind << "\n% a comment\n%\n"
     << rows << " " << cols << " " << n << "\n";
  unsigned x = seed;
  auto next = [&]() { return x = x * 1664525u + 1013904223u; };
  for (int k = 0; k < n; ++k) {
    if (k % 7 == 3) os << "% comment inside the data\n\n";
    const int i = 1 + static_cast<int>(next() % static_cast<unsigned>(std::max(1, rows - 2)));
    const int j = 1 + static_cast<int>(next() % static_cast<unsigned>(cols));
    const int lo = std::min(i, j), hi = std::max(i, j);
    const bool lower = kind.find("general") == std::string::npos;
    os << (lower ? hi : i) << " " << (lower ? lo : j);
    const bool complex = kind.find("complex") != std::string::npos;
    if (kind.find("skew") != std::string::npos && lo == hi) {
      os << (complex ? " 0 0\n" : " 0\n");
      continue;
    }
    if (kind.find("pattern") == std::string::npos)
      os << " "
         << (kind.find("integer") != std::string::npos
                 ? std::to_string(int(next() % 19) - 9)
                 : std::to_string((next() % 2001) / 1000.0 - 1.0));
    // (a hermitian diagonal entry is real)
    if (complex)
      os << " "
         << (kind.find("hermitian") != std::string::npos && lo == hi
                 ? std::string("0")
                 : std::to_string((next() % 2001) / 1000.0 - 1.0));
    os << "\n";
  }
  return os.str();
}

}  // namespace

// Every rank reads its share of the file: the same matrix as the
// single-process reader's on every kind of file (coordinate and array;
// general, symmetric, skew-symmetric; real, integer, pattern; duplicates,
// comments, blank lines; more ranks than lines), a real matrix written out
// uncompressed, and a gzip file (read by rank 0).
TYPED_TEST(Dist, ReadMatrixMarketParallel) {
  using D = TypeParam;
  std::vector<std::pair<std::string, std::string>> files = {
      {"general", random_mm(37, 29, 211, "real general", 1)},
      {"symmetric", random_mm(41, 41, 150, "real symmetric", 2)},
      {"skew", random_mm(23, 23, 90, "real skew-symmetric", 3)},
      {"pattern", random_mm(17, 30, 60, "pattern general", 4)},
      {"integer", random_mm(19, 19, 70, "integer symmetric", 5)},
      {"array",
       "%%MatrixMarket matrix array real general\n4 3\n1\n0\n2.5\n-1\n0\n0\n3\n4\n5\n6\n"
       "0\n7\n"},
      {"array symmetric", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n4\n5\n6\n"},
      {"one entry", "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3.5\n"},
      {"empty", "%%MatrixMarket matrix coordinate real general\n3 4 0\n"}};
  for (const auto& [name, text] : files) {
    SharedFile f(text);
    HostCsr A;
    if (rank() == 0) A = spk::read_csr<double, int, int>(f.path());
    for (auto part : {spk::dist::Partition::Rows, spk::dist::Partition::Nnz}) {
      auto dA = DMat<D>::read_matrix_market_parallel(world(), f.path(), part);
      auto G = dA.gather();
      if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, name);
      if (part == spk::dist::Partition::Rows) {
        EXPECT_EQ(dA.row_layout().local_size(),
                  spk::dist::RowLayout::balanced(world(), dA.num_rows()).local_size());
      }
    }
  }
  if (!spk_test::matrix_dir().empty()) {
    const std::string gz = spk_test::join(spk_test::matrix_dir(), "small/bcsstk03.mtx.gz");
    HostCsr A = spk::read_csr<double, int, int>(gz);
    SharedFile f("", &A);
    for (const std::string& path : {f.path(), gz}) {
      auto G = DMat<D>::read_matrix_market_parallel(world(), path).gather();
      if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, path);
    }
  }
}

namespace {

/// The parallel reader's matrix in S equals read_csr's, bit for bit, in
/// both partitions.
template <class S, class D>
void expect_parallel_read(const std::string& path, const std::string& what) {
  using M = spk::dist::DistCsrMatrix<S, int, int, D>;
  spk::CsrMatrix<S, int, int, spk::HostDevice> A;
  if (rank() == 0) A = spk::read_csr<S, int, int>(path);
  for (auto part : {spk::dist::Partition::Rows, spk::dist::Partition::Nnz}) {
    const auto G = M::read_matrix_market_parallel(world(), path, part).gather();
    if (rank() == 0) spk_test::expect_csr_equal(G, A, 0, what);
  }
}

}  // namespace

// Complex files are read in parallel too, their values parsed as read_csr
// parses them (complex<float> rounded once, from the text): general,
// symmetric, skew-symmetric and hermitian (mirrors conjugated), and a real
// file into a complex scalar.  A complex file into a real scalar is every
// rank's error.
TYPED_TEST(Dist, ReadMatrixMarketParallelComplex) {
  using D = TypeParam;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"complex general", random_mm(37, 29, 211, "complex general", 6)},
      {"complex hermitian", random_mm(41, 41, 150, "complex hermitian", 7)},
      {"complex skew", random_mm(23, 23, 90, "complex skew-symmetric", 8)},
      {"complex symmetric", random_mm(19, 19, 70, "complex symmetric", 9)},
      {"real into complex", random_mm(17, 30, 60, "real general", 4)}};
  for (const auto& [name, text] : files) {
    SharedFile f(text);
    expect_parallel_read<Kokkos::complex<double>, D>(f.path(), name);
    expect_parallel_read<Kokkos::complex<float>, D>(f.path(), name + " (float)");
  }
  SharedFile f(files[0].second);
  try {
    DMat<D>::read_matrix_market_parallel(world(), f.path());
    ADD_FAILURE() << "rank " << rank() << ": a complex file read into double";
  } catch (const spk::MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("the field is 'complex'"), std::string::npos) << e.what();
  }
}

// A bad line anywhere in the file (here in the last rank's share) is every
// rank's MatrixMarketError, with its line; so are too few and too many
// entries.  The same through the reader on rank 0 (read_matrix_market).
TYPED_TEST(Dist, ReadMatrixMarketParallelErrors) {
  using D = TypeParam;
  std::ostringstream bad;
  bad << "%%MatrixMarket matrix coordinate real general\n100 100 300\n";
  for (int k = 0; k < 300; ++k) bad << (k == 290 ? "7 x 1.0" : "5 6 1.0") << "\n";
  const std::string few = "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 1\n2 2 2\n";
  const std::string many =
      "%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\n2 2 2\n3 3 3\n";
  const std::string range = "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n5 2 2\n";
  // A symmetric file storing (5, 1) at line 6 and (1, 5) at line 103, far
  // apart in the file (different ranks' parts), among 200 entries of the
  // lower triangle otherwise; an entry repeated in one triangle is no pair.
  std::ostringstream mirrored;
  mirrored << "%%MatrixMarket matrix coordinate real symmetric\n300 300 200\n";
  for (int k = 0; k < 200; ++k)
    mirrored << (k == 100 ? "1 5" : k == 150 ? "9 1" : std::to_string(k + 2) + " 1") << " 1.5\n";
  struct Case {
    std::string text;
    long long line;
    std::string needle;
  };
  for (const auto& c :
       {Case{bad.str(), 293, "column index"}, Case{few, 5, "file ends after 2"},
        Case{many, 4, "more entries than the 1"}, Case{range, 4, "outside the 4 x 4"},
        Case{mirrored.str(), 103, "entry (1, 5) mirrors entry (5, 1) at line 6"},
        Case{"%%MatrixMarket matrix coordinate real general\n4 4\n", 2, ""}}) {
    SharedFile f(c.text);
    for (const bool parallel : {true, false}) {
      try {
        if (parallel)
          DMat<D>::read_matrix_market_parallel(world(), f.path());
        else
          DMat<D>::read_matrix_market(world(), f.path());
        ADD_FAILURE() << "rank " << rank() << ": no error for line " << c.line;
      } catch (const spk::MatrixMarketError& e) {
        EXPECT_EQ(e.line(), c.line) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
      }
    }
  }
}

// The blocking exchange the distributed SpGEMM uses, on both transports of
// this build (CUDA IPC where the devices allow it, and staged / direct MPI):
// each rank sends both ring neighbours blocks whose sizes depend on sender
// and receiver, three times with growing sizes (the IPC inbox grows, so
// senders must reopen it).
TYPED_TEST(Dist, ExchangeViewsRing) {
  using D = TypeParam;
  using Mem = typename spk::device_t<D>::memory_space;
  using V = Kokkos::View<double*, typename spk::device_t<D>::memory_space>;
  const int p = nranks(), me = rank();
  auto count = [](int s, int r, long long scale) { return scale * (1 + s + 2 * r); };
  auto value = [](int s, int r, long long k) { return s * 1e6 + r * 1e3 + (k % 997) + 0.5; };
  for (const bool ipc : {true, false}) {
    spk::Settings with_ipc = spk::settings();
    with_ipc.dist_ipc = ipc;
    const spk::ScopedSettings scoped(with_ipc);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    spk::dist::Impl::exchanges_use_ipc<Mem>(comm);  // collective: decided here
    std::vector<int> nb;
    if (p > 1) nb.push_back((me + 1) % p);
    if (p > 2) nb.push_back((me + p - 1) % p);
    for (long long scale : {1LL, 1000LL, 200000LL}) {
      std::vector<long long> sd{0}, rd{0};
      for (int r : nb) sd.push_back(sd.back() + count(me, r, scale));
      for (int s : nb) rd.push_back(rd.back() + count(s, me, scale));
      Kokkos::View<double*, Kokkos::HostSpace> hs("hs", sd.back()), hr("hr", rd.back());
      for (std::size_t n = 0; n < nb.size(); ++n)
        for (long long k = 0; k < sd[n + 1] - sd[n]; ++k) hs(sd[n] + k) = value(me, nb[n], k);
      V send("send", sd.back()), recv("recv", rd.back());
      Kokkos::deep_copy(send, hs);
      spk_test::poison(recv);
      spk::dist::Impl::exchange_views(comm, 7300, nb, sd, send, nb, rd, recv);
      Kokkos::deep_copy(hr, recv);
      long long bad = 0;
      for (std::size_t n = 0; n < nb.size(); ++n)
        for (long long k = 0; k < rd[n + 1] - rd[n]; ++k)
          bad += hr(rd[n] + k) != value(nb[n], me, k) ? 1 : 0;
      EXPECT_EQ(bad, 0) << "dist_ipc " << ipc << " scale " << scale << " rank " << me;
    }
    MPI_Comm_free(&comm);
  }
}

// The transports of the SpMV halo in this build: with CUDA, device to device
// through CUDA IPC (dist_ipc and dist_ipc_halo on) or staged through host
// memory; on hosts, direct.  Each named by its settings.
struct HaloMode {
  bool ipc, ipc_halo;
  /// The current settings with this mode's transports.
  spk::Settings settings() const {
    spk::Settings s = spk::settings();
    s.dist_ipc = ipc;
    s.dist_ipc_halo = ipc_halo;
    return s;
  }
  std::string name() const {
    return std::string("dist_ipc ") + (ipc ? "on" : "off") + ", dist_ipc_halo " +
           (ipc_halo ? "on" : "off");
  }
};
const HaloMode halo_modes[] = {{true, true}, {true, false}, {false, true}};

/// The path a plan over `comm` should take in `mode`.
template <class Mem>
spk::dist::HaloPath expected_path(MPI_Comm comm, const HaloMode& mode) {
  using spk::dist::HaloPath;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible ||
      spk::dist::Impl::cuda_aware_mpi())
    return HaloPath::Direct;
  return mode.ipc && mode.ipc_halo && spk::dist::Impl::exchanges_use_ipc<Mem>(comm)
             ? HaloPath::Ipc
             : HaloPath::Staged;
}

// The SpMV halo on each transport, exchanged many times in a row with new
// values each time, so that a sender that overwrote values its receiver had
// not read yet would show, through finish and through finish_in_place +
// release; then the SpMV itself.
TYPED_TEST(Dist, HaloRepeatedExchanges) {
  using D = TypeParam;
  using M = DMat<D>;
  using Dev = typename M::device_type;
  using Space = typename M::execution_space;
  auto A = spk::random_uniform(400, 400, 9, 31);
  for (const HaloMode& mode : halo_modes) {
    const spk::ScopedSettings scoped(mode.settings());
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    {
      const auto rl = spk::dist::RowLayout::balanced(comm, A.num_rows());
      auto dA = M::scatter(A, rl, rl);
      const auto& plan = dA.plan();
      EXPECT_EQ(static_cast<int>(plan.path()),
                static_cast<int>(expected_path<typename M::memory_space>(comm, mode)))
          << mode.name();
      spk::dist::HaloBuffers<double, Dev> buf;
      Kokkos::View<double*, Dev> x("x", rl.local_size()), ghost("ghost", plan.num_received());
      auto xh = Kokkos::create_mirror_view(x);
      Kokkos::View<double*, Kokkos::HostSpace> got("got", plan.num_received());
      const auto& gids = dA.ghost_gids();
      long long bad = 0;
      for (int it = 0; it < 7; ++it) {
        for (long long i = 0; i < rl.local_size(); ++i) xh(i) = rl.begin() + i + 1000.0 * it;
        Kokkos::deep_copy(x, xh);
        spk_test::poison(ghost);
        plan.begin(Space(), x, ghost, buf);
        if (it % 2 == 0) {
          plan.finish(ghost, buf);
          Kokkos::deep_copy(got, ghost);
        } else {
          const auto values = plan.finish_in_place(Space(), ghost, buf);
          Kokkos::deep_copy(got, values);
          plan.release(Space(), buf);
        }
        for (std::size_t k = 0; k < gids.size(); ++k)
          bad += got(k) != static_cast<double>(gids[k]) + 1000.0 * it ? 1 : 0;
      }
      EXPECT_EQ(bad, 0) << mode.name() << ", rank " << rank();
      check_spmv<D>(A, rl, rl, "spmv, " + mode.name());
    }
    MPI_Comm_free(&comm);
  }
}

// Two matrices on one communicator used in turn, and destroyed in the other
// order than made: each halo keeps its own buffers and its own tokens.
TYPED_TEST(Dist, HaloTwoMatricesInTurn) {
  using D = TypeParam;
  using M = DMat<D>;
  using Space = typename M::execution_space;
  auto A = spk::random_uniform(300, 300, 7, 41);
  auto B = spk::random_uniform(300, 300, 11, 42);
  for (const HaloMode& mode : halo_modes) {
    const spk::ScopedSettings scoped(mode.settings());
    const auto rl = spk::dist::RowLayout::balanced(world(), A.num_rows());
    auto dB = std::make_unique<M>(M::scatter(B, rl, rl));
    auto dA = std::make_unique<M>(M::scatter(A, rl, rl));
    Kokkos::View<double*, D> x("x", rl.local_size()), y("y", rl.local_size());
    auto xh = Kokkos::create_mirror_view(x);
    auto yh = Kokkos::create_mirror_view(y);
    long long bad = 0;
    const char order[] = "ABBABAAB";
    for (int it = 0; order[it]; ++it) {
      const HostCsr& H = order[it] == 'A' ? A : B;
      for (long long i = 0; i < rl.local_size(); ++i) xh(i) = xval(rl.begin() + i) + it;
      Kokkos::deep_copy(x, xh);
      spk::dist::spmv(Space(), 1.0, order[it] == 'A' ? *dA : *dB, x, 0.0, y);
      Kokkos::deep_copy(yh, y);
      for (long long li = 0; li < rl.local_size(); ++li) {
        const long long i = rl.begin() + li;
        double want = 0, scale = 0;
        for (int k = H.row_map()(i); k < H.row_map()(i + 1); ++k) {
          const double t = H.values()(k) * (xval(H.col_idx()(k)) + it);
          want += t, scale += std::abs(t);
        }
        bad += std::abs(yh(li) - want) <= 1e-12 * (1 + scale) ? 0 : 1;
      }
    }
    EXPECT_EQ(bad, 0) << mode.name() << ", rank " << rank();
    dB.reset();
    dA.reset();
  }
}

TYPED_TEST(Dist, BadInputThrowsOnEveryRank) {
  using D = TypeParam;
  using Space = typename spk::device_t<D>::execution_space;
  auto rl = spk::dist::RowLayout::balanced(world(), 8);
  // Column index out of range on the last rank only: every rank throws.
  HostCsr mine("bad", static_cast<int>(rl.local_size()), 8, static_cast<int>(rl.local_size()));
  for (int i = 0; i < rl.local_size(); ++i) {
    mine.col_idx()(i) = (rank() == nranks() - 1 && i == 0) ? 8 : i;
    mine.values()(i) = 1;
    mine.row_map()(i + 1) = i + 1;
  }
  EXPECT_THROW(DMat<D>(rl, rl, mine), spk::InvalidMatrix);
  HostCsr wrong("wrong", static_cast<int>(rl.local_size()) + 1, 8, 0);
  EXPECT_THROW(DMat<D>(rl, rl, wrong), spk::ShapeMismatch);
  auto A = spk::random_uniform(8, 8, 2, 1);
  auto dA = DMat<D>::scatter(A, rl, rl);
  auto dB = DMat<D>::scatter(
      spk::random_uniform(8, 8, 2, 2),
      spk::dist::RowLayout::by_nnz(world(), std::vector<long long>{0, 8, 8, 8, 8, 8, 8, 8, 8}), rl);
  spk::dist::DistSpgemmHandle<double, int, int, D> h;
  if (nranks() > 1)
    EXPECT_THROW(spk::dist::spgemm_symbolic(Space(), h, dA, dB), spk::ShapeMismatch);
  Kokkos::View<double*, D> x("x", rl.local_size() + 1), y("y", rl.local_size());
  EXPECT_THROW(spk::dist::spmv(Space(), 1.0, dA, x, 0.0, y), spk::ShapeMismatch);
}

namespace {

/// A's pattern with values of scalar S: complex ones get an imaginary part
/// (0.3·v + 0.1), so a lost or conjugated part shows.
template <class S>
spk::CsrMatrix<S, int, int, spk::HostDevice> with_scalar(const HostCsr& A) {
  spk::CsrMatrix<S, int, int, spk::HostDevice> B("B", A.num_rows(), A.num_cols(), A.nnz());
  Kokkos::deep_copy(B.row_map(), A.row_map());
  Kokkos::deep_copy(B.col_idx(), A.col_idx());
  for (int k = 0; k < A.nnz(); ++k) {
    const double v = A.values()(k);
    if constexpr (spk::is_complex_v<S>)
      B.values()(k) = S(v, 0.3 * v + 0.1);
    else
      B.values()(k) = static_cast<S>(v);
  }
  return B;
}

template <class S>
std::complex<double> as_z(const S& v) {
  if constexpr (spk::is_complex_v<S>)
    return {v.real(), v.imag()};
  else
    return {static_cast<double>(v), 0.0};
}

/// Distributed SpMV and SpGEMM with scalar S against a serial product in
/// complex<double>, with a tolerance of S's precision.
template <class Device, class S>
void check_scalar(const HostCsr& A_real, const std::string& what) {
  using Space = typename spk::device_t<Device>::execution_space;
  using Z = std::complex<double>;
  const double eps = std::numeric_limits<spk::real_type_t<S>>::epsilon();
  const auto A = with_scalar<S>(A_real);
  auto rl = spk::dist::RowLayout::balanced(world(), A.num_rows());
  auto dA = spk::dist::DistCsrMatrix<S, int, int, Device>::scatter(A, rl, rl);
  Kokkos::View<S*, Device> x("x", rl.local_size()), y("y", rl.local_size());
  auto xh = Kokkos::create_mirror_view(x);
  auto xval_s = [](long long i) {
    if constexpr (spk::is_complex_v<S>)
      return S(xval(i), yval(i));
    else
      return static_cast<S>(xval(i));
  };
  for (long long i = 0; i < rl.local_size(); ++i) xh(i) = xval_s(rl.begin() + i);
  Kokkos::deep_copy(x, xh);
  spk::dist::spmv(Space(), S(1), dA, x, S(0), y);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  long long bad = 0;
  for (long long li = 0; li < rl.local_size(); ++li) {
    const long long i = rl.begin() + li;
    Z want = 0;
    double scale = 0;
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const Z t = as_z(A.values()(k)) * as_z(xval_s(A.col_idx()(k)));
      want += t;
      scale += std::abs(t);
    }
    bad += !(std::abs(as_z(yh(li)) - want) <= 64 * eps * (1 + scale));
  }
  EXPECT_EQ(bad, 0) << what << " spmv";
  spk::dist::DistSpgemmHandle<S, int, int, Device> h;
  auto C = spk::dist::spgemm(Space(), h, dA, dA).gather();
  if (rank() != 0) return;
  // The reference product, row by row.
  long long wrong = 0, entries = 0;
  for (int i = 0; i < A.num_rows(); ++i) {
    std::map<int, std::pair<Z, double>> row;
    for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      for (int l = A.row_map()(A.col_idx()(k)); l < A.row_map()(A.col_idx()(k) + 1); ++l) {
        const Z t = as_z(A.values()(k)) * as_z(A.values()(l));
        row[A.col_idx()(l)].first += t;
        row[A.col_idx()(l)].second += std::abs(t);
      }
    wrong += C.row_map()(i + 1) - C.row_map()(i) != static_cast<int>(row.size());
    for (int k = C.row_map()(i); k < C.row_map()(i + 1); ++k, ++entries) {
      const auto it = row.find(C.col_idx()(k));
      wrong += it == row.end() || !(std::abs(as_z(C.values()(k)) - it->second.first) <=
                                    64 * eps * (1 + it->second.second));
    }
  }
  EXPECT_EQ(wrong, 0) << what << " spgemm";
  EXPECT_GT(entries, 0) << what;
}

}  // namespace

TYPED_TEST(Dist, ComplexAndSinglePrecision) {
  using D = TypeParam;
  const auto A = spk::random_uniform(150, 150, 6, 41);
  check_scalar<D, Kokkos::complex<double>>(A, "complex<double>");
  check_scalar<D, Kokkos::complex<float>>(A, "complex<float>");
  check_scalar<D, float>(A, "float");
}
