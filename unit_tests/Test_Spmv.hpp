// spk::spmv against the serial reference: every algorithm, both modes, one
// and several right-hand sides, CSR / CSC / COO, on hand-checkable, random
// (empty rows, one very long row), generated and real matrices.
#include <algorithm>
#include <cmath>
#include <set>
#include <spk_matrix_market.hpp>
#include <spk_reference_convert.hpp>
#include <spk_reference_spmv.hpp>
#include <spk_spmv.hpp>
#include <spk_test_utils.hpp>
#include <string>
#include <vector>
#if defined(SPK_HAVE_KOKKOSKERNELS)
#include <KokkosSparse_spmv.hpp>
#endif

// Inside an anonymous namespace: each backend's translation unit includes
// this file with its own TEST_EXECSPACE, so these helpers must not be
// shared between them (an inline function of one name would be one
// definition at link time, and every backend would run the same space).
namespace {
namespace spmv_test {

using Exec = TEST_EXECSPACE;
using HostCsr = spk::CsrMatrix<double, int, int, spk::HostDevice>;
using HostVec = Kokkos::View<double*, Kokkos::HostSpace>;
using HostMulti = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;

inline const std::vector<spk::SpmvAlgorithm>& algorithms() {
  static const std::vector<spk::SpmvAlgorithm> a = {
      spk::SpmvAlgorithm::Auto,      spk::SpmvAlgorithm::Scalar, spk::SpmvAlgorithm::Vector,
      spk::SpmvAlgorithm::MergePath, spk::SpmvAlgorithm::Stream, spk::SpmvAlgorithm::Dynamic};
  return a;
}

/// Random values in [-1, 1] (never all zero).
inline void fill_random(const HostMulti& v, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  for (size_t j = 0; j < v.extent(1); ++j)
    for (size_t i = 0; i < v.extent(0); ++i) v(i, j) = 2 * rng.uniform() - 1;
}

/// |y - ref| <= 1e-12 · (|α|·Σ|a||x| + |β·y0|) per entry: the rounding any
/// summation order may give, relative to the size of the terms.
inline void expect_close(const HostCsr& A, spk::Mode mode, double alpha, const HostMulti& x,
                         double beta, const HostMulti& y0, const HostMulti& y, const HostMulti& ref,
                         const std::string& what) {
  HostCsr absA("abs", A.num_rows(), A.num_cols(), A.nnz());
  Kokkos::deep_copy(absA.row_map(), A.row_map());
  Kokkos::deep_copy(absA.col_idx(), A.col_idx());
  for (int k = 0; k < A.nnz(); ++k) absA.values()(k) = std::abs(A.values()(k));
  HostMulti absx("absx", x.extent(0), x.extent(1)), scale("scale", y.extent(0), y.extent(1));
  for (size_t j = 0; j < x.extent(1); ++j)
    for (size_t i = 0; i < x.extent(0); ++i) absx(i, j) = std::abs(x(i, j));
  spk::reference::spmv(1.0, absA, absx, 0.0, scale, mode);
  int bad = 0;
  for (size_t j = 0; j < y.extent(1); ++j)
    for (size_t i = 0; i < y.extent(0); ++i) {
      const double b0 = beta == 0 ? 0.0 : std::abs(beta * y0(i, j));
      const double tol = 1e-12 * (std::abs(alpha) * scale(i, j) + b0) + 1e-300;
      // Matrices with Inf or NaN entries (small/skew_fp64, west0067_with_nan):
      // the same non-finite result in any summation order.
      const bool finite = std::isfinite(ref(i, j)) && std::isfinite(tol);
      const bool same = y(i, j) == ref(i, j) || (std::isnan(y(i, j)) && std::isnan(ref(i, j)));
      if (finite ? !(std::abs(y(i, j) - ref(i, j)) <= tol) : !same) {
        if (++bad <= 5)
          ADD_FAILURE() << what << ": y(" << i << ", " << j << ") = " << y(i, j) << ", reference "
                        << ref(i, j) << ", tolerance " << tol;
      }
    }
  EXPECT_EQ(bad, 0) << what;
}

enum class Format { csr, csc, coo, csr_plan };

inline const char* name(Format f) {
  switch (f) {
    case Format::csr:
      return "csr";
    case Format::csc:
      return "csc";
    case Format::coo:
      return "coo";
    case Format::csr_plan:
      return "csr+plan";
  }
  return "?";
}

/// Runs one spmv on Exec (device copies of A, x, y) with options opt and
/// compares with the reference.  nv = 0: rank-1 Views; nv >= 1: rank-2 with
/// nv columns.
inline void check_with(const HostCsr& A, Format format, const spk::SpmvOptions& opt, int nv,
                       double alpha, double beta, std::uint64_t seed, const std::string& what) {
  const spk::Mode mode = opt.mode;
  const spk::SpmvAlgorithm alg = opt.algorithm;
  const bool t = mode == spk::Mode::Transpose;
  const size_t n_in = t ? A.num_rows() : A.num_cols();
  const size_t n_out = t ? A.num_cols() : A.num_rows();
  const size_t cols = nv == 0 ? 1 : nv;
  HostMulti x("x", n_in, cols), y0("y0", n_out, cols), ref("ref", n_out, cols), y("y", n_out, cols);
  fill_random(x, seed);
  fill_random(y0, seed + 1);
  if (beta == 0) spk_test::poison(y0);  // β = 0 must ignore NaN in y
  Kokkos::deep_copy(ref, y0);
  spk::reference::spmv(alpha, A, x, beta, ref, mode);

  const std::string full = what + " [" + name(format) + ", " + spk::to_string(alg) + ", " +
                           (t ? "transpose" : "normal") + ", nv=" + std::to_string(nv) +
                           ", alpha=" + std::to_string(alpha) + ", beta=" + std::to_string(beta) +
                           "]";
  auto run = [&](const auto& dx, const auto& dy) {
    Exec space;
    switch (format) {
      case Format::csr: {
        auto dA = spk::create_mirror_view_and_copy(space, A);
        spk::spmv(space, alpha, dA, dx, beta, dy, opt);
        break;
      }
      case Format::csr_plan: {
        auto dA = spk::create_mirror_view_and_copy(space, A);
        spk::SpmvPlan plan(space, dA, opt);
        // Twice through one plan: the second call reuses its scratch.
        auto y_first = Kokkos::create_mirror(dy);  // a copy, also on the host
        Kokkos::deep_copy(y_first, dy);
        spk::spmv(space, plan, alpha, dA, dx, beta, dy, mode);
        Kokkos::deep_copy(dy, y_first);
        spk::spmv(space, plan, alpha, dA, dx, beta, dy, mode);
        break;
      }
      case Format::csc: {
        auto dA = spk::create_mirror_view_and_copy(space, spk::reference::csr_to_csc(A));
        spk::spmv(space, alpha, dA, dx, beta, dy, opt);
        break;
      }
      case Format::coo: {
        auto dA = spk::create_mirror_view_and_copy(space, spk::reference::csr_to_coo(A));
        spk::spmv(space, alpha, dA, dx, beta, dy, opt);
        break;
      }
    }
    space.fence();
  };
  using MS = typename Exec::memory_space;
  if (nv == 0) {
    Kokkos::View<double*, MS> dx("dx", n_in), dy("dy", n_out);
    Kokkos::deep_copy(dx, Kokkos::subview(x, Kokkos::ALL, 0));
    Kokkos::deep_copy(dy, Kokkos::subview(y0, Kokkos::ALL, 0));
    run(dx, dy);
    Kokkos::deep_copy(Kokkos::subview(y, Kokkos::ALL, 0), dy);
  } else {
    Kokkos::View<double**, Kokkos::LayoutLeft, MS> dx("dx", n_in, cols), dy("dy", n_out, cols);
    Kokkos::deep_copy(dx, x);
    Kokkos::deep_copy(dy, y0);
    run(dx, dy);
    Kokkos::deep_copy(y, dy);
  }
  expect_close(A, mode, alpha, x, beta, y0, y, ref, full);
}

inline void check(const HostCsr& A, Format format, spk::SpmvAlgorithm alg, spk::Mode mode, int nv,
                  double alpha, double beta, std::uint64_t seed, const std::string& what) {
  spk::SpmvOptions opt;
  opt.algorithm = alg;
  opt.mode = mode;
  check_with(A, format, opt, nv, alpha, beta, seed, what);
}

/// Every algorithm × mode × (rank-1, rank-2) × (β = 0, β ≠ 0), CSR with and
/// without a plan; CSC and COO in both modes.
inline void check_all(const HostCsr& A, const std::string& what, bool thorough = true) {
  std::uint64_t seed = 100;
  for (auto mode : {spk::Mode::Normal, spk::Mode::Transpose}) {
    for (auto alg : algorithms()) {
      for (int nv : {0, 3}) {
        if (!thorough && nv == 3 && alg != spk::SpmvAlgorithm::Auto) continue;
        check(A, Format::csr, alg, mode, nv, 1.0, 0.0, ++seed, what);
        check(A, Format::csr_plan, alg, mode, nv, -0.5, 1.5, ++seed, what);
      }
    }
    for (auto f : {Format::csc, Format::coo}) {
      check(A, f, spk::SpmvAlgorithm::Auto, mode, 0, 2.0, 0.0, ++seed, what);
      check(A, f, spk::SpmvAlgorithm::Auto, mode, 2, 1.0, -1.0, ++seed, what);
    }
  }
}

/// A random rows × cols matrix with empty rows and, when long_row >= 0, row
/// long_row holding `long_len` entries.
inline HostCsr random_matrix(int rows, int cols, int nnz, std::uint64_t seed, int long_row = -1,
                             int long_len = 0) {
  auto coo = spk_test::random_coo<double, int, int>(rows, cols, nnz, seed, rows - rows / 5);
  if (long_row < 0) return spk::reference::coo_to_csr(coo);
  spk::CooMatrix<double, int, int, spk::HostDevice> big("big", rows, cols, nnz + long_len);
  for (int k = 0; k < nnz; ++k) {
    big.row_idx()(k) = coo.row_idx()(k);
    big.col_idx()(k) = coo.col_idx()(k);
    big.values()(k) = coo.values()(k);
  }
  spk::Impl::SplitMix64 rng(seed + 7);
  for (int k = 0; k < long_len; ++k) {
    big.row_idx()(nnz + k) = long_row;
    big.col_idx()(nnz + k) = static_cast<int>(rng.below(cols));
    big.values()(nnz + k) = 2 * rng.uniform() - 1;
  }
  return spk::reference::coo_to_csr(big);
}

/// rows × cols with length(i, rng) distinct random columns in row i; with
/// band >= 0 the columns lie within ±band of the row's diagonal position
/// i · cols / rows (banded, local columns: neighbouring rows read the same
/// lines of x).
template <class Length>
HostCsr rows_with(int rows, int cols, std::uint64_t seed, Length length, int band = -1) {
  spk::Impl::SplitMix64 rng(seed);
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  std::vector<char> used(cols, 0);
  for (int i = 0; i < rows; ++i) {
    const long long centre = static_cast<long long>(i) * cols / rows;
    const int lo = band < 0 ? 0 : static_cast<int>(std::max(0LL, centre - band));
    const int hi =
        band < 0 ? cols - 1 : static_cast<int>(std::min<long long>(cols - 1, centre + band));
    const int len = std::min(length(i, rng), hi - lo + 1);
    while (static_cast<int>(r[i].size()) < len) {
      const int c = lo + static_cast<int>(rng.below(hi - lo + 1));
      if (used[c]) continue;
      used[c] = 1;
      r[i].emplace_back(c, 2 * rng.uniform() - 1);
    }
    for (const auto& e : r[i]) used[e.first] = 0;
    std::sort(r[i].begin(), r[i].end());
  }
  return spk::reference::csr_from_rows<double, int, int>(rows, cols, r);
}

/// Rows of min_len..max_len entries, every empty_every-th row empty (0:
/// none) and, when long_row >= 0, row long_row of long_len entries.
inline HostCsr rows_of(int rows, int cols, int min_len, int max_len, int empty_every,
                       std::uint64_t seed, int long_row = -1, int long_len = 0) {
  return rows_with(rows, cols, seed, [&](int i, spk::Impl::SplitMix64& rng) {
    if (i == long_row) return long_len;
    if (empty_every > 0 && i % empty_every == empty_every - 1) return 0;
    return min_len + static_cast<int>(rng.below(max_len - min_len + 1));
  });
}

/// Rows of min_len..max_len entries within ±100 columns of the diagonal.
inline HostCsr banded_rows(int rows, int cols, int min_len, int max_len, std::uint64_t seed) {
  return rows_with(
      rows, cols, seed,
      [&](int, spk::Impl::SplitMix64& rng) {
        return min_len + static_cast<int>(rng.below(max_len - min_len + 1));
      },
      100);
}

/// The 27-point stencil on an n × n × n grid (27 entries in interior rows);
/// dofs > 1: the 7-point graph with dense dofs × dofs blocks (3 dofs: 21
/// entries a row, 3-D elasticity's pattern).
inline HostCsr grid_matrix(int n, bool points27, int dofs = 1) {
  std::vector<std::vector<std::pair<int, double>>> r(n * n * n * dofs);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const int p = (z * n + y) * n + x;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (!points27 && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n) continue;
              const int q = (Z * n + Y) * n + X;
              for (int a = 0; a < dofs; ++a)
                for (int b = 0; b < dofs; ++b)
                  r[p * dofs + a].emplace_back(q * dofs + b, q == p && a == b ? 26.0 : -1.0 - b);
            }
      }
  const int m = n * n * n * dofs;
  return spk::reference::csr_from_rows<double, int, int>(m, m, r);
}

