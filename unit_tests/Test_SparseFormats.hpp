// ELL, HYB, BSR and SELL-C-σ: hand-checked storage, conversions on the
// backend against the host's and round trips to CSR, SpMV in both modes
// against the serial CSR reference, and bad input.
#include <algorithm>
#include <cmath>
#include <set>
#include <spk_convert_bsr.hpp>
#include <spk_convert_ell.hpp>
#include <spk_convert_format.hpp>
#include <spk_convert_sell.hpp>
#include <spk_reference_convert.hpp>
#include <spk_reference_spmv.hpp>
#include <spk_spmv_bsr.hpp>
#include <spk_spmv_ell.hpp>
#include <spk_spmv_sell.hpp>
#include <spk_test_utils.hpp>
#include <string>
#include <vector>

// Inside an anonymous namespace: each backend's translation unit includes
// this file with its own TEST_EXECSPACE.
namespace {
namespace formats_test {

using Exec = TEST_EXECSPACE;
using Host = Kokkos::DefaultHostExecutionSpace;
using HostMulti = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
template <class F>
using HostCsr = spk::CsrMatrix<double, int, F, spk::HostDevice>;
using Rows = std::vector<std::vector<std::pair<int, double>>>;

template <class View>
std::vector<double> host_values(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

template <class Fn>
void expect_invalid(Fn&& fn, const std::vector<std::string>& needles) {
  try {
    fn();
    ADD_FAILURE() << "expected spk::InvalidMatrix containing '" << needles[0] << "'";
  } catch (const spk::InvalidMatrix& e) {
    for (const auto& needle : needles)
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A = [1 2 0 0 0]
//     [0 3 0 0 4]
//     [0 0 0 0 0]
//     [5 6 7 0 8]
inline HostCsr<int> hand_matrix() {
  return spk::reference::csr_from_rows<double, int, int>(
      4, 5,
      {{{0, 1.0}, {1, 2.0}}, {{1, 3.0}, {4, 4.0}}, {}, {{0, 5.0}, {1, 6.0}, {2, 7.0}, {4, 8.0}}});
}

/// v(i) = i + 1 (hand-checkable products).
template <class V>
void fill_counting(const V& v) {
  auto h = Kokkos::create_mirror_view(v);
  for (size_t i = 0; i < h.extent(0); ++i) h(i) = static_cast<double>(i + 1);
  Kokkos::deep_copy(v, h);
}

/// rows × cols, sorted unique columns: about `per_row` random entries per
/// row, every seventh row empty, row `dense_row` full, a few explicit zeros.
template <class F>
HostCsr<F> random_matrix(int rows, int cols, int per_row, std::uint64_t seed, int dense_row) {
  spk::Impl::SplitMix64 rng(seed);
  Rows r(rows);
  for (int i = 0; i < rows; ++i) {
    std::set<int> picked;
    if (i == dense_row) {
      for (int c = 0; c < cols; ++c) picked.insert(c);
    } else if (i % 7 != 3) {
      const int len = 1 + static_cast<int>(rng.below(2 * per_row));
      for (int k = 0; k < len; ++k) picked.insert(static_cast<int>(rng.below(cols)));
    }
    for (int c : picked) {
      const double u = rng.uniform();
      r[i].emplace_back(c, u < 0.02 ? 0.0 : 2 * u - 1);
    }
  }
  return spk::reference::csr_from_rows<double, int, F>(rows, cols, r);
}

/// rows × cols with no empty row: rows of min_len..max_len random sorted
/// columns, except rows [short_from, short_from + 5), which hold 2 (ELL's
/// host tasks of only long rows take the plain sums, the others the
/// padding-selecting ones).
template <class F>
HostCsr<F> regular_matrix(int rows, int cols, int min_len, int max_len, std::uint64_t seed,
                          int short_from) {
  spk::Impl::SplitMix64 rng(seed);
  Rows r(rows);
  for (int i = 0; i < rows; ++i) {
    const bool is_short = i >= short_from && i < short_from + 5;
    const int len = is_short ? 2 : min_len + static_cast<int>(rng.below(max_len - min_len + 1));
    std::set<int> picked;
    while (static_cast<int>(picked.size()) < len) picked.insert(static_cast<int>(rng.below(cols)));
    for (int c : picked) r[i].emplace_back(c, 2 * rng.uniform() - 1);
  }
  return spk::reference::csr_from_rows<double, int, F>(rows, cols, r);
}

/// A with its zero entries left out.
template <class F>
HostCsr<F> drop_zeros(const HostCsr<F>& A) {
  Rows r(A.num_rows());
  for (int i = 0; i < A.num_rows(); ++i)
    for (F k = A.row_map()(i); k < A.row_map()(i + 1); ++k)
      if (A.values()(k) != 0) r[i].emplace_back(A.col_idx()(k), A.values()(k));
  return spk::reference::csr_from_rows<double, int, F>(A.num_rows(), A.num_cols(), r);
}

inline void fill_random(const HostMulti& v, std::uint64_t seed) {
  spk::Impl::SplitMix64 rng(seed);
  for (size_t j = 0; j < v.extent(1); ++j)
    for (size_t i = 0; i < v.extent(0); ++i) v(i, j) = 2 * rng.uniform() - 1;
}

/// |y - ref| <= eps · (|α|·Σ|a||x| + |β·y0|): the rounding of any order of
/// summation, relative to the size of the terms.
template <class F>
void expect_close(const HostCsr<F>& A, spk::Mode mode, double alpha, const HostMulti& x,
                  double beta, const HostMulti& y0, const HostMulti& y, const HostMulti& ref,
                  const std::string& what) {
  auto absA = spk_test::abs_values(A);
  HostMulti absx("absx", x.extent(0), x.extent(1)), scale("scale", y.extent(0), y.extent(1));
  for (size_t j = 0; j < x.extent(1); ++j)
    for (size_t i = 0; i < x.extent(0); ++i) absx(i, j) = std::abs(x(i, j));
  spk::reference::spmv(1.0, absA, absx, 0.0, scale, mode);
  const double eps = 64 * std::numeric_limits<double>::epsilon();
  int bad = 0;
  for (size_t j = 0; j < y.extent(1); ++j)
    for (size_t i = 0; i < y.extent(0); ++i) {
      const double b0 = beta == 0 ? 0.0 : std::abs(beta * y0(i, j));
      const double tol = eps * (std::abs(alpha) * scale(i, j) + b0) + 1e-300;
      if (!(std::abs(y(i, j) - ref(i, j)) <= tol) && ++bad <= 5)
        ADD_FAILURE() << what << ": y(" << i << ", " << j << ") = " << y(i, j) << ", reference "
                      << ref(i, j);
    }
  EXPECT_EQ(bad, 0) << what;
}

/// Runs spmv(space, α, M, x, β, y) for a matrix M already on Exec and
/// compares it with the CSR reference.  nv = 0: rank-1 x and y.
template <class F, class M>
void check_spmv(const HostCsr<F>& A, const M& dM, spk::Mode mode, int nv, double alpha, double beta,
                std::uint64_t seed, const std::string& what, spk::SpmvOptions opt = {}) {
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
  opt.mode = mode;
  using MS = typename Exec::memory_space;
  Exec space;
  if (nv == 0) {
    Kokkos::View<double*, MS> dx("dx", n_in), dy("dy", n_out);
    Kokkos::deep_copy(dx, Kokkos::subview(x, Kokkos::ALL, 0));
    Kokkos::deep_copy(dy, Kokkos::subview(y0, Kokkos::ALL, 0));
    spk::spmv(space, alpha, dM, dx, beta, dy, opt);
    space.fence();
    Kokkos::deep_copy(Kokkos::subview(y, Kokkos::ALL, 0), dy);
  } else {
    Kokkos::View<double**, Kokkos::LayoutLeft, MS> dx("dx", n_in, cols), dy("dy", n_out, cols);
    Kokkos::deep_copy(dx, x);
    Kokkos::deep_copy(dy, y0);
    spk::spmv(space, alpha, dM, dx, beta, dy, opt);
    space.fence();
    Kokkos::deep_copy(y, dy);
  }
  expect_close(A, mode, alpha, x, beta, y0, y, ref,
               what + (t ? " [transpose" : " [normal") + ", nv=" + std::to_string(nv) +
                   ", alpha=" + std::to_string(alpha) + ", beta=" + std::to_string(beta) + "]");
}

/// Both modes, rank 1 and rank 2, β = 0 (y poisoned) and β ≠ 0, 1.
template <class F, class M>
void check_spmv_all(const HostCsr<F>& A, const M& dM, const std::string& what,
                    const spk::SpmvOptions& opt = {}) {
  std::uint64_t seed = 1000;
  for (auto mode : {spk::Mode::Normal, spk::Mode::Transpose}) {
    check_spmv(A, dM, mode, 0, 1.0, 0.0, ++seed, what, opt);
    check_spmv(A, dM, mode, 0, -0.75, 1.5, ++seed, what, opt);
    check_spmv(A, dM, mode, 3, 2.5, 0.0, ++seed, what, opt);
    check_spmv(A, dM, mode, 2, 0.5, -2.25, ++seed, what, opt);
  }
}

/// check_spmv_all with several lanes per row forced (options.vector_length:
/// 3 rounds down to 2, 32 is a whole warp), on GPU spaces, whose row kernels
/// take them; host spaces ignore the lanes.
template <class F, class M>
void check_spmv_lanes(const HostCsr<F>& A, const M& dM, const std::string& what,
                      spk::SpmvOptions opt = {}) {
  if constexpr (!spk::Impl::is_host_space_v<Exec>) {
    for (int lanes : {2, 3, 8, 32}) {
      opt.vector_length = lanes;
      check_spmv_all(A, dM, what + " lanes " + std::to_string(lanes), opt);
    }
  } else {
    (void)A, (void)dM, (void)what, (void)opt;
  }
}

/// The matrices of the random tests: bigger than a warp, empty rows, a
/// dense row, square and rectangular both ways.
template <class F>
std::vector<std::pair<std::string, HostCsr<F>>> random_matrices() {
  return {{"random 300x300", random_matrix<F>(300, 300, 5, 11, 17)},
          {"random 150x413", random_matrix<F>(150, 413, 6, 12, 0)},
          {"random 517x97", random_matrix<F>(517, 97, 3, 13, 516)}};
}

/// The stored BSR entries inside the matrix (not in the padding).
template <class B>
size_t stored_inside(const B& B_in) {
  const auto h = spk::create_mirror_view_and_copy_host(B_in);
  const long long b = h.block_size();
  size_t inside = 0;
  for (long long I = 0; I < h.num_block_rows(); ++I)
    for (long long k = h.row_map()(I); k < static_cast<long long>(h.row_map()(I + 1)); ++k)
      for (long long r = 0; r < b; ++r)
        for (long long c = 0; c < b; ++c)
          inside += I * b + r < h.num_rows() && h.col_idx()(k) * b + c < h.num_cols();
  return inside;
}

template <class F>
void check_bsr_random() {
  for (const auto& [name, A] : random_matrices<F>()) {
    const auto dA = spk::create_mirror_view_and_copy(Exec(), A);
    for (int b : {1, 2, 3, 4, 5, 16}) {
      const std::string what = name + " bsr:" + std::to_string(b);
      const auto dB = spk::csr_to_bsr(Exec(), dA, b);
      const auto hB = spk::csr_to_bsr(Host(), A, b);
      ASSERT_EQ(dB.num_blocks(), hB.num_blocks()) << what;
      EXPECT_EQ(host_values(dB.row_map()), host_values(hB.row_map())) << what;
      EXPECT_EQ(host_values(dB.col_idx()), host_values(hB.col_idx())) << what;
      EXPECT_EQ(host_values(dB.values()), host_values(hB.values())) << what;
      spk::validate(Exec(), dB);
      // Round trip: the fill zeros come back unless dropped.
      spk::BsrToCsrOptions drop;
      drop.drop_zeros = true;
      spk_test::expect_csr_equal(spk::bsr_to_csr(Exec(), dB, drop), drop_zeros(A), 0,
                                 what + " round trip, zeros dropped");
      const auto back = spk::bsr_to_csr(Exec(), dB);
      EXPECT_EQ(static_cast<size_t>(back.nnz()), stored_inside(hB)) << what;
      spk_test::expect_csr_equal(drop_zeros(spk::create_mirror_view_and_copy_host(back)),
                                 drop_zeros(A), 0, what + " round trip, fill kept");
      check_spmv_all(A, dB, what);
      check_spmv_lanes(A, dB, what);
    }
  }
}

/// Rows of A longer than `over` entries.
template <class F>
long long rows_longer_than(const HostCsr<F>& A, long long over) {
  long long n = 0;
  for (long long i = 0; i < A.num_rows(); ++i)
    n += static_cast<long long>(A.row_map()(i + 1) - A.row_map()(i)) > over;
  return n;
}

template <class F>
void check_sell_random() {
  struct Case {
    int C, sigma;
    long long spill;
  };
  for (const auto& [name, A] : random_matrices<F>()) {
    const auto dA = spk::create_mirror_view_and_copy(Exec(), A);
    // The default spill takes each matrix's dense row (its length is the
    // column count, more than 16 × the mean); spill 8 takes a third of the
    // rows besides; -1 keeps them all in the slices.
    for (auto [C, sigma, spill] : {Case{32, 256, 0},
                                   {4, 1, -1},
                                   {3, 7, 8},
                                   {8, 1000, 0},
                                   {0, 0, 0},
                                   {32, 256, 8},
                                   {32, 256, -1}}) {
      const std::string what = name + " sell:" + std::to_string(C) + ":" + std::to_string(sigma) +
                               " spill " + std::to_string(spill);
      spk::SellOptions opt;
      opt.slice_height = C;
      opt.sigma = sigma;
      opt.spill_width = spill;
      const auto dS = spk::csr_to_sell(Exec(), dA, opt);
      const long long over = spill > 0 ? spill
                             : spill == 0
                                 ? spk::sell_default_spill_width(Exec(), A.num_rows(), A.nnz())
                                 : std::numeric_limits<long long>::max();
      EXPECT_EQ(static_cast<long long>(dS.num_spilled()), rows_longer_than(A, over)) << what;
      if (spill == 0) EXPECT_GE(dS.num_spilled(), 1) << what << ": the dense row";
      EXPECT_EQ(static_cast<long long>(dS.num_positions() + dS.num_spilled()),
                static_cast<long long>(A.num_rows()));
      if (C == 0) {
        EXPECT_EQ(dS.slice_height(), spk::sell_default_slice_height<Exec>());
        EXPECT_EQ(dS.sigma(), spk::sell_default_sigma);
        opt.slice_height = dS.slice_height();
        opt.sigma = dS.sigma();
      }
      const auto hS = spk::csr_to_sell(Host(), A, opt);
      EXPECT_EQ(host_values(dS.perm()), host_values(hS.perm())) << what;
      EXPECT_EQ(host_values(dS.slice_ptr()), host_values(hS.slice_ptr())) << what;
      EXPECT_EQ(host_values(dS.col_idx()), host_values(hS.col_idx())) << what;
      EXPECT_EQ(host_values(dS.values()), host_values(hS.values())) << what;
      EXPECT_EQ(host_values(dS.spill_rows()), host_values(hS.spill_rows())) << what;
      EXPECT_EQ(host_values(dS.spill_ptr()), host_values(hS.spill_ptr())) << what;
      EXPECT_EQ(host_values(dS.spill_col_idx()), host_values(hS.spill_col_idx())) << what;
      EXPECT_EQ(host_values(dS.spill_values()), host_values(hS.spill_values())) << what;
      EXPECT_EQ(static_cast<long long>(dS.nnz()), static_cast<long long>(A.nnz()));
      spk::validate(Exec(), dS);
      spk_test::expect_csr_equal(spk::sell_to_csr(Exec(), dS), A, 0, what + " round trip");
      check_spmv_all(A, dS, what);
      check_spmv_lanes(A, dS, what);
      if (dS.num_spilled() > 0) {
        // Spill pieces of 1, 3 and 7 entries: every spill row is cut, at
        // offsets that do not line up with the rows.
        for (long long chunk : {1, 3, 7}) {
          spk::SpmvOptions cut;
          cut.tuning = spk::spmv_tuning(Exec());
          cut.tuning->sell_spill_chunk_nnz = chunk;
          check_spmv_all(A, dS, what + " spill pieces of " + std::to_string(chunk), cut);
        }
      }
    }
  }
}

template <class F>
void check_ell_hyb_random() {
  // Besides the small ones, a matrix of several ELL host tasks
  // (FormatHostTuning::ell_rows_per_task rows each) and a partial last one.
  auto matrices = random_matrices<F>();
  const int tall = 2 * spk::FormatHostTuning::ell_rows_per_task + 77;
  matrices.push_back({"random tall", random_matrix<F>(tall, 100, 4, 14, tall - 2)});
  // Tasks of rows of 17-27 entries (two groups of slot columns real in
  // every row, one with padding, three left over) and one with a few rows of 2.
  matrices.push_back(
      {"regular tall",
       regular_matrix<F>(tall, 300, 17, 27, 5, spk::FormatHostTuning::ell_rows_per_task + 9)});
  for (const auto& [name, A] : matrices) {
    const auto dA = spk::create_mirror_view_and_copy(Exec(), A);
    const auto dE = spk::csr_to_ell(Exec(), dA);
    const auto hE = spk::csr_to_ell(Host(), A);
    EXPECT_EQ(dE.width(), hE.width()) << name;
    EXPECT_EQ(host_values(dE.col_idx()), host_values(hE.col_idx())) << name;
    EXPECT_EQ(host_values(dE.values()), host_values(hE.values())) << name;
    spk_test::expect_csr_equal(spk::ell_to_csr(Exec(), dE), A, 0, name + " ell round trip");
    check_spmv_all(A, dE, name + " ell");
    check_spmv_lanes(A, dE, name + " ell");
    // HYB: the histogram's width, no ELL part, no COO part, and in between.
    for (long long w : {-1LL, 0LL, 1LL, 4LL, static_cast<long long>(hE.width()) + 2}) {
      const std::string what = name + " hyb width " + std::to_string(w);
      spk::HybOptions opt;
      opt.width = w;
      const auto dH = spk::csr_to_hyb(Exec(), dA, opt);
      if (w >= 0) {
        EXPECT_EQ(dH.width(), w) << what;
      } else {
        EXPECT_EQ(dH.width(), spk::hyb_default_width(Host(), A)) << what;
      }
      EXPECT_EQ(static_cast<long long>(dH.nnz()), static_cast<long long>(A.nnz())) << what;
      const auto hH = spk::csr_to_hyb(Host(), A, opt);
      EXPECT_EQ(host_values(dH.ell().col_idx()), host_values(hH.ell().col_idx())) << what;
      EXPECT_EQ(host_values(dH.coo().row_idx()), host_values(hH.coo().row_idx())) << what;
      EXPECT_EQ(host_values(dH.coo().col_idx()), host_values(hH.coo().col_idx())) << what;
      EXPECT_EQ(host_values(dH.coo().values()), host_values(hH.coo().values())) << what;
      spk_test::expect_csr_equal(spk::hyb_to_csr(Exec(), dH), A, 0, what + " round trip");
      check_spmv_all(A, dH, what);
      check_spmv_lanes(A, dH, what);
    }
  }
}

}  // namespace formats_test
}  // namespace

TEST(TEST_CATEGORY, sparse_formats_bsr_hand) {
  using namespace formats_test;
  const auto A = spk::create_mirror_view_and_copy(Exec(), hand_matrix());
  const auto B = spk::csr_to_bsr(Exec(), A, 2);
  // Block rows {0, 1} and {2, 3}; block columns {0, 1}, {2, 3}, {4, padding}.
  EXPECT_EQ(B.num_block_rows(), 2);
  EXPECT_EQ(B.num_block_cols(), 3);
  EXPECT_EQ(host_values(B.row_map()), (std::vector<double>{0, 2, 5}));
  EXPECT_EQ(host_values(B.col_idx()), (std::vector<double>{0, 2, 0, 1, 2}));
  EXPECT_EQ(host_values(B.values()), (std::vector<double>{1, 2, 0, 3,  //
                                                          0, 0, 4, 0,  //
                                                          0, 0, 5, 6,  //
                                                          0, 0, 7, 0,  //
                                                          0, 0, 8, 0}));
  // y = 2·A·[1 2 3 4 5] + 0.5·[1 1 1 1] = 2·[5 26 0 78] + 0.5.
  using MS = typename Exec::memory_space;
  Kokkos::View<double*, MS> x("x", 5), y("y", 4);
  fill_counting(x);
  Kokkos::deep_copy(y, 1.0);
  spk::spmv(Exec(), 2.0, B, x, 0.5, y);
  EXPECT_EQ(host_values(y), (std::vector<double>{10.5, 52.5, 0.5, 156.5}));
  // Aᵀ·[1 2 3 4] = [21 32 28 0 40] (β = 0 overwrites NaN).
  Kokkos::View<double*, MS> xt("xt", 4), yt("yt", 5);
  fill_counting(xt);
  spk_test::poison(yt);
  spk::SpmvOptions opt;
  opt.mode = spk::Mode::Transpose;
  spk::spmv(Exec(), B, xt, yt, opt);
  EXPECT_EQ(host_values(yt), (std::vector<double>{21, 32, 28, 0, 40}));
}

TEST(TEST_CATEGORY, sparse_formats_sell_hand) {
  using namespace formats_test;
  const auto A = spk::create_mirror_view_and_copy(Exec(), hand_matrix());
  spk::SellOptions opt;
  opt.slice_height = 2;
  opt.sigma = 4;
  const auto S = spk::csr_to_sell(Exec(), A, opt);
  // Row lengths 2 2 0 4, sorted: rows 3 0 | 1 2; slice widths 4 and 2.
  EXPECT_EQ(host_values(S.perm()), (std::vector<double>{3, 0, 1, 2}));
  EXPECT_EQ(host_values(S.slice_ptr()), (std::vector<double>{0, 8, 12}));
  EXPECT_EQ(host_values(S.col_idx()),
            (std::vector<double>{0, 0, 1, 1, 2, -1, 4, -1, 1, -1, 4, -1}));
  EXPECT_EQ(host_values(S.values()), (std::vector<double>{5, 1, 6, 2, 7, 0, 8, 0, 3, 0, 4, 0}));
  using MS = typename Exec::memory_space;
  Kokkos::View<double*, MS> x("x", 5), y("y", 4);
  fill_counting(x);
  spk_test::poison(y);
  spk::spmv(Exec(), S, x, y);  // in the original row order
  EXPECT_EQ(host_values(y), (std::vector<double>{5, 26, 0, 78}));
}

// Row 3 (4 entries) longer than the spill width 2: it leaves the slices.
TEST(TEST_CATEGORY, sparse_formats_sell_spill_hand) {
  using namespace formats_test;
  const auto A = spk::create_mirror_view_and_copy(Exec(), hand_matrix());
  spk::SellOptions opt;
  opt.slice_height = 2;
  opt.sigma = 4;
  opt.spill_width = 2;
  const auto S = spk::csr_to_sell(Exec(), A, opt);
  // Positions: rows 0 1 2 (lengths 2 2 0, already in order); slices {0, 1}
  // of width 2 and {2, padding} of width 0.
  EXPECT_EQ(S.num_positions(), 3);
  EXPECT_EQ(S.num_spilled(), 1);
  EXPECT_EQ(S.nnz(), 8);
  EXPECT_EQ(S.num_stored(), 8u);
  EXPECT_EQ(host_values(S.perm()), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(host_values(S.slice_ptr()), (std::vector<double>{0, 4, 4}));
  EXPECT_EQ(host_values(S.col_idx()), (std::vector<double>{0, 1, 1, 4}));
  EXPECT_EQ(host_values(S.values()), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(host_values(S.spill_rows()), (std::vector<double>{3}));
  EXPECT_EQ(host_values(S.spill_ptr()), (std::vector<double>{0, 4}));
  EXPECT_EQ(host_values(S.spill_col_idx()), (std::vector<double>{0, 1, 2, 4}));
  EXPECT_EQ(host_values(S.spill_values()), (std::vector<double>{5, 6, 7, 8}));
  spk::validate(Exec(), S);
  using MS = typename Exec::memory_space;
  Kokkos::View<double*, MS> x("x", 5), y("y", 4), xt("xt", 4), yt("yt", 5);
  fill_counting(x);
  spk_test::poison(y);
  spk::spmv(Exec(), S, x, y);
  EXPECT_EQ(host_values(y), (std::vector<double>{5, 26, 0, 78}));
  // Spill pieces of 3 entries: row 3 is summed as 1·5 + 2·6 + 3·7 and 5·8.
  spk::SpmvOptions cut;
  cut.tuning = spk::spmv_tuning(Exec());
  cut.tuning->sell_spill_chunk_nnz = 3;
  spk_test::poison(y);
  spk::spmv(Exec(), S, x, y, cut);
  EXPECT_EQ(host_values(y), (std::vector<double>{5, 26, 0, 78}));
  fill_counting(xt);
  spk::SpmvOptions t;
  t.mode = spk::Mode::Transpose;
  spk_test::poison(yt);
  spk::spmv(Exec(), S, xt, yt, t);
  // Aᵀ·(1 2 3 4): column 0: 1 + 5·4, column 1: 2 + 3·2 + 6·4, column 2: 7·4,
  // column 3: none, column 4: 4·2 + 8·4.
  EXPECT_EQ(host_values(yt), (std::vector<double>{21, 32, 28, 0, 40}));
  spk_test::expect_csr_equal(spk::sell_to_csr(Exec(), S), hand_matrix(), 0, "spill round trip");

  // A spill row that the slices hold too, and one outside the matrix.
  using Sell = spk::SellMatrix<double, int, int, Exec>;
  auto with_spill_row = [&](int row) {
    typename Sell::index_type rows("rows", 1);
    Kokkos::deep_copy(rows, row);
    return Sell(4, 5, 2, 4, 8, S.perm(), S.slice_ptr(), S.col_idx(), S.values(), rows,
                S.spill_ptr(), S.spill_col_idx(), S.spill_values());
  };
  expect_invalid([&] { spk::validate(Exec(), with_spill_row(1)); }, {"spill row 0"});
  expect_invalid([&] { spk::validate(Exec(), with_spill_row(7)); }, {"spill row 0"});
  // Sizes that do not add up: 3 positions and 1 spill row for 5 rows.
  expect_invalid(
      [&] {
        Sell(5, 5, 2, 4, 8, S.perm(), S.slice_ptr(), S.col_idx(), S.values(), S.spill_rows(),
             S.spill_ptr(), S.spill_col_idx(), S.spill_values());
      },
      {"perm has 3 entries and the spill 1 rows, expected 5"});
  opt.spill_width = -2;
  expect_invalid([&] { spk::csr_to_sell(Exec(), A, opt); }, {"spill width -2"});
}

TEST(TEST_CATEGORY, sparse_formats_ell_hyb_hand) {
  using namespace formats_test;
  const auto A = spk::create_mirror_view_and_copy(Exec(), hand_matrix());
  const auto E = spk::csr_to_ell(Exec(), A);
  EXPECT_EQ(E.width(), 4);
  // Column-major: slot k of every row, then slot k + 1.
  EXPECT_EQ(host_values(E.col_idx()),
            (std::vector<double>{0, 1, -1, 0, 1, 4, -1, 1, -1, -1, -1, 2, -1, -1, -1, 4}));
  EXPECT_EQ(host_values(E.values()),
            (std::vector<double>{1, 3, 0, 5, 2, 4, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8}));
  spk::HybOptions opt;
  opt.width = 2;
  const auto H = spk::csr_to_hyb(Exec(), A, opt);
  EXPECT_EQ(host_values(H.ell().col_idx()), (std::vector<double>{0, 1, -1, 0, 1, 4, -1, 1}));
  EXPECT_EQ(host_values(H.coo().row_idx()), (std::vector<double>{3, 3}));
  EXPECT_EQ(host_values(H.coo().col_idx()), (std::vector<double>{2, 4}));
  EXPECT_EQ(host_values(H.coo().values()), (std::vector<double>{7, 8}));
  // Fewer than 4096 rows: every row must fill an ELL column, and row 2 is empty.
  EXPECT_EQ(spk::hyb_default_width(Exec(), A), 0);
  using MS = typename Exec::memory_space;
  Kokkos::View<double*, MS> x("x", 5), y("y", 4);
  fill_counting(x);
  spk_test::poison(y);
  spk::spmv(Exec(), E, x, y);
  EXPECT_EQ(host_values(y), (std::vector<double>{5, 26, 0, 78}));
  Kokkos::deep_copy(y, 1.0);
  spk::spmv(Exec(), -1.0, H, x, 3.0, y);
  EXPECT_EQ(host_values(y), (std::vector<double>{-2, -23, 3, -75}));
}

TEST(TEST_CATEGORY, sparse_formats_hyb_histogram_width) {
  using formats_test::Rows;
  // 5000 rows: 4000 of length 3, 1000 of length 9; 4096 rows must fill a column.
  Rows r(5000);
  for (int i = 0; i < 5000; ++i)
    for (int k = 0; k < (i % 5 == 0 ? 9 : 3); ++k) r[i].emplace_back(k * 7 + i % 3, 1.0 + k);
  const auto A = spk::reference::csr_from_rows<double, int, int>(5000, 70, r);
  EXPECT_EQ(spk::hyb_default_width(formats_test::Host(), A), 3);
  const auto H = spk::csr_to_hyb(formats_test::Host(), A);
  EXPECT_EQ(H.width(), 3);
  EXPECT_EQ(static_cast<long long>(H.coo().nnz()), 1000LL * 6);
}

// The rule for lanes per row in the formats' GPU kernels: BSR by stored
// entries a row; ELL only while every row's lanes fit on the device at once;
// SELL one lane unless asked.
TEST(TEST_CATEGORY, sparse_formats_row_lanes_rule) {
  using formats_test::Exec;
  using K = spk::Impl::FormatKernel;
  const spk::SpmvTuning t = spk::spmv_tuning_cuda_sm90();
  const long long resident = 132 * 2048;  // an H100 or H200
  using spk::Impl::format_row_lanes;
  EXPECT_EQ(format_row_lanes(t, K::Bsr, 400000, 81, resident), 4) << "3-dof FEM";
  EXPECT_EQ(format_row_lanes(t, K::Bsr, 4000000, 40, resident), 2) << "27-point stencil";
  EXPECT_EQ(format_row_lanes(t, K::Bsr, 1000000, 15, resident), 1) << "7-point stencil";
  EXPECT_EQ(format_row_lanes(t, K::Bsr, 1000, 1000, resident), 8) << "at most format_max_lanes";
  EXPECT_EQ(format_row_lanes(t, K::Ell, 400000, 81, resident), 1) << "more rows than threads";
  EXPECT_EQ(format_row_lanes(t, K::Ell, 10876, 100, resident), 8) << "p2p-Gnutella04";
  EXPECT_EQ(format_row_lanes(t, K::Ell, 100000, 100, resident), 2) << "2 lanes fill the device";
  EXPECT_EQ(format_row_lanes(t, K::Ell, 1000, 12, resident), 1) << "short rows";
  EXPECT_EQ(format_row_lanes(t, K::Sell, 1000, 1000, resident), 1);
  spk::SpmvTuning off = t;
  off.format_max_lanes = 1;
  EXPECT_EQ(format_row_lanes(off, K::Bsr, 400000, 81, resident), 1);
  const bool host = spk::Impl::is_host_space_v<Exec>;
  EXPECT_EQ(spk::Impl::format_lanes(Exec(), spk::SpmvOptions{}, K::Bsr, 1000, 1000).lanes,
            host ? 1 : 8);
  // A tuning that leaves the formats' lane values at 0 keeps the policy's.
  spk::SpmvOptions zeros;
  zeros.tuning = spk::SpmvTuning{};
  EXPECT_EQ(spk::Impl::format_lanes(Exec(), zeros, K::Bsr, 1000, 1000).lanes, host ? 1 : 8);
  spk::SpmvOptions forced;
  forced.vector_length = 6;
  EXPECT_EQ(spk::Impl::format_lanes(Exec(), forced, K::Sell, 4000000, 5).lanes, host ? 1 : 4)
      << "rounded down to a power of two";
}

// Many spill rows cut into many pieces: a lane group finds its piece's row
// by bisection over the spill's rows, the first and the last included.
TEST(TEST_CATEGORY, sparse_formats_sell_many_spill_rows) {
  using namespace formats_test;
  for (int k : {17, 18, 34, 35, 288, 289, 290, 307, 1000}) {
    const int m = k + 50, n = 97;
    Rows rows(m);
    for (int i = 0; i < m; ++i) {
      const int len = i < k ? 10 + i % 7 : 2;  // the first k rows spill (width 8)
      for (int e = 0; e < len; ++e) rows[i].push_back({(i * 13 + e * 7) % n, 1.0 + (i + e) % 5});
    }
    for (auto& r : rows) std::sort(r.begin(), r.end());
    const auto A = spk::reference::csr_from_rows<double, int, int>(m, n, rows);
    spk::SellOptions opt;
    opt.spill_width = 8;
    const auto S = spk::csr_to_sell(Exec(), spk::create_mirror_view_and_copy(Exec(), A), opt);
    ASSERT_EQ(S.num_spilled(), k);
    for (long long chunk : {1, 4, 128}) {
      spk::SpmvOptions cut;
      cut.tuning = spk::spmv_tuning(Exec());
      cut.tuning->sell_spill_chunk_nnz = chunk;
      const std::string what =
          std::to_string(k) + " spill rows, pieces of " + std::to_string(chunk);
      check_spmv(A, S, spk::Mode::Normal, 0, 1.0, 0.0, 77, what, cut);
      check_spmv(A, S, spk::Mode::Normal, 0, -0.5, 2.0, 78, what, cut);
      check_spmv(A, S, spk::Mode::Transpose, 0, 1.5, 0.0, 79, what, cut);
    }
  }
}

TEST(TEST_CATEGORY, sparse_formats_bsr_random) { formats_test::check_bsr_random<int>(); }
TEST(TEST_CATEGORY, sparse_formats_bsr_random_size_t_offsets) {
  formats_test::check_bsr_random<size_t>();
}
TEST(TEST_CATEGORY, sparse_formats_sell_random) { formats_test::check_sell_random<int>(); }
TEST(TEST_CATEGORY, sparse_formats_sell_random_size_t_offsets) {
  formats_test::check_sell_random<size_t>();
}
TEST(TEST_CATEGORY, sparse_formats_ell_hyb_random) { formats_test::check_ell_hyb_random<int>(); }
TEST(TEST_CATEGORY, sparse_formats_ell_hyb_random_size_t_offsets) {
  formats_test::check_ell_hyb_random<size_t>();
}

TEST(TEST_CATEGORY, sparse_formats_bad_input) {
  using namespace formats_test;
  using MS = typename Exec::memory_space;
  const auto A = spk::create_mirror_view_and_copy(Exec(), hand_matrix());
  spk::EllOptions narrow;
  narrow.width = 3;
  expect_invalid([&] { spk::csr_to_ell(Exec(), A, narrow); },
                 {"row 3 has 4 entries", "width 3", "HYB"});
  {
    // 2,000 rows: the diagonal, and row 1,234 with 1,000 entries.  ELL
    // would pad to 2·10^6 slots for 2,999 entries, over max_fill's 16 × 2,999
    // plus the fixed allowance of 2^20.
    Rows rows(2000);
    for (int i = 0; i < 2000; ++i) rows[i].push_back({i, 1.0 + i});
    rows[1234].clear();
    for (int j = 0; j < 1000; ++j) rows[1234].push_back({2 * j, 0.5 + j});
    const auto W = spk::create_mirror_view_and_copy(
        Exec(), spk::reference::csr_from_rows<double, int, int>(2000, 2000, rows));
    expect_invalid([&] { spk::csr_to_ell(Exec(), W); },
                   {"width 1000", "row 1234 has 1000 entries", "max_fill is 16", "HYB", "SELL"});
    spk::EllOptions wide;
    wide.width = 4000;
    expect_invalid([&] { spk::csr_to_ell(Exec(), W, wide); }, {"width 4000 pads 2000 rows"});
    wide.width = -1;
    wide.max_fill = 1000;
    const auto E = spk::csr_to_ell(Exec(), W, wide);
    EXPECT_EQ(static_cast<long long>(E.width()), 1000);
    spk_test::expect_csr_equal(spk::ell_to_csr(Exec(), E),
                               spk::reference::csr_from_rows<double, int, int>(2000, 2000, rows), 0,
                               "ELL past the default max_fill");
  }
  expect_invalid([&] { spk::csr_to_bsr(Exec(), A, 17); }, {"block size 17"});
  expect_invalid([&] { spk::csr_to_bsr(Exec(), A, 0); }, {"block size 0"});
  using Bsr = spk::BsrMatrix<double, int, int, Exec>;
  // 4 x 5 in 2 x 2 blocks: 2 block rows, 3 block columns.
  auto bsr = [&](std::vector<int> row_map, std::vector<int> cols, std::vector<double> vals) {
    Kokkos::View<int*, MS> rm("rm", row_map.size()), ci("ci", cols.size());
    Kokkos::View<double*, MS> va("va", vals.size());
    Kokkos::deep_copy(rm, Kokkos::View<int*, Kokkos::HostSpace>(row_map.data(), row_map.size()));
    Kokkos::deep_copy(ci, Kokkos::View<int*, Kokkos::HostSpace>(cols.data(), cols.size()));
    Kokkos::deep_copy(va, Kokkos::View<double*, Kokkos::HostSpace>(vals.data(), vals.size()));
    return Bsr(4, 5, 2, rm, ci, va);
  };
  const std::vector<double> two_blocks(8, 1.0);
  expect_invalid(
      [&] {
        bsr({0, 1, 2}, {0, 1}, std::vector<double>(7, 1.0));
      },
      {"2 blocks of 2 x 2 need 8 values, got 7"});
  expect_invalid([&] { bsr({0, 2}, {0, 1}, two_blocks); }, {"row_map has 2 entries"});
  expect_invalid(
      [&] {
        spk::validate(Exec(), bsr({0, 2, 2}, {1, 0}, two_blocks));
      },
      {"block row 0", "not strictly increasing"});
  expect_invalid(
      [&] {
        spk::validate(Exec(), bsr({0, 1, 2}, {0, 3}, two_blocks));
      },
      {"block row 1", "outside"});
  expect_invalid(
      [&] {
        spk::validate(Exec(), bsr({0, 1, 1}, {0, 1}, two_blocks));
      },
      {"block row 1", "block pointers"});
  // Block column 2 holds column 4 and the padding column 5, which must be 0.
  expect_invalid(
      [&] {
        spk::validate(Exec(), bsr({0, 0, 2}, {0, 2}, two_blocks));
      },
      {"block row 1", "padding"});
  expect_invalid(
      [&] {
        spk::bsr_to_csr(Exec(), bsr({0, 2, 2}, {0, 0}, two_blocks));
      },
      {"block row 0"});
  auto fine = two_blocks;
  fine[5] = fine[7] = 0;
  spk::validate(Exec(), bsr({0, 0, 2}, {0, 2}, fine));
  spk::SellOptions sell;
  sell.slice_height = -1;
  expect_invalid([&] { spk::csr_to_sell(Exec(), A, sell); }, {"slice height -1"});
  // An ELL row with an entry after its padding.
  using Ell = spk::EllMatrix<double, int, int, Exec>;
  typename Ell::index_type ec("ec", 2, 2);
  typename Ell::values_type ev("ev", 2, 2);
  auto hec = Kokkos::create_mirror_view(ec);
  hec(0, 0) = 0;
  hec(0, 1) = 1;
  hec(1, 0) = -1;
  hec(1, 1) = 1;
  Kokkos::deep_copy(ec, hec);
  expect_invalid([&] { spk::validate(Exec(), Ell(2, 2, 3, ec, ev)); }, {"row 1"});
}

// CSR's dynamic algorithm (rows drawn through an atomic counter), with and
// without a plan, against the same reference.
TEST(TEST_CATEGORY, sparse_formats_csr_dynamic) {
  using namespace formats_test;
  for (const auto& [name, A] : random_matrices<int>()) {
    const auto dA = spk::create_mirror_view_and_copy(Exec(), A);
    // team 4: several lane groups share each draw (one on Serial, whose
    // teams have one thread; the default on GPUs).
    for (auto mode : {spk::Mode::Normal, spk::Mode::Transpose})
      for (int nv : {0, 3})
        for (int team : {0, 4}) {
          SCOPED_TRACE(std::string(name) + " nv " + std::to_string(nv) + " team " +
                       std::to_string(team));
          spk::SpmvOptions opt;
          opt.algorithm = spk::SpmvAlgorithm::Dynamic;
          opt.mode = mode;
          opt.team_size = team;
          const bool t = mode == spk::Mode::Transpose;
          const size_t n_in = t ? A.num_rows() : A.num_cols(),
                       n_out = t ? A.num_cols() : A.num_rows();
          const size_t cols = nv == 0 ? 1 : nv;
          HostMulti x("x", n_in, cols), y0("y0", n_out, cols), ref("ref", n_out, cols),
              y("y", n_out, cols);
          fill_random(x, 5 + nv);
          fill_random(y0, 6 + nv);
          Kokkos::deep_copy(ref, y0);
          spk::reference::spmv(-1.25, A, x, 0.75, ref, mode);
          using MS = typename Exec::memory_space;
          Kokkos::View<double**, Kokkos::LayoutLeft, MS> dx("dx", n_in, cols),
              dy("dy", n_out, cols);
          Kokkos::deep_copy(dx, x);
          for (bool with_plan : {false, true}) {
            Kokkos::deep_copy(dy, y0);
            if (with_plan) {
              spk::SpmvPlan plan(Exec(), dA, opt);
              EXPECT_EQ(plan.algorithm(), spk::SpmvAlgorithm::Dynamic);
              spk::spmv(Exec(), plan, -1.25, dA, dx, 0.75, dy, mode);
              // Again through the same plan: the counter starts over.
              Kokkos::deep_copy(dy, y0);
              spk::spmv(Exec(), plan, -1.25, dA, dx, 0.75, dy, mode);
            } else if (nv == 0) {
              spk::spmv(Exec(), -1.25, dA, Kokkos::subview(dx, Kokkos::ALL, 0), 0.75,
                        Kokkos::subview(dy, Kokkos::ALL, 0), opt);
            } else {
              spk::spmv(Exec(), -1.25, dA, dx, 0.75, dy, opt);
            }
            Exec().fence();
            Kokkos::deep_copy(y, dy);
            expect_close(A, mode, -1.25, x, 0.75, y0, y, ref,
                         name + " dynamic" + (with_plan ? " + plan" : "") +
                             " nv=" + std::to_string(nv) + (t ? " transpose" : ""));
          }
        }
  }
}

TEST(TEST_CATEGORY, sparse_formats_spec) {
  EXPECT_EQ(spk::to_string(spk::parse_format_spec("bsr:3")), "bsr:3");
  EXPECT_EQ(spk::to_string(spk::parse_format_spec("sell:32:256")), "sell:32:256");
  EXPECT_EQ(spk::to_string(spk::parse_format_spec("hyb")), "hyb");
  EXPECT_EQ(spk::parse_format_spec("ell:7").width, 7);
  for (const char* bad : {"bsr", "bsr:0", "bsr:17", "sell:x", "ell:-1", "coo", "sell:2000", ""}) {
    EXPECT_THROW(spk::parse_format_spec(bad), spk::Error) << bad;
  }
  // with_format + to_csr: every format back to the same CSR.
  using namespace formats_test;
  const auto A = random_matrix<int>(77, 59, 4, 21, 5);
  const auto dA = spk::create_mirror_view_and_copy(Exec(), A);
  for (const char* f : {"csr", "ell", "hyb", "hyb:2", "sell:4:8", "sell"}) {
    spk::with_format(Exec(), dA, spk::parse_format_spec(f), [&](const auto& M) {
      spk_test::expect_csr_equal(spk::to_csr(Exec(), M), A, 0, f);
    });
  }
  spk::with_format(Exec(), dA, spk::parse_format_spec("bsr:4"), [&](const auto& M) {
    using Bsr = spk::BsrMatrix<double, int, int, spk::device_t<Exec>>;
    if constexpr (std::is_same_v<std::decay_t<decltype(M)>, Bsr>) {
      EXPECT_EQ(spk::stored_values(M), static_cast<size_t>(M.num_blocks()) * 16);
      spk_test::expect_csr_equal(
          drop_zeros(spk::create_mirror_view_and_copy_host(spk::to_csr(Exec(), M))), drop_zeros(A),
          0, "bsr:4");
    } else {
      ADD_FAILURE() << "bsr:4 did not give a BsrMatrix";
    }
  });
}