/// SpmvRowStats::neighbour_share as its comment defines it, on the host:
/// rows 1, 1 + stride, ... (at most 65536), the first 64 entries of each
/// against the first 64 of the row before, 8-column lines of x.
inline double host_neighbour_share(const HostCsr& A) {
  const long long n = A.num_rows();
  if (n < 2) return 1.0;
  const long long stride = std::max(1LL, (n - 1 + 65535) / 65536);
  long long shared = 0, seen = 0;
  for (long long i = 1; i < n; i += stride) {
    std::set<long long> lines;
    const long long p0 = A.row_map()(i - 1);
    for (long long p = p0; p < std::min<long long>(A.row_map()(i), p0 + 64); ++p)
      lines.insert(A.col_idx()(p) / 8);
    const long long a0 = A.row_map()(i);
    for (long long a = a0; a < std::min<long long>(A.row_map()(i + 1), a0 + 64); ++a) {
      shared += lines.count(A.col_idx()(a) / 8);
      ++seen;
    }
  }
  return seen > 0 ? double(shared) / double(seen) : 1.0;
}

/// Host-side row-length statistics (what SpmvPlan computes on the device).
inline spk::SpmvRowStats host_stats(const HostCsr& A) {
  spk::SpmvRowStats s;
  s.num_rows = A.num_rows();
  s.nnz = A.nnz();
  s.mean = s.num_rows > 0 ? double(s.nnz) / s.num_rows : 0.0;
  double var = 0;
  for (int i = 0; i < A.num_rows(); ++i) {
    const long long len = A.row_map()(i + 1) - A.row_map()(i);
    s.max_length = std::max(s.max_length, len);
    s.empty_rows += len == 0;
    var += (len - s.mean) * (len - s.mean);
  }
  s.stddev = s.num_rows > 0 ? std::sqrt(var / s.num_rows) : 0.0;
  s.neighbour_share = host_neighbour_share(A);
  return s;
}

}  // namespace spmv_test
}  // namespace

// Hand-checkable: [1 0 2 0; 0 0 0 0; 0 3 0 4] · [1 2 3 4] = [7 0 22].
TEST(TEST_CATEGORY, spmv_tiny) {
  using namespace spmv_test;
  auto A = spk::reference::csr_from_rows<double, int, int>(
      3, 4, {{{0, 1.0}, {2, 2.0}}, {}, {{1, 3.0}, {3, 4.0}}});
  for (auto alg : algorithms()) {
    Exec space;
    auto dA = spk::create_mirror_view_and_copy(space, A);
    Kokkos::View<double*, typename Exec::memory_space> x("x", 4), y("y", 3);
    auto hx = Kokkos::create_mirror_view(x);
    for (int i = 0; i < 4; ++i) hx(i) = i + 1;
    Kokkos::deep_copy(x, hx);
    spk_test::poison(y);
    spk::SpmvOptions opt;
    opt.algorithm = alg;
    spk::spmv(space, dA, x, y, opt);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    EXPECT_EQ(hy(0), 7.0) << spk::to_string(alg);
    EXPECT_EQ(hy(1), 0.0) << spk::to_string(alg);
    EXPECT_EQ(hy(2), 22.0) << spk::to_string(alg);
    // y := 2·Aᵀ·[1 1 1] + 1·y0 with y0 = [1 1 1 1]: [3 7 5 9].
    Kokkos::View<double*, typename Exec::memory_space> xt("xt", 3), yt("yt", 4);
    Kokkos::deep_copy(xt, 1.0);
    Kokkos::deep_copy(yt, 1.0);
    opt.mode = spk::Mode::Transpose;
    spk::spmv(space, 2.0, dA, xt, 1.0, yt, opt);
    auto hyt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yt);
    EXPECT_EQ(hyt(0), 3.0);
    EXPECT_EQ(hyt(1), 7.0);
    EXPECT_EQ(hyt(2), 5.0);
    EXPECT_EQ(hyt(3), 9.0);
  }
}

TEST(TEST_CATEGORY, spmv_random) {
  using namespace spmv_test;
  // Larger than a warp and a team; a fifth of the rows empty.
  check_all(random_matrix(1000, 1000, 8000, 1), "random 1000x1000");
  // Rectangular both ways.
  check_all(random_matrix(700, 2100, 6000, 2), "random 700x2100");
  check_all(random_matrix(2100, 300, 9000, 3), "random 2100x300");
}

TEST(TEST_CATEGORY, spmv_long_row) {
  using namespace spmv_test;
  // One row far longer than a team (and the merge-path segments), plus a
  // dense-ish first row.
  check_all(random_matrix(3000, 5000, 6000, 4, 1234, 20000), "one long row", false);
  check_all(random_matrix(500, 5000, 1000, 5, 0, 4999), "long first row", false);
}

TEST(TEST_CATEGORY, spmv_generated) {
  using namespace spmv_test;
  check_all(spk::poisson2d<double, int, int>(40), "poisson2d:40", false);
  check_all(spk::poisson3d<double, int, int>(12), "poisson3d:12", false);
  check_all(spk::generate<double, int, int>("rmat:12:8:3"), "rmat:12:8:3", false);
}

TEST(TEST_CATEGORY, spmv_degenerate) {
  using namespace spmv_test;
  // No nonzeros, no rows, no columns; alpha = 0.
  check_all(random_matrix(50, 60, 0, 6), "empty 50x60", false);
  check_all(random_matrix(1, 1, 1, 7), "1x1", false);
  HostCsr none("none", 0, 5, 0);
  check(none, Format::csr, spk::SpmvAlgorithm::MergePath, spk::Mode::Transpose, 0, 1, 0.5, 8,
        "0x5");
  HostCsr nocols("nocols", 7, 0, 0);
  check(nocols, Format::csr, spk::SpmvAlgorithm::Vector, spk::Mode::Normal, 2, 1, 0.5, 9, "7x0");
  auto A = random_matrix(300, 200, 2000, 10);
  for (auto alg : algorithms())
    check(A, Format::csr, alg, spk::Mode::Normal, 0, 0.0, 3.0, 11, "alpha = 0");
}

TEST(TEST_CATEGORY, spmv_explicit_launch_shapes) {
  using namespace spmv_test;
  auto A = random_matrix(2000, 2000, 30000, 12, 77, 3000);
  for (int vl : {1, 2, 8, 32})
    for (int ts : {1, 4, 64}) {
      spk::SpmvOptions opt;
      opt.algorithm = spk::SpmvAlgorithm::Vector;
      opt.vector_length = vl;
      opt.team_size = ts;
      Exec space;
      auto dA = spk::create_mirror_view_and_copy(space, A);
      spk::SpmvPlan plan(space, dA, opt);
      Kokkos::View<double*, typename Exec::memory_space> x("x", 2000), y("y", 2000);
      HostMulti hx("hx", 2000, 1), hy("hy", 2000, 1), ref("ref", 2000, 1), y0("y0", 2000, 1);
      fill_random(hx, vl * 100 + ts);
      spk_test::poison(y0);
      Kokkos::deep_copy(x, Kokkos::subview(hx, Kokkos::ALL, 0));
      spk_test::poison(y);
      spk::spmv(space, plan, 1.0, dA, x, 0.0, y);
      Kokkos::deep_copy(Kokkos::subview(hy, Kokkos::ALL, 0), y);
      spk::reference::spmv(1.0, A, hx, 0.0, ref);
      expect_close(A, spk::Mode::Normal, 1.0, hx, 0.0, y0, hy, ref,
                   "vector_length " + std::to_string(vl) + " team_size " + std::to_string(ts));
    }
  for (int items : {1, 3, 7, 64, 100000}) {
    spk::SpmvOptions opt;
    opt.algorithm = spk::SpmvAlgorithm::MergePath;
    opt.merge_path_items = items;
    for (int nv : {0, 4}) {
      Exec space;
      auto dA = spk::create_mirror_view_and_copy(space, A);
      const size_t cols = nv == 0 ? 1 : nv;
      HostMulti hx("hx", 2000, cols), hy("hy", 2000, cols), ref("ref", 2000, cols),
          y0("y0", 2000, cols);
      fill_random(hx, items + nv);
      fill_random(y0, items + nv + 1);
      Kokkos::deep_copy(ref, y0);
      spk::reference::spmv(1.0, A, hx, 2.0, ref);
      Kokkos::View<double**, Kokkos::LayoutLeft, typename Exec::memory_space> x("x", 2000, cols),
          y("y", 2000, cols);
      Kokkos::deep_copy(x, hx);
      Kokkos::deep_copy(y, y0);
      spk::SpmvPlan plan(space, dA, opt);
      if (nv == 0) {
        spk::spmv(space, plan, 1.0, dA, Kokkos::subview(x, Kokkos::ALL, 0), 2.0,
                  Kokkos::subview(y, Kokkos::ALL, 0));
      } else {
        spk::spmv(space, plan, 1.0, dA, x, 2.0, y);
      }
      Kokkos::deep_copy(hy, y);
      expect_close(A, spk::Mode::Normal, 1.0, hx, 2.0, y0, hy, ref,
                   "merge_path items " + std::to_string(items) + " nv " + std::to_string(nv));
    }
  }
}

// The medium-row path (vector) forced on rows of 20-40 entries mixed with
// empty rows and one long row: every lane count through the public API, with
// and without a plan, both modes, rank-1 and rank-2, α/β variants, y
// poisoned when β = 0; then several rows per lane group and small teams
// through options.tuning.
TEST(TEST_CATEGORY, spmv_medium_rows) {
  using namespace spmv_test;
  const auto A = rows_of(1500, 1200, 20, 40, 9, 31, 700, 1100);
  std::uint64_t seed = 500;
  for (int lanes : {1, 2, 4, 8, 16, 32}) {
    spk::SpmvOptions opt;
    opt.algorithm = spk::SpmvAlgorithm::Vector;
    opt.vector_length = lanes;
    const std::string what = "medium rows, lanes " + std::to_string(lanes);
    for (auto mode : {spk::Mode::Normal, spk::Mode::Transpose}) {
      opt.mode = mode;
      check_with(A, Format::csr, opt, 0, 1.0, 0.0, ++seed, what);
      check_with(A, Format::csr_plan, opt, 3, -0.5, 1.5, ++seed, what);
      check_with(A, Format::csr_plan, opt, 0, 2.0, -1.0, ++seed, what);
    }
    spk::SpmvOptions many = opt;
    many.mode = spk::Mode::Normal;
    many.team_size = 3;
    spk::SpmvTuning t = spk::spmv_tuning(Exec());
    t.min_teams = 1;
    t.nnz_per_team = 1e9;
    t.max_rows_per_group = 7;
    many.tuning = t;
    check_with(A, Format::csr_plan, many, 0, 1.0, 0.0, ++seed, what + ", 7 rows a group");
    check_with(A, Format::csr_plan, many, 2, 0.5, 0.25, ++seed, what + ", 7 rows a group");
  }
}

namespace {
namespace spmv_test {

/// Runs launch(x, y), a kernel on Exec computing y := α·A·x + β·y, on device
/// copies of random x and y (rank-1 for nv = 0, else nv columns; y poisoned
/// when β = 0) and compares y with the reference.
template <class Launch>
void check_kernel(const HostCsr& hA, double alpha, double beta, int nv, std::uint64_t seed,
                  Launch&& launch, const std::string& what) {
  using MS = typename Exec::memory_space;
  const long long m = hA.num_rows(), n = hA.num_cols();
  const size_t cols = nv == 0 ? 1 : nv;
  HostMulti hx("hx", n, cols), y0("y0", m, cols), ref("ref", m, cols), hy("hy", m, cols);
  fill_random(hx, seed);
  fill_random(y0, seed + 1);
  if (beta == 0) spk_test::poison(y0);
  Kokkos::deep_copy(ref, y0);
  spk::reference::spmv(alpha, hA, hx, beta, ref);
  if (nv == 0) {
    Kokkos::View<double*, MS> x("x", n), y("y", m);
    Kokkos::deep_copy(x, Kokkos::subview(hx, Kokkos::ALL, 0));
    Kokkos::deep_copy(y, Kokkos::subview(y0, Kokkos::ALL, 0));
    launch(x, y);
    Kokkos::deep_copy(Kokkos::subview(hy, Kokkos::ALL, 0), y);
  } else {
    Kokkos::View<double**, Kokkos::LayoutLeft, MS> x("x", n, cols), y("y", m, cols);
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, y0);
    launch(x, y);
    Kokkos::deep_copy(hy, y);
  }
  expect_close(hA, spk::Mode::Normal, alpha, hx, beta, y0, hy, ref, what);
}

}  // namespace spmv_test
}  // namespace

// The vector kernel itself on every backend (host spaces run `vector` as row
// blocks, so it is launched directly here): each lane count, lane groups per
// team and rows per group, rank-1 and rank-2, β = 0 with y poisoned and β ≠ 0.
TEST(TEST_CATEGORY, spmv_vector_kernel) {
  using namespace spmv_test;
  Exec space;
  const auto hA = rows_of(700, 900, 20, 40, 6, 41, 350, 2500);
  const auto A = spk::create_mirror_view_and_copy(space, hA);
  const long long m = A.num_rows();
  for (int lanes : {1, 2, 4, 8, 16, 32})
    for (int groups : {1, 3, 8})
      for (int rows_per_group : {1, 2, 5})
        for (int nv : {0, 2}) {
          const double alpha = nv == 0 ? 1.0 : -1.5, beta = nv == 0 ? 0.0 : 0.75;
          spk::SpmvLaunch L;
          L.algorithm = spk::SpmvAlgorithm::Vector;
          L.vector_length = lanes;
          L.team_size = groups;
          L.rows_per_thread = rows_per_group;
          auto launch = [&](const auto& x, const auto& y) {
            auto d =
                spk::Impl::spmv_data(A.row_map(), A.col_idx(), A.values(), x, y, alpha, beta, m);
            spk::Impl::spmv_vector_launch(space, L, d);
            space.fence();
          };
          check_kernel(hA, alpha, beta, nv, lanes * 100 + groups * 10 + rows_per_group, launch,
                       "vector kernel, lanes " + std::to_string(lanes) + ", groups " +
                           std::to_string(groups) + ", rows a group " +
                           std::to_string(rows_per_group) + ", nv " + std::to_string(nv));
        }
}

// merge_path's tile kernel (the GPU form) on every backend, launched directly
// with its fixup: rows shorter than a thread's share, rows spanning many
// threads and many tiles, empty rows and a row of 2500, tiles of 1 to 128
// threads (host teams are capped at the threads they have) × 1 to 7 items a
// thread, segment starts from the plan or searched, rank-1 and rank-2, β = 0
// with y poisoned and β ≠ 0.
TEST(TEST_CATEGORY, spmv_merge_tile_kernel) {
  using namespace spmv_test;
  using MS = typename Exec::memory_space;
  using CR = Kokkos::View<int*, MS>;
  using CV = Kokkos::View<double**, Kokkos::LayoutLeft, MS>;
  Exec space;
  const auto hA = rows_with(900, 3000, 71, [](int i, spk::Impl::SplitMix64& rng) {
    if (i == 450) return 2500;
    if (i % 11 == 10) return 0;
    if (i % 37 == 0) return 150 + static_cast<int>(rng.below(200));
    return 1 + static_cast<int>(rng.below(12));
  });
  const auto A = spk::create_mirror_view_and_copy(space, hA);
  const long long m = A.num_rows(), nnz = A.nnz();
  for (int threads : {1, 3, 32, 128})
    for (int per_thread : {1, 4, 7})
      for (int nv : {0, 2})
        for (bool planned : {false, true}) {
          const double alpha = nv == 0 ? 1.0 : -1.5, beta = nv == 0 ? 0.0 : 0.75;
          spk::SpmvLaunch L;
          L.algorithm = spk::SpmvAlgorithm::MergePath;
          L.team_size = threads;
          L.merge_path_items = static_cast<long long>(threads) * per_thread;
          L.num_segments = (m + nnz + L.merge_path_items - 1) / L.merge_path_items;
          const CR starts =
              planned ? spk::Impl::spmv_merge_path_starts<int>(space, A.row_map(), m, nnz,
                                                               L.num_segments, L.merge_path_items)
                      : CR();
          auto launch = [&](const auto& x, const auto& y) {
            auto d =
                spk::Impl::spmv_data(A.row_map(), A.col_idx(), A.values(), x, y, alpha, beta, m);
            const CR carry_rows("carry_rows", L.num_segments);
            const CV carry_vals("carry_vals", L.num_segments, spk::Impl::num_vecs(y));
            spk::Impl::spmv_merge_tile_launch(space, L, d, nnz, carry_rows, carry_vals, starts);
            Kokkos::parallel_for(
                Kokkos::RangePolicy<Exec>(space, 0, L.num_segments),
                spk::Impl::SpmvMergeFixup<spk::Impl::spmv_needs_atomics_v<Exec>, decltype(d), CR,
                                          CV>{d, carry_rows, carry_vals});
            space.fence();
          };
          check_kernel(hA, alpha, beta, nv, threads * 100 + per_thread * 10 + nv, launch,
                       "merge tile, threads " + std::to_string(threads) + ", items a thread " +
                           std::to_string(per_thread) + ", nv " + std::to_string(nv) +
                           (planned ? ", planned" : ", searched"));
        }
}

namespace {
namespace spmv_test {
// Copies v through streaming_load in a kernel on Exec and compares with v.
template <class T>
void check_streaming_load(const std::vector<T>& values, const std::string& what) {
  using MS = typename Exec::memory_space;
  Exec space;
  const Kokkos::View<T*, MS> v("v", values.size()), out("out", values.size());
  Kokkos::deep_copy(
      v, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
             values.data(), values.size()));
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(space, 0, values.size()), KOKKOS_LAMBDA(const long long k) {
        const Kokkos::View<const T*, MS> in = v;
        out(k) = spk::Impl::streaming_load(in, k);
      });
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (std::size_t k = 0; k < values.size(); ++k)
    ASSERT_TRUE(h(k) == values[k]) << what << ": entry " << k;
}
}  // namespace spmv_test
}  // namespace

// The loads SpMV's team-wide kernels read A with: the value stored, for every
// index and value type (CUDA: ld.global.cs where the type has one).
TEST(TEST_CATEGORY, spmv_streaming_load) {
  using namespace spmv_test;
  spk::Impl::SplitMix64 rng(2024);
  std::vector<int> i32(1000);
  std::vector<long long> i64(1000);
  std::vector<std::int64_t> l64(1000);
  std::vector<float> f32(1000);
  std::vector<double> f64(1000);
  std::vector<Kokkos::complex<double>> c64(1000);
  for (int k = 0; k < 1000; ++k) {
    i32[k] = static_cast<int>(rng.below(1u << 30)) - (1 << 29);
    i64[k] = static_cast<long long>(rng.below(1ull << 62)) - (1ll << 61);
    l64[k] = static_cast<std::int64_t>(i64[k] ^ 0x5555);
    f32[k] = static_cast<float>(rng.uniform() - 0.5);
    f64[k] = rng.uniform() - 0.5;
    c64[k] = Kokkos::complex<double>(rng.uniform(), -rng.uniform());
  }
  check_streaming_load(i32, "int");
  check_streaming_load(i64, "long long");
  check_streaming_load(l64, "int64_t");
  check_streaming_load(f32, "float");
  check_streaming_load(f64, "double");
  check_streaming_load(c64, "complex<double>");
}

// stream's row blocks (cut on the device): they cover the rows in order, a
// row longer than the chunk is a block of its own, and every other block
// holds fewer than twice the chunk's nonzeros.
TEST(TEST_CATEGORY, spmv_stream_blocks) {
  using namespace spmv_test;
  Exec space;
  const auto hA = rows_of(3000, 2000, 0, 40, 7, 61, 1500, 900);
  const auto A = spk::create_mirror_view_and_copy(space, hA);
  const auto& rm = hA.row_map();
  for (long long h : {1, 16, 64, 1024, 100000}) {
    const auto blocks = spk::Impl::spmv_stream_blocks<int>(space, A.row_map(), A.num_rows(), h);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blocks);
    const std::string what = "chunk " + std::to_string(h);
    ASSERT_GE(hb.extent(0), 2u) << what;
    EXPECT_EQ(hb(0), 0) << what;
    EXPECT_EQ(hb(hb.extent(0) - 1), hA.num_rows()) << what;
    int bad = 0;
    for (size_t b = 0; b + 1 < hb.extent(0); ++b) {
      const int i0 = hb(b), i1 = hb(b + 1);
      const long long n = rm(i1) - rm(i0);
      const bool ordered = i1 > i0;
      const bool fits = n < 2 * h || (i1 == i0 + 1 && n > h);
      bool long_alone = true;
      for (int i = i0; i < i1; ++i) long_alone &= rm(i + 1) - rm(i) <= h || i1 == i0 + 1;
      if (!(ordered && fits && long_alone) && ++bad <= 5)
        ADD_FAILURE() << what << ": block " << b << " rows [" << i0 << ", " << i1 << ") holds " << n
                      << " nonzeros";
    }
    EXPECT_EQ(bad, 0) << what;
    if (h == 100000) EXPECT_EQ(hb.extent(0), 2u) << what;  // one block holds everything
  }
  // No rows: one start, no block.
  const auto none = spk::create_mirror_view_and_copy(space, HostCsr("none", 0, 5, 0));
  EXPECT_EQ(spk::Impl::spmv_stream_blocks<int>(space, none.row_map(), 0, 64).extent(0), 1u);
}

// The stream kernel forced through the public API: rows of 1-40 entries with
// empty rows, a row longer than a block (the team's global-memory
// reduction), square and rectangular shapes, block sizes that give many
// small blocks or one, each lane count and small or odd teams, with and
// without a plan, both modes, rank-1 and rank-2, α/β variants, y poisoned
// when β = 0.
TEST(TEST_CATEGORY, spmv_stream) {
  using namespace spmv_test;
  struct Case {
    std::string name;
    HostCsr A;
  };
  const std::vector<Case> cases = {
      {"rows of 1-40, every 7th empty", rows_of(1200, 1200, 1, 40, 7, 71)},
      {"rows of 1-40 and one of 700", rows_of(1000, 1500, 1, 40, 5, 72, 400, 700)},
      {"900 x 300, rows of 0-25", rows_of(900, 300, 0, 25, 0, 73)},
      {"200 x 2500, rows of 10-40 and one of 2000", rows_of(200, 2500, 10, 40, 9, 74, 0, 2000)},
      {"27-point stencil", grid_matrix(6, true)}};
  std::uint64_t seed = 800;
  for (const auto& c : cases)
    for (int block_nnz : {16, 64, 1024, 1 << 16})  // the largest: lowered to fit scratch
      for (int lanes : {1, 2, 4, 8}) {
        spk::SpmvOptions opt;
        opt.algorithm = spk::SpmvAlgorithm::Stream;
        opt.vector_length = lanes;
        opt.team_size = lanes == 2 ? 3 : lanes == 4 ? 1 : 0;  // odd and one-group teams too
        spk::SpmvTuning t = spk::spmv_tuning(Exec());
        t.stream_block_nnz = block_nnz;
        opt.tuning = t;
        const std::string what =
            c.name + ", block " + std::to_string(block_nnz) + ", lanes " + std::to_string(lanes);
        check_with(c.A, Format::csr_plan, opt, 0, 1.0, 0.0, ++seed, what);
        check_with(c.A, Format::csr_plan, opt, 3, -0.5, 1.5, ++seed, what);
        if (lanes == 2) {
          check_with(c.A, Format::csr, opt, 0, 2.0, -1.0, ++seed, what + ", no plan");
          check_with(c.A, Format::csr, opt, 2, 1.0, 0.0, ++seed, what + ", no plan");
          spk::SpmvOptions tr = opt;
          tr.mode = spk::Mode::Transpose;
          check_with(c.A, Format::csr_plan, tr, 0, 1.0, 0.5, ++seed, what);
        }
      }
  // The plan reports the launch.
  Exec space;
  auto dA = spk::create_mirror_view_and_copy(space, cases[0].A);
  spk::SpmvOptions opt;
  opt.algorithm = spk::SpmvAlgorithm::Stream;
  spk::SpmvPlan plan(space, dA, opt);
  EXPECT_EQ(plan.algorithm(), spk::SpmvAlgorithm::Stream);
  EXPECT_GT(plan.launch().num_segments, 0);
  EXPECT_EQ(static_cast<long long>(plan.segment_rows().extent(0)), plan.launch().num_segments + 1);
  EXPECT_NE(plan.describe().find("stream lanes="), std::string::npos) << plan.describe();
  EXPECT_NE(plan.describe().find("blocks="), std::string::npos) << plan.describe();
}

// The long-row split forced through a plan (SpmvLongRows::Split with a
// small split_row_min): split rows first, last, side by side and among empty
// rows, pieces of one entry to longer than any row, under each algorithm that
// takes a split, rank-1 and rank-2, α/β variants, y poisoned when β = 0; the
// plan's lists against the host's count; the transposes (which scatter and
// ignore the split); then automatic's split on GPU spaces and the errors.
TEST(TEST_CATEGORY, spmv_long_rows_split) {
  using namespace spmv_test;
  using A_ = spk::SpmvAlgorithm;
  const HostCsr A = rows_with(1500, 4000, 91, [](int i, spk::Impl::SplitMix64& rng) {
    if (i == 0 || i == 1499) return 1200;
    if (i == 700 || i == 701) return 3500;
    if (i % 9 == 8) return 0;
    return static_cast<int>(rng.below(31));
  });
  const HostCsr wide = rows_of(40, 9000, 0, 6, 4, 92, 17, 8000);  // one split row, 40 rows
  Exec space;
  std::uint64_t seed = 900;
  for (const auto& [name, M] : {std::make_pair(std::string("four long rows"), A),
                                std::make_pair(std::string("one row of 8000 in 40"), wide)}) {
    const auto dM = spk::create_mirror_view_and_copy(space, M);
    for (const long long split_min : {30LL, 1199LL})
      for (const long long piece : {1LL, 100LL, 1024LL, 100000LL})
        for (const auto alg : {A_::Auto, A_::Scalar, A_::Vector, A_::Stream}) {
          spk::SpmvOptions opt;
          opt.algorithm = alg;
          opt.long_rows = spk::SpmvLongRows::Split;
          spk::SpmvTuning t = spk::spmv_tuning(space);
          t.split_row_min = split_min;
          t.split_piece_nnz = piece;
          t.split_target_pieces = 0;                          // every piece of `piece` entries
          t.split_team_threads = alg == A_::Vector ? 3 : 64;  // odd teams too
          t.stream_block_nnz = 64;
          opt.tuning = t;
          // The plan's lists: every row past split_min, in order, its pieces.
          spk::SpmvPlan plan(space, dM, opt);
          std::vector<int> want_rows;
          std::vector<long long> want_starts = {0};
          for (int i = 0; i < M.num_rows(); ++i) {
            const long long len = M.row_map()(i + 1) - M.row_map()(i);
            if (len <= split_min) continue;
            want_rows.push_back(i);
            want_starts.push_back(want_starts.back() + (len + piece - 1) / piece);
          }
          const std::string what = name + ", rows > " + std::to_string(split_min) + ", pieces of " +
                                   std::to_string(piece);
          ASSERT_EQ(plan.launch().split_rows, static_cast<long long>(want_rows.size())) << what;
          EXPECT_EQ(plan.launch().split_pieces, want_starts.back()) << what;
          const auto hr =
              Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.split_rows());
          const auto hs =
              Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.split_piece_starts());
          ASSERT_EQ(hs.extent(0), want_starts.size()) << what;
          for (size_t r = 0; r < want_rows.size(); ++r) EXPECT_EQ(hr(r), want_rows[r]) << what;
          for (size_t r = 0; r < want_starts.size(); ++r) EXPECT_EQ(hs(r), want_starts[r]) << what;
          EXPECT_NE(plan.describe().find("split rows>" + std::to_string(split_min)),
                    std::string::npos)
              << plan.describe();
          EXPECT_NE(plan.algorithm(), A_::MergePath) << what;
          check_with(M, Format::csr_plan, opt, 0, 1.0, 0.0, ++seed, what);
          check_with(M, Format::csr_plan, opt, 3, -0.5, 1.5, ++seed, what);
          if (piece == 100) {
            check_with(M, Format::csr_plan, opt, 0, 2.0, -1.0, ++seed, what);
            spk::SpmvOptions tr = opt;
            tr.mode = spk::Mode::Transpose;
            check_with(M, Format::csr_plan, tr, 2, 1.0, 0.5, ++seed, what + ", transpose");
          }
        }
  }
  // Nothing past split_min: no split, the plan as without it.
  {
    spk::SpmvOptions opt;
    opt.long_rows = spk::SpmvLongRows::Split;
    spk::SpmvTuning t = spk::spmv_tuning(space);
    t.split_row_min = 5000;
    opt.tuning = t;
    spk::SpmvPlan plan(space, spk::create_mirror_view_and_copy(space, A), opt);
    EXPECT_EQ(plan.launch().split_rows, 0);
    EXPECT_EQ(plan.describe().find("split"), std::string::npos) << plan.describe();
    check_with(A, Format::csr_plan, opt, 0, 1.0, 0.0, ++seed, "nothing to split");
  }
  // Automatic: GPU plans split skewed rows past split_row_min and choose for
  // the others from their own statistics (here short rows: not merge_path);
  // host plans do not split.  Keep never splits.
  {
    spk::SpmvOptions opt;
    spk::SpmvTuning t = spk::spmv_tuning_cuda_sm90();
    t.split_row_min = 1000;
    if (spk::Impl::is_host_space_v<Exec>) t = spk::spmv_tuning(space);
    opt.tuning = t;
    const auto dA = spk::create_mirror_view_and_copy(space, A);
    spk::SpmvPlan plan(space, dA, opt);
    if (spk::Impl::is_host_space_v<Exec>) {
      EXPECT_EQ(plan.launch().split_rows, 0) << plan.describe();
    } else {
      EXPECT_EQ(plan.launch().split_rows, 4) << plan.describe();
      EXPECT_NE(plan.algorithm(), A_::MergePath) << plan.describe();
      spk::SpmvOptions keep = opt;
      keep.long_rows = spk::SpmvLongRows::Keep;
      spk::SpmvPlan kept(space, dA, keep);
      EXPECT_EQ(kept.launch().split_rows, 0);
      EXPECT_EQ(kept.algorithm(), A_::MergePath) << kept.describe();
      // Rows not skewed enough (skew_ratio above longest / mean) stay whole.
      spk::SpmvOptions even = opt;
      even.tuning->skew_ratio = 1e9;
      EXPECT_EQ(spk::SpmvPlan(space, dA, even).launch().split_rows, 0);
      // The pieces' size follows the split rows' entries (9400 here):
      // 2^k >= 9400 / target within [min, max].
      EXPECT_EQ(plan.launch().split_piece_nnz, spk::Impl::spmv_split_piece_nnz(t, 9400));
      spk::SpmvTuning p = t;
      p.split_piece_nnz_min = 64;
      p.split_piece_nnz = 1024;
      p.split_target_pieces = 20;
      EXPECT_EQ(spk::Impl::spmv_split_piece_nnz(p, 9400), 512);
      EXPECT_EQ(spk::Impl::spmv_split_piece_nnz(p, 100), 64);
      EXPECT_EQ(spk::Impl::spmv_split_piece_nnz(p, 1 << 30), 1024);
      p.split_target_pieces = 0;
      EXPECT_EQ(spk::Impl::spmv_split_piece_nnz(p, 9400), 1024);
    }
    check_with(A, Format::csr_plan, opt, 2, 1.0, 0.0, ++seed, "automatic");
    // Rows that stay skewed past a warp per row once the longest are split
    // (rows of 600 among rows of 3) keep merge_path whole.
    const HostCsr graded = rows_with(3000, 20000, 93, [](int i, spk::Impl::SplitMix64&) {
      return i % 100 == 0 ? 2000 : i % 50 == 0 ? 600 : 3;
    });
    spk::SpmvPlan whole(space, spk::create_mirror_view_and_copy(space, graded), opt);
    EXPECT_EQ(whole.launch().split_rows, 0) << whole.describe();
    if (!spk::Impl::is_host_space_v<Exec>)
      EXPECT_EQ(whole.algorithm(), A_::MergePath) << whole.describe();
    check_with(graded, Format::csr_plan, opt, 0, 1.0, 0.0, ++seed, "graded rows");
    // Asked to split them, automatic takes stream for the others on GPUs.
    spk::SpmvOptions forced = opt;
    forced.long_rows = spk::SpmvLongRows::Split;
    forced.tuning->split_row_min = 1000;
    spk::SpmvPlan split(space, spk::create_mirror_view_and_copy(space, graded), forced);
    EXPECT_EQ(split.launch().split_rows, 30) << split.describe();
    if (!spk::Impl::is_host_space_v<Exec>)
      EXPECT_EQ(split.algorithm(), A_::Stream) << split.describe();
    check_with(graded, Format::csr_plan, forced, 2, 1.0, 0.5, ++seed, "graded rows, split");
  }
  // Errors: a split merge_path or dynamic plan; a split without a plan.
  {
    const auto dA = spk::create_mirror_view_and_copy(space, A);
    for (const auto alg : {A_::MergePath, A_::Dynamic}) {
      spk::SpmvOptions opt;
      opt.algorithm = alg;
      opt.long_rows = spk::SpmvLongRows::Split;
      EXPECT_THROW(spk::SpmvPlan(space, dA, opt), spk::Error) << spk::to_string(alg);
      opt.long_rows = spk::SpmvLongRows::Auto;  // automatic does not split these
      EXPECT_EQ(spk::SpmvPlan(space, dA, opt).launch().split_rows, 0);
    }
    spk::SpmvOptions opt;
    opt.long_rows = spk::SpmvLongRows::Split;
    Kokkos::View<double*, typename Exec::memory_space> x("x", A.num_cols()), y("y", A.num_rows());
    EXPECT_THROW(spk::spmv(space, 1.0, dA, x, 0.0, y, opt), spk::Error);
  }
}

// automatic's choice on the row-length classes.  The GPU rule is checked with
// the sm_90 policy (passed through options.tuning on GPU spaces, so any GPU
// answers alike); host spaces take row blocks on regular rows.
TEST(TEST_CATEGORY, spmv_automatic_classes) {
  using namespace spmv_test;
  using A_ = spk::SpmvAlgorithm;
  struct Case {
    std::string name;
    HostCsr A;
    A_ gpu;
    int lanes;
  };
  const std::vector<Case> cases = {
      {"7-point stencil", spk::poisson3d<double, int, int>(12), A_::Scalar, 1},
      // The 12³ grid's boundary rows (cv 0.23) make it a varying-length case.
      {"27-point stencil", grid_matrix(12, true), A_::Stream, 2},
      {"3-dof elasticity (21 a row)", grid_matrix(9, false, 3), A_::Vector, 4},
      {"13 a row", banded_rows(3000, 3000, 13, 13, 51), A_::Vector, 2},
      {"rows of 48-56", banded_rows(2000, 3000, 48, 56, 52), A_::Vector, 8},
      {"rows of 20-64", banded_rows(2000, 3000, 20, 64, 59), A_::Stream, 2},
      {"rows of 60-100", banded_rows(2000, 3000, 60, 100, 58), A_::Vector, 16},
      // Uniformly random columns: neighbouring rows share no lines of x.
      {"13 a row, scattered columns", rows_of(3000, 30000, 13, 13, 0, 51), A_::Stream, 2},
      {"rows of 48-56, scattered columns", rows_of(2000, 30000, 48, 56, 0, 52), A_::Stream, 2},
      {"rows of 60-100, scattered columns", rows_of(2000, 30000, 60, 100, 0, 58), A_::Vector, 16},
      {"rows of 20-40 and one of 3000", rows_of(2000, 5000, 20, 40, 9, 53, 1000, 3000),
       A_::MergePath, 1},
      {"rows of 3-10 and one of 300", rows_of(2000, 5000, 3, 10, 0, 54, 1000, 300), A_::Vector, 32},
      {"short irregular rows (1 or 50)",
       rows_with(2000, 3000, 55, [](int i, spk::Impl::SplitMix64&) { return i % 10 ? 1 : 50; }),
       A_::Stream, 1}};
  const spk::SpmvTuning sm90 = spk::spmv_tuning_cuda_sm90();
  Exec space;
  for (const auto& c : cases) {
    const spk::SpmvRowStats hs = host_stats(c.A);
    // The rule alone (every backend computes the same answer).
    EXPECT_EQ(spk::Impl::spmv_gpu_class(sm90, hs, true), c.gpu) << c.name;
    if (c.gpu == A_::Vector) EXPECT_EQ(spk::Impl::spmv_lanes(sm90, hs, true), c.lanes) << c.name;
    if (c.gpu == A_::Stream) EXPECT_EQ(spk::Impl::spmv_stream_lanes(sm90, hs), c.lanes) << c.name;
    // The plan's statistics and choice on this backend.
    auto dA = spk::create_mirror_view_and_copy(space, c.A);
    spk::SpmvOptions opt;
    if (!spk::Impl::is_host_space_v<Exec>) opt.tuning = sm90;
    spk::SpmvPlan plan(space, dA, opt);
    EXPECT_EQ(plan.stats().max_length, hs.max_length) << c.name;
    EXPECT_EQ(plan.stats().empty_rows, hs.empty_rows) << c.name;
    EXPECT_NEAR(plan.stats().stddev, hs.stddev, 1e-9 * (1 + hs.stddev)) << c.name;
    if (!spk::Impl::is_host_space_v<Exec>) {
      EXPECT_EQ(plan.stats().neighbour_share, hs.neighbour_share) << c.name;
      // Only `auto` reads it: a plan for an explicit algorithm does not count.
      spk::SpmvOptions vec = opt;
      vec.algorithm = A_::Vector;
      EXPECT_EQ(spk::SpmvPlan(space, dA, vec).stats().neighbour_share, 1.0) << c.name;
    }
    if (spk::Impl::is_host_space_v<Exec>) {
      EXPECT_EQ(plan.lanes(), 1) << c.name;
      if (c.gpu != A_::MergePath && c.name.find("one of") == std::string::npos)
        EXPECT_EQ(plan.algorithm(), A_::Scalar) << c.name;
      if (plan.algorithm() == A_::Scalar)
        EXPECT_NE(plan.describe().find("row_blocks"), std::string::npos) << plan.describe();
    } else {
      EXPECT_EQ(plan.algorithm(), c.gpu) << c.name << ": " << plan.describe();
      EXPECT_EQ(plan.lanes(), c.lanes) << c.name << ": " << plan.describe();
    }
    // The chosen path computes the product.
    check_with(c.A, Format::csr_plan, opt, 0, 1.0, 0.0, 600, c.name + " (automatic)");
  }
}

// The neighbour share (the plan's column-locality statistic) on this backend
// against the host's count: local and scattered columns, rows longer than
// the 64 entries it reads, empty rows, more rows than it samples.
TEST(TEST_CATEGORY, spmv_neighbour_share) {
  using namespace spmv_test;
  Exec space;
  const std::vector<std::pair<std::string, HostCsr>> cases = {
      {"27-point stencil", grid_matrix(8, true)},
      {"banded 13 a row", banded_rows(3000, 3000, 13, 13, 61)},
      {"scattered 13 a row", rows_of(3000, 30000, 13, 13, 0, 62)},
      {"rows of 70-90 (past the cap)", banded_rows(1500, 1500, 70, 90, 63)},
      {"empty rows", rows_of(2000, 5000, 0, 6, 3, 64)},
      {"140000 rows (sampled)", rows_of(140000, 140000, 1, 5, 7, 65)},
      {"one row", rows_of(1, 10, 5, 5, 0, 66)}};
  for (const auto& [name, A] : cases) {
    const auto dA = spk::create_mirror_view_and_copy(space, A);
    const double got =
        spk::Impl::spmv_neighbour_share(space, dA.row_map(), dA.col_idx(), dA.num_rows());
    EXPECT_EQ(got, host_neighbour_share(A)) << name;
  }
  EXPECT_GT(host_neighbour_share(grid_matrix(8, true)), 0.5);
  EXPECT_GT(host_neighbour_share(banded_rows(3000, 3000, 13, 13, 61)), 0.2);
  EXPECT_LT(host_neighbour_share(rows_of(3000, 30000, 13, 13, 0, 62)), 0.05);
}

// Without a plan, automatic reads the longest row on GPUs: a row of 3000
// among rows of 3-10 goes to merge path, not to one thread (the mean alone
// says scalar).  Host spaces choose from the row blocks as before.
TEST(TEST_CATEGORY, spmv_automatic_without_plan) {
  using namespace spmv_test;
  const HostCsr A = rows_of(2000, 5000, 3, 10, 0, 54, 1000, 3000);
  Exec space;
  auto dA = spk::create_mirror_view_and_copy(space, A);
  spk::SpmvOptions opt;
  if (!spk::Impl::is_host_space_v<Exec>) opt.tuning = spk::spmv_tuning_cuda_sm90();
  const spk::SpmvRowStats cheap = spk::Impl::spmv_cheap_stats(dA);
  EXPECT_EQ(spk::Impl::spmv_gpu_class(spk::spmv_tuning_cuda_sm90(), cheap, false),
            spk::SpmvAlgorithm::Scalar)
      << "the mean alone";
  const spk::SpmvLaunch L =
      spk::Impl::spmv_choose_without_plan(space, opt, cheap, dA.row_map(), dA.num_rows());
  EXPECT_EQ(L.algorithm, spk::SpmvAlgorithm::MergePath);
  check_with(A, Format::csr, opt, 0, 1.0, 0.0, 600, "one long row, no plan");
}

// The policy is reachable through the options: a changed knob changes the
// choice (and a plan handed other tuning recomputes itself); CUDA entries by
// compute capability.
TEST(TEST_CATEGORY, spmv_tuning_options) {
  using namespace spmv_test;
  EXPECT_EQ(spk::spmv_tuning_cuda(90), spk::spmv_tuning_cuda_sm90());
  EXPECT_EQ(spk::spmv_tuning_cuda(80), spk::spmv_tuning_gpu_generic());
  const auto stencil27 = grid_matrix(10, true);
  spk::SpmvTuning t = spk::spmv_tuning_cuda_sm90();
  EXPECT_EQ(spk::Impl::spmv_gpu_class(t, host_stats(stencil27), true), spk::SpmvAlgorithm::Stream);
  // Without a plan's statistics stream's blocks are not cut: vector.
  EXPECT_EQ(spk::Impl::spmv_gpu_class(t, host_stats(stencil27), false), spk::SpmvAlgorithm::Vector);
  t.stream_max_mean = 0;
  EXPECT_EQ(spk::Impl::spmv_gpu_class(t, host_stats(stencil27), true), spk::SpmvAlgorithm::Vector);
  t.scalar_max_mean = 100;
  EXPECT_EQ(spk::Impl::spmv_gpu_class(t, host_stats(stencil27), true), spk::SpmvAlgorithm::Scalar);
  t = spk::spmv_tuning_cuda_sm90();
  t.entries_per_lane = 1;  // CUSP's lanes = mean
  EXPECT_EQ(spk::Impl::spmv_lanes(t, host_stats(stencil27), true), 32);

  Exec space;
  const bool host = spk::Impl::is_host_space_v<Exec>;
  // Host: a row that is most of the matrix sends automatic to merge_path
  // unless the allowed block imbalance is raised; GPU: the 27-point stencil
  // goes to scalar once scalar_max_mean is raised.
  const auto hA = host ? random_matrix(3000, 50000, 6000, 22, 1700, 40000) : stencil27;
  auto A = spk::create_mirror_view_and_copy(space, hA);
  spk::SpmvOptions opt;
  opt.tuning = spk::spmv_tuning(space);
  spk::SpmvPlan plan(space, A, opt);
  const auto before = plan.algorithm();
  if (host) {
    opt.tuning->host_block_imbalance_max = 1e9;
  } else {
    opt.tuning->scalar_max_mean = 100;
    EXPECT_EQ(before, spk::SpmvAlgorithm::Stream);
  }
  plan.prepare(space, A, opt);
  EXPECT_EQ(plan.algorithm(), spk::SpmvAlgorithm::Scalar);
  if (host && spk::Impl::concurrency(space) > 1) EXPECT_EQ(before, spk::SpmvAlgorithm::MergePath);
  check_with(hA, Format::csr_plan, opt, 0, 1.0, 0.0, 700, "tuned");
  // Policies with zero knobs (all zero; the host policy on a GPU space) still
  // give a valid launch.
  for (const auto& z : {spk::SpmvTuning{}, spk::spmv_tuning_host()}) {
    spk::SpmvOptions zo;
    zo.tuning = z;
    check_with(rows_of(300, 400, 0, 30, 7, 56), Format::csr_plan, zo, 0, 1.0, 0.0, 701,
               "zero knobs");
    check_with(rows_of(300, 400, 0, 30, 7, 57), Format::csr, zo, 2, 0.5, -2.0, 702, "zero knobs");
  }
}

TEST(TEST_CATEGORY, spmv_plan) {
  using namespace spmv_test;
  Exec space;
  auto skewed =
      spk::create_mirror_view_and_copy(space, random_matrix(4000, 40000, 8000, 13, 5, 30000));
  auto stencil = spk::create_mirror_view_and_copy(space, spk::poisson3d<double, int, int>(16));
  spk::SpmvPlan plan(space, skewed);
  EXPECT_TRUE(plan.matches(skewed));
  EXPECT_FALSE(plan.matches(stencil));
  EXPECT_GE(plan.stats().max_length, 3000);
  EXPECT_GT(plan.stats().empty_rows, 0);
  // Skewed: on GPUs the long row is split and the others (13 a row) take a
  // row kernel; on host spaces the balanced merge path, but one host thread
  // has nothing to balance.
  if (spk::Impl::is_host_space_v<Exec>) {
    const bool one_thread = spk::Impl::concurrency(space) == 1;
    EXPECT_EQ(plan.algorithm(),
              one_thread ? spk::SpmvAlgorithm::Scalar : spk::SpmvAlgorithm::MergePath);
    EXPECT_EQ(plan.launch().split_rows, 0);
  } else {
    EXPECT_EQ(plan.launch().split_rows, 1) << plan.describe();
    EXPECT_NE(plan.algorithm(), spk::SpmvAlgorithm::MergePath) << plan.describe();
  }
  EXPECT_NE(plan.algorithm(), spk::SpmvAlgorithm::Auto);
  // Handed another matrix, the plan recomputes itself.
  Kokkos::View<double*, typename Exec::memory_space> x("x", stencil.num_cols()),
      y("y", stencil.num_rows());
  Kokkos::deep_copy(x, 1.0);
  spk_test::poison(y);
  spk::spmv(space, plan, 1.0, stencil, x, 0.0, y);
  EXPECT_TRUE(plan.matches(stencil));
  EXPECT_EQ(plan.stats().max_length, 7);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  double sum = 0;
  for (size_t i = 0; i < hy.extent(0); ++i) sum += hy(i);
  // Row sums of the 7-point Laplacian: 6 minus the neighbours present.
  const int n = 16;
  EXPECT_DOUBLE_EQ(sum, 6.0 * n * n * n - 6.0 * n * n * (n - 1));
}

// Host scalar: whole-row blocks cut at equal shares of rows + nonzeros, with
// any number of blocks (more blocks than rows too), starts from the plan or
// searched per block, rank-1 (pointer loop), strided and rank-2 (View loop),
// β = 0 (y poisoned) and β ≠ 0.
TEST(TEST_CATEGORY, spmv_host_row_blocks) {
  using namespace spmv_test;
  if constexpr (spk::Impl::is_host_space_v<Exec>) {
    using MS = typename Exec::memory_space;
    using Starts = Kokkos::View<int*, MS>;
    Exec space;
    const std::vector<std::pair<HostCsr, std::string>> mats = {
        {random_matrix(3000, 2500, 20000, 21), "random, empty rows"},
        {random_matrix(3000, 50000, 6000, 22, 1700, 40000), "one very long row"},
        {random_matrix(400, 3000, 500, 23, 0, 2999), "long first row"},
        {random_matrix(3, 5, 6, 24), "3 rows"}};
    for (const auto& [hA, what] : mats) {
      auto A = spk::create_mirror_view_and_copy(space, hA);
      const long long m = A.num_rows(), n = A.num_cols(), nnz = A.nnz();
      for (long long blocks : {1, 2, 3, 7, 64}) {
        // The blocks tile the rows in order, whole rows only.
        Starts starts("starts", blocks + 1);
        const double imbalance =
            spk::Impl::spmv_host_row_blocks(A.row_map(), m, nnz, blocks, starts);
        EXPECT_EQ(starts(0), 0);
        EXPECT_EQ(starts(blocks), m);
        for (long long t = 0; t < blocks; ++t) EXPECT_LE(starts(t), starts(t + 1)) << what;
        EXPECT_GE(imbalance, 1.0 - 1e-12) << what;
        for (bool precomputed : {false, true})
          for (int shape : {0, 1, 2}) {  // rank-1, strided rank-1, rank-2 (3 columns)
            for (double beta : {0.0, -0.75}) {
              const size_t cols = shape == 2 ? 3 : 1;
              HostMulti hx("hx", n, cols), y0("y0", m, cols), ref("ref", m, cols),
                  hy("hy", m, cols);
              fill_random(hx, 1000 + blocks);
              fill_random(y0, 2000 + blocks);
              if (beta == 0) spk_test::poison(y0);
              Kokkos::deep_copy(ref, y0);
              spk::reference::spmv(1.25, hA, hx, beta, ref);
              spk::SpmvLaunch L;
              L.algorithm = spk::SpmvAlgorithm::Scalar;
              L.row_blocks = blocks;
              const Starts given = precomputed ? starts : Starts();
              using CV = Kokkos::View<double**, Kokkos::LayoutLeft, MS>;
              auto launch = [&](const auto& x, const auto& y) {
                auto d =
                    spk::Impl::spmv_data(A.row_map(), A.col_idx(), A.values(), x, y, 1.25, beta, m);
                spk::Impl::spmv_csr_launch(space, L, d, nnz, Starts(), CV(), given);
                space.fence();
              };
              if (shape == 0) {
                Kokkos::View<double*, MS> x("x", n), y("y", m);
                Kokkos::deep_copy(x, Kokkos::subview(hx, Kokkos::ALL, 0));
                Kokkos::deep_copy(y, Kokkos::subview(y0, Kokkos::ALL, 0));
                launch(x, y);
                Kokkos::deep_copy(Kokkos::subview(hy, Kokkos::ALL, 0), y);
              } else if (shape == 1) {
                // Row 1 of LayoutRight 2 × n / 2 × m Views: stride 2.
                Kokkos::View<double**, Kokkos::LayoutRight, MS> x2("x2", 2, n), y2("y2", 2, m);
                auto x = Kokkos::subview(x2, 1, Kokkos::ALL);
                auto y = Kokkos::subview(y2, 1, Kokkos::ALL);
                spk_test::poison(y2);
                Kokkos::deep_copy(x, Kokkos::subview(hx, Kokkos::ALL, 0));
                Kokkos::deep_copy(y, Kokkos::subview(y0, Kokkos::ALL, 0));
                launch(x, y);
                Kokkos::deep_copy(Kokkos::subview(hy, Kokkos::ALL, 0), y);
                // Row 0 is untouched.
                auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y2);
                for (long long i = 0; i < m; ++i) EXPECT_TRUE(std::isnan(h2(0, i))) << what;
              } else {
                CV x("x", n, cols), y("y", m, cols);
                Kokkos::deep_copy(x, hx);
                Kokkos::deep_copy(y, y0);
                launch(x, y);
                Kokkos::deep_copy(hy, y);
              }
              expect_close(hA, spk::Mode::Normal, 1.25, hx, beta, y0, hy, ref,
                           what + " [blocks " + std::to_string(blocks) +
                               (precomputed ? ", plan starts" : ", searched") + ", shape " +
                               std::to_string(shape) + ", beta " + std::to_string(beta) + "]");
            }
          }
      }
    }
    // automatic takes the row blocks on regular rows and merge_path when one
    // row is a large part of a thread's share.
    auto stencil = spk::create_mirror_view_and_copy(space, spk::poisson2d<double, int, int>(50));
    EXPECT_EQ(spk::SpmvPlan(space, stencil).algorithm(), spk::SpmvAlgorithm::Scalar);
    if (spk::Impl::concurrency(space) > 1) {
      auto skewed = spk::create_mirror_view_and_copy(
          space, random_matrix(3000, 50000, 6000, 22, 1700, 40000));
      EXPECT_EQ(spk::SpmvPlan(space, skewed).algorithm(), spk::SpmvAlgorithm::MergePath);
    }
  }
}

TEST(TEST_CATEGORY, spmv_bad_input) {
  using namespace spmv_test;
  Exec space;
  auto A = spk::create_mirror_view_and_copy(space, random_matrix(30, 20, 100, 14));
  Kokkos::View<double*, typename Exec::memory_space> x20("x", 20), x30("x30", 30), y30("y", 30),
      y20("y20", 20);
  Kokkos::View<double**, Kokkos::LayoutLeft, typename Exec::memory_space> X("X", 20, 2),
      Y("Y", 30, 3);
  EXPECT_THROW(spk::spmv(space, A, x30, y30), spk::ShapeMismatch);
  EXPECT_THROW(spk::spmv(space, A, x20, y20), spk::ShapeMismatch);
  EXPECT_THROW(spk::spmv(space, A, X, Y), spk::ShapeMismatch);
  spk::SpmvOptions t;
  t.mode = spk::Mode::Transpose;
  EXPECT_THROW(spk::spmv(space, A, x20, y30, t), spk::ShapeMismatch);
  EXPECT_NO_THROW(spk::spmv(space, A, x30, y20, t));
  try {
    spk::spmv(space, A, x30, y30);
    ADD_FAILURE() << "no exception";
  } catch (const spk::ShapeMismatch& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("30 x 20"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'x30'"), std::string::npos) << msg;
  }
  spk::SpmvPlan plan(space, A);
  EXPECT_THROW(spk::spmv(space, plan, 1.0, A, x30, 0.0, y30), spk::ShapeMismatch);
  EXPECT_THROW(spk::spmv_algorithm_from_string("fastest"), spk::Error);
  EXPECT_EQ(spk::spmv_algorithm_from_string("merge_path"), spk::SpmvAlgorithm::MergePath);
  EXPECT_EQ(spk::spmv_algorithm_from_string("stream"), spk::SpmvAlgorithm::Stream);
}

// Every real matrix in ../shared/matrices and its small/ folder (rectangular
// ones included); complex files, which spk does not read, are skipped.
TEST(TEST_CATEGORY, spmv_real_matrices) {
  using namespace spmv_test;
  SPK_TEST_REQUIRE_MATRIX_DIR();
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(spk_test::matrix_dir()))
    if (e.path().string().find(".mtx") != std::string::npos) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  int checked = 0;
  for (const auto& path : files) {
    // The largest (G3_circuit, 7.7M entries) only on a GPU, where it is quick.
    if (path.find("G3_circuit") != std::string::npos && spk::Impl::is_host_space_v<Exec>) continue;
    HostCsr A;
    try {
      A = spk::read_csr<double, int, int>(path);
    } catch (const spk::Error& e) {
      if (std::string(e.what()).find("complex") != std::string::npos) continue;
      throw;
    }
    check_all(A, std::filesystem::path(path).filename().string(), false);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

#if defined(SPK_HAVE_KOKKOSKERNELS)
// Cross-check with KokkosSparse::spmv on a generated and a power-law matrix.
TEST(TEST_CATEGORY, spmv_vs_kokkoskernels) {
  using namespace spmv_test;
  using Device = Kokkos::Device<Exec, typename Exec::memory_space>;
  for (const char* spec : {"poisson3d:20", "rmat:13:8:1", "random:3000:2000:9:4"}) {
    auto hA = spk::generate<double, int, int>(spec);
    Exec space;
    auto A = spk::create_mirror_view_and_copy(space, hA);
    KokkosSparse::CrsMatrix<double, int, Device, void, int> kA(
        "kA", A.num_rows(), A.num_cols(), A.nnz(), A.values(), A.row_map(), A.col_idx());
    Kokkos::View<double*, typename Exec::memory_space> x("x", A.num_cols()),
        y_kk("y_kk", A.num_rows()), y0("y0", A.num_rows());
    HostMulti hx("hx", A.num_cols(), 1);
    fill_random(hx, 99);
    Kokkos::deep_copy(x, Kokkos::subview(hx, Kokkos::ALL, 0));
    Kokkos::deep_copy(y0, 0.25);
    Kokkos::deep_copy(y_kk, y0);
    KokkosSparse::spmv("N", 1.5, kA, x, 0.5, y_kk);
    auto h_kk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_kk);
    for (auto alg : algorithms()) {
      Kokkos::View<double*, typename Exec::memory_space> y("y", A.num_rows());
      Kokkos::deep_copy(y, y0);
      spk::SpmvOptions opt;
      opt.algorithm = alg;
      spk::spmv(space, 1.5, A, x, 0.5, y, opt);
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      double err = 0, norm = 0;
      for (size_t i = 0; i < hy.extent(0); ++i) {
        err = std::max(err, std::abs(hy(i) - h_kk(i)));
        norm = std::max(norm, std::abs(h_kk(i)));
      }
      EXPECT_LE(err, 1e-12 * std::max(norm, 1.0)) << spec << " " << spk::to_string(alg);
    }
  }
}
#endif
