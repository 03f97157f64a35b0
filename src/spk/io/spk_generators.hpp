// Deterministic matrix generators, addressed by a spec string anywhere a
// matrix file is accepted (spk::generator_specs() is the one-line list):
//   poisson2d:N                      5-point Laplacian on an N×N grid (N² rows)
//   poisson3d:N                      7-point Laplacian on an N×N×N grid (N³ rows)
//   stencil27:N                      27-point Laplacian on an N×N×N grid (N³ rows)
//   random:ROWS:COLS:PER_ROW[:SEED]  PER_ROW distinct uniform columns per row
//   rmat:SCALE:EDGE_FACTOR[:SEED]    Graph500 R-MAT (a=.57, b=c=.19), 2^SCALE
//                                    rows, EDGE_FACTOR·2^SCALE edges, repeated
//                                    edges summed
//   fem:N:K:POINTS[:SEED]            vector-valued FEM: K dofs per node (K = 1..8)
//                                    of an N×N×N node grid, dense K×K blocks
//                                    between nodes of a POINTS = 7 or 27 stencil;
//                                    N³·K rows, symmetric values
//   banded:N:BANDWIDTH:PER_ROW[:SEED] the diagonal plus PER_ROW-1 distinct random
//                                    columns j with |i-j| <= BANDWIDTH
//   blockdiag:N:BLOCK[:SEED]         dense BLOCK×BLOCK diagonal blocks (the last
//                                    one shorter): A·A has A's pattern with BLOCK
//                                    products per entry
//   powerlaw:N:MEAN:ALPHA:ZIPF[:SEED] N×N; row lengths Pareto(ALPHA > 1) with mean
//                                    ≈ MEAN (at most N/2); columns drawn from a
//                                    Zipf(ZIPF >= 0) law, so a few hub columns
//                                    hold many entries; ALPHA, ZIPF are decimals
//   arrow:N:K[:SEED]                 tridiagonal plus K dense rows and K dense
//                                    columns at distinct positions (a dense
//                                    column never meets a dense row, so A·A
//                                    stays sparse apart from ~3K dense rows)
//   prolongator:agg:SPEC             AMG aggregation prolongator of the square
//                                    matrix SPEC (rows × aggregates, ones)
//   prolongator:sa:SPEC              smoothed aggregation, (I − ω D⁻¹A)·P_agg
//                                    with ω = 4/(3·ρ), ρ Gershgorin's bound of
//                                    D⁻¹A
// Any spec may end in ":values=complex" (":values=real" is the default) to
// get complex values in a complex scalar type: entry a_ij of the real matrix
// becomes a_ij·e^{iθ_ij}, so every modulus, and with it the diagonal
// dominance and Gershgorin bounds, is the real matrix's.  θ_ij ∈ [π/12,
// 5π/12] is drawn from (SEED, i, j), so both parts of every entry are
// nonzero.  The symmetric families (poisson2d, poisson3d, stencil27, fem)
// become Hermitian: θ_ji = −θ_ij and the diagonal stays real.  A real scalar
// type refuses values=complex; with real values a complex scalar type gets
// zero imaginary parts.
// The same SEED gives the same matrix on every machine and thread count.
// Generated matrices are host CSR, columns sorted and unique, values nonzero.
// Spec numbers are plain decimal integers (powerlaw's ALPHA and ZIPF are
// decimals); every size a spec implies is
// computed with overflow checks and compared with the ordinal and offset
// types and with the machine's memory (generator_memory_limit) before
// anything is allocated.
#pragma once

#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <impl/spk_generators_impl.hpp>
#include <limits>
#include <optional>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_scalar_traits.hpp>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

namespace spk {

/// Whether s names a generator rather than a file.
inline bool is_generator_spec(const std::string& s) {
  for (const char* p : {"poisson2d:", "poisson3d:", "random:", "rmat:", "stencil27:", "fem:",
                        "banded:", "blockdiag:", "powerlaw:", "arrow:", "prolongator:"})
    if (s.rfind(p, 0) == 0) return true;
  return false;
}

/// Builds the matrix a generator spec names; throws spk::Error on a bad spec.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> generate(const std::string& spec);

namespace Impl {
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> generate_real(const std::string& spec);
}  // namespace Impl

/// What a spec's values are: Real, or Complex for a spec ending in
/// ":values=complex".
enum class GeneratedValues { Real, Complex };

/// The values a spec asks for; throws spk::Error naming the spec for a
/// values= other than real or complex.
inline GeneratedValues generator_values(const std::string& spec) {
  return Impl::split_values_option(spec).values == Impl::SpecValues::Complex
             ? GeneratedValues::Complex
             : GeneratedValues::Real;
}

/// The complex matrix that ":values=complex" gives for a real matrix A
/// generated from `spec` (without the suffix): a_ij·e^{iθ_ij}, θ by the
/// family's rule and seed (the top of this file).  A name that is no
/// generator spec (a file read in real) gets the general rule with seed 1,
/// so that drivers can give files and specs complex values the same way.
template <class C, class R, class O, class F>
CsrMatrix<C, O, F, HostDevice> with_complex_values(const std::string& spec,
                                                   const CsrMatrix<R, O, F, HostDevice>& A) {
  static_assert(is_complex_v<C>, "spk::with_complex_values: C is a Kokkos::complex type");
  const bool generated = is_generator_spec(spec);
  const bool hermitian = generated && Impl::is_hermitian_family(spec);
  const std::uint64_t seed = generated ? Impl::spec_seed(spec) : 1;
  CsrMatrix<C, O, F, HostDevice> B(spec, A.num_rows(), A.num_cols(), A.nnz());
  Kokkos::deep_copy(B.row_map(), A.row_map());
  Kokkos::deep_copy(B.col_idx(), A.col_idx());
  Impl::write_complex_values(A, B, seed, hermitian);
  return B;
}

/// 5-point 2-D Laplacian on an n × n grid.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> poisson2d(long long n) {
  return Impl::stencil<S, O, F>("poisson2d:" + std::to_string(n), n, 2);
}

/// 7-point 3-D Laplacian on an n × n × n grid.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> poisson3d(long long n) {
  return Impl::stencil<S, O, F>("poisson3d:" + std::to_string(n), n, 3);
}

/// rows × cols with min(per_row, cols) distinct uniformly drawn columns per
/// row and values uniform in [-1, -0.1] ∪ [0.1, 1].
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> random_uniform(long long rows, long long cols, long long per_row,
                                              std::uint64_t seed = 1) {
  const std::string spec = "random:" + std::to_string(rows) + ":" + std::to_string(cols) + ":" +
                           std::to_string(per_row) + ":" + std::to_string(seed);
  per_row = std::min(per_row, cols);
  const long long nnz = Impl::checked_mul(spec, rows, per_row, "nonzeros (ROWS x PER_ROW)");
  // (the marker array of dense-ish rows: one byte per column)
  Impl::check_generated_size<O, F, S>(spec, rows, cols, nnz, per_row > cols / 4 ? cols : 0);
  CsrMatrix<S, O, F, HostDevice> A(spec, static_cast<O>(rows), static_cast<O>(cols),
                                   static_cast<F>(nnz));
  Impl::SplitMix64 rng(seed * 0x2545f4914f6cdd1dull + 7);
  std::vector<long long> picked;
  std::unordered_set<long long> seen;
  std::vector<char> used(per_row > cols / 4 ? static_cast<size_t>(cols) : 0, 0);
  F k = 0;
  for (long long r = 0; r < rows; ++r) {
    A.row_map()(r) = k;
    picked.clear();
    if (!used.empty()) {  // dense-ish rows: partial Fisher-Yates over a marker array
      while (static_cast<long long>(picked.size()) < per_row) {
        const long long c = static_cast<long long>(rng.below(cols));
        if (!used[c]) used[c] = 1, picked.push_back(c);
      }
      for (long long c : picked) used[c] = 0;
    } else if (per_row <= 32) {  // sparse rows: rejection against the few already picked
      while (static_cast<long long>(picked.size()) < per_row) {
        const long long c = static_cast<long long>(rng.below(cols));
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
    } else {  // long sparse rows: the same rejection, against a hash set (linear in per_row)
      seen.clear();
      while (static_cast<long long>(picked.size()) < per_row) {
        const long long c = static_cast<long long>(rng.below(cols));
        if (seen.insert(c).second) picked.push_back(c);
      }
    }
    std::sort(picked.begin(), picked.end());
    for (long long c : picked) {
      const double u = rng.uniform();
      A.col_idx()(k) = static_cast<O>(c);
      A.values()(k) = static_cast<S>(u < 0.5 ? -0.1 - 1.8 * u : 0.1 + 1.8 * (u - 0.5));
      ++k;
    }
  }
  A.row_map()(rows) = k;
  return A;
}

/// Graph500 R-MAT graph: 2^scale vertices, edge_factor · 2^scale directed
/// edges drawn with probabilities a=.57, b=c=.19, d=.05; each edge weighs a
/// value in [0.1, 1]; repeated edges are summed.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> rmat(long long scale, long long edge_factor,
                                    std::uint64_t seed = 1) {
  const std::string spec = "rmat:" + std::to_string(scale) + ":" + std::to_string(edge_factor) +
                           ":" + std::to_string(seed);
  SPK_REQUIRE(scale >= 0 && scale <= 40, Error, "generator spec '", spec,
              "': SCALE must be in [0, 40]");
  SPK_REQUIRE(edge_factor >= 0, Error, "generator spec '", spec, "': EDGE_FACTOR is negative");
  const long long n = 1LL << scale;
  const long long edges = Impl::checked_mul(spec, edge_factor, n, "edges (EDGE_FACTOR x 2^SCALE)");
  // Workspace: the edge list, weights and sort order, and the CSR being
  // assembled, besides the matrix itself.
  const long double workspace =
      static_cast<long double>(edges) * (sizeof(std::pair<long long, long long>) + sizeof(S) +
                                         sizeof(long long) + sizeof(O) + sizeof(S)) +
      (static_cast<long double>(n) + 1) * sizeof(F);
  Impl::check_generated_size<O, F, S>(spec, n, n, edges, workspace);
  Impl::SplitMix64 rng(seed * 0x9e3779b97f4a7c15ull + 12345);
  std::vector<std::pair<long long, long long>> e(edges);
  std::vector<S> w(edges);
  for (long long t = 0; t < edges; ++t) {
    long long r = 0, c = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = rng.uniform();
      const int q = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      r = 2 * r + (q >> 1);
      c = 2 * c + (q & 1);
    }
    e[t] = {r, c};
    w[t] = static_cast<S>(0.1 + 0.9 * rng.uniform());
  }
  std::vector<long long> order(edges);
  for (long long t = 0; t < edges; ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](long long a, long long b) { return e[a] < e[b]; });
  std::vector<F> rm(n + 1, 0);
  std::vector<O> ci;
  std::vector<S> va;
  ci.reserve(edges);
  va.reserve(edges);
  for (long long t = 0; t < edges; ++t) {
    const auto [r, c] = e[order[t]];
    if (t > 0 && e[order[t - 1]] == e[order[t]]) {
      va.back() += w[order[t]];
      continue;
    }
    ++rm[r + 1];
    ci.push_back(static_cast<O>(c));
    va.push_back(w[order[t]]);
  }
  for (long long r = 0; r < n; ++r) rm[r + 1] += rm[r];
  CsrMatrix<S, O, F, HostDevice> A(spec, static_cast<O>(n), static_cast<O>(n),
                                   static_cast<F>(ci.size()));
  std::copy(rm.begin(), rm.end(), A.row_map().data());
  std::copy(ci.begin(), ci.end(), A.col_idx().data());
  std::copy(va.begin(), va.end(), A.values().data());
  return A;
}

namespace Impl {

/// An independent random stream per (seed, row): rows are generated in
/// parallel and the result does not depend on the thread count.
inline SplitMix64 row_stream(std::uint64_t seed, long long row, std::uint64_t family) {
  SplitMix64 mix(seed * 0x9e3779b97f4a7c15ull + family);
  return SplitMix64(mix.next() ^ (static_cast<std::uint64_t>(row) * 0xd1b54a32d192ed03ull));
}

/// A value in [-1, -0.1] ∪ [0.1, 1] that depends only on (seed, i, j).
inline double pair_value(std::uint64_t seed, long long i, long long j) {
  SplitMix64 g(seed * 0xbf58476d1ce4e5b9ull +
               static_cast<std::uint64_t>(i) * 0x94d049bb133111ebull +
               static_cast<std::uint64_t>(j));
  const double u = g.uniform();
  return u < 0.5 ? -0.1 - 1.8 * u : 0.1 + 1.8 * (u - 0.5);
}

inline double parse_spec_real(const std::string& spec, const std::string& tok, const char* name,
                              const char* usage) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(tok, &used);
  } catch (...) {
    used = 0;
  }
  SPK_REQUIRE(used == tok.size() && !tok.empty() && std::isfinite(v), Error, "generator spec '",
              spec, "': ", name, " = '", tok, "' is not a number (usage: ", usage, ")");
  SPK_REQUIRE(v >= 0, Error, "generator spec '", spec, "': ", name, " = ", v,
              " is negative (usage: ", usage, ")");
  return v;
}

/// a · b, or -1 when it exceeds long long: sizes are checked in 64 bits
/// before they are compared with the ordinal and offset types.
inline long long checked_mul(long long a, long long b) {
  if (a == 0 || b == 0) return 0;
  return a > std::numeric_limits<long long>::max() / b ? -1 : a * b;
}

inline void require_size(const std::string& spec, long long v, const char* what) {
  SPK_REQUIRE(v >= 0, Overflow, "generator spec '", spec, "': ", what,
              " overflows 64-bit integers");
}

/// Zipf-distributed rank in [0, n): P(rank k) ∝ (k+1)^-s, by inverting the
/// continuous approximation of its distribution function.
inline long long zipf_rank(SplitMix64& g, long long n, double s) {
  const double u = g.uniform();
  double x;
  if (std::abs(s - 1.0) < 1e-9)
    x = std::exp(u * std::log(static_cast<double>(n) + 1.0));
  else
    x = std::pow(u * (std::pow(static_cast<double>(n) + 1.0, 1.0 - s) - 1.0) + 1.0,
                 1.0 / (1.0 - s));
  return std::min(n - 1, std::max(0LL, static_cast<long long>(std::min(x, double(n))) - 1));
}

inline long long gcd_ll(long long a, long long b) {
  while (b) a %= b, std::swap(a, b);
  return a;
}

/// A stride coprime to n near 0.618·n: rank → (rank · stride) mod n spreads
/// the Zipf hubs over the column range.
inline long long spreading_stride(long long n) {
  long long s = std::max(1LL, static_cast<long long>(0.6180339887 * static_cast<double>(n)));
  while (gcd_ll(s, n) != 1) ++s;
  return s;
}

/// Neighbours of node (x, y, z) in an n³ grid for a 7- or 27-point stencil,
/// in increasing index order.
inline int grid_neighbours(long long n, long long node, int points, long long* out) {
  const long long nn = n * n;
  const long long x = node % n, y = (node / n) % n, z = node / nn;
  int k = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (points == 7 && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
        const long long a = x + dx, b = y + dy, c = z + dz;
        if (a < 0 || a >= n || b < 0 || b >= n || c < 0 || c >= n) continue;
        out[k++] = node + dz * nn + dy * n + dx;
      }
  return k;
}

/// Entries of the n³ node graph of a 7- or 27-point stencil (self included):
/// 7n³ − 6n² or (3n − 2)³; -1 when that overflows.
inline long long grid_edges(long long n, int points) {
  if (n <= 0) return 0;
  if (points == 27) {
    const long long m = 3 * n - 2;
    return checked_mul(checked_mul(m, m), m);
  }
  const long long n2 = checked_mul(n, n), n3 = checked_mul(n2, n);
  const long long seven = checked_mul(n3, 7);
  return n2 < 0 || seven < 0 ? -1 : seven - 6 * n2;
}

}  // namespace Impl

/// 27-point 3-D Laplacian on an n × n × n grid: 26 on the diagonal, -1 for
/// each of the up to 26 neighbours.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> stencil27(long long n) {
  const std::string spec = "stencil27:" + std::to_string(n);
  const long long rows = Impl::checked_mul(Impl::checked_mul(n, n), n);
  Impl::require_size(spec, rows, "N³");
  const long long nnz = Impl::grid_edges(n, 27);
  Impl::require_size(spec, nnz, "the number of entries");
  return Impl::build_by_rows<S, O, F>(
      spec, rows, rows,
      [&](long long r) {
        long long nb[27];
        return static_cast<long long>(Impl::grid_neighbours(n, r, 27, nb));
      },
      [&](long long r, O* ci, S* va) {
        long long nb[27];
        const int k = Impl::grid_neighbours(n, r, 27, nb);
        for (int t = 0; t < k; ++t) {
          ci[t] = static_cast<O>(nb[t]);
          va[t] = nb[t] == r ? S(26) : S(-1);
        }
      },
      nnz);
}

/// Vector-valued FEM pattern: k dofs per node of an n³ node grid, a dense
/// k × k block between every pair of nodes of a 7- or 27-point stencil.
/// Symmetric, diagonally dominant values drawn from the seed.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> fem(long long n, int k, int points, std::uint64_t seed = 1) {
  const std::string spec = "fem:" + std::to_string(n) + ":" + std::to_string(k) + ":" +
                           std::to_string(points) + ":" + std::to_string(seed);
  SPK_REQUIRE(k >= 1 && k <= 8, Error, "generator spec '", spec, "': K = ", k, " must be in 1..8");
  SPK_REQUIRE(points == 7 || points == 27, Error, "generator spec '", spec, "': POINTS = ", points,
              " must be 7 or 27");
  const long long nodes = Impl::checked_mul(Impl::checked_mul(n, n), n);
  Impl::require_size(spec, nodes, "N³");
  const long long rows = Impl::checked_mul(nodes, k);
  Impl::require_size(spec, rows, "N³·K");
  const long long nnz = Impl::checked_mul(Impl::grid_edges(n, points), k * k);
  Impl::require_size(spec, nnz, "the number of entries");
  return Impl::build_by_rows<S, O, F>(
      spec, rows, rows,
      [&](long long r) {
        long long nb[27];
        return static_cast<long long>(Impl::grid_neighbours(n, r / k, points, nb)) * k;
      },
      [&](long long r, O* ci, S* va) {
        long long nb[27];
        const int m = Impl::grid_neighbours(n, r / k, points, nb);
        int t = 0, diag = -1;
        double off = 0;
        for (int j = 0; j < m; ++j)
          for (int b = 0; b < k; ++b, ++t) {
            const long long c = nb[j] * k + b;
            ci[t] = static_cast<O>(c);
            if (c == r) {
              diag = t;
              continue;
            }
            const double v = Impl::pair_value(seed, std::min(r, c), std::max(r, c));
            va[t] = static_cast<S>(v);
            off += std::abs(v);
          }
        va[diag] = static_cast<S>(off + 1.0);
      },
      nnz);
}

/// n × n: the diagonal plus per_row − 1 distinct random columns j with
/// |i − j| ≤ bandwidth (fewer where the band is narrower), values in
/// [-1, -0.1] ∪ [0.1, 1], the diagonal 1 + the row's absolute sum.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> banded(long long n, long long bandwidth, long long per_row,
                                      std::uint64_t seed = 1) {
  const std::string spec = "banded:" + std::to_string(n) + ":" + std::to_string(bandwidth) + ":" +
                           std::to_string(per_row) + ":" + std::to_string(seed);
  SPK_REQUIRE(per_row >= 1, Error, "generator spec '", spec, "': PER_ROW must be at least 1");
  bandwidth = std::min(bandwidth, std::max(0LL, n - 1));
  auto window = [=](long long r) {
    return std::make_pair(std::max(0LL, r - bandwidth), std::min(n - 1, r + bandwidth));
  };
  auto length = [=](long long r) {
    const auto [lo, hi] = window(r);
    return std::min(per_row, hi - lo + 1);
  };
  return Impl::build_by_rows<S, O, F>(spec, n, n, length, [&](long long r, O* ci, S* va) {
    const auto [lo, hi] = window(r);
    const long long len = length(r), width = hi - lo + 1;
    auto g = Impl::row_stream(seed, r, 0xba9d);
    std::vector<long long> picked{r};
    picked.reserve(len);
    if (len * 2 > width) {  // most of the window: a partial Fisher-Yates over it
      std::vector<long long> all;
      for (long long c = lo; c <= hi; ++c)
        if (c != r) all.push_back(c);
      for (long long t = 0; t + 1 < len; ++t) {
        const long long j = t + static_cast<long long>(g.below(all.size() - t));
        std::swap(all[t], all[j]);
        picked.push_back(all[t]);
      }
    } else {
      while (static_cast<long long>(picked.size()) < len) {
        const long long c = lo + static_cast<long long>(g.below(width));
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
    }
    std::sort(picked.begin(), picked.end());
    double off = 0;
    for (long long t = 0; t < len; ++t) {
      ci[t] = static_cast<O>(picked[t]);
      if (picked[t] == r) continue;
      const double u = g.uniform();
      const double v = u < 0.5 ? -0.1 - 1.8 * u : 0.1 + 1.8 * (u - 0.5);
      va[t] = static_cast<S>(v);
      off += std::abs(v);
    }
    va[std::lower_bound(picked.begin(), picked.end(), r) - picked.begin()] =
        static_cast<S>(off + 1.0);
  });
}

/// n × n with dense block × block diagonal blocks (the last one shorter):
/// C = A·A has exactly A's pattern, each entry the sum of `block` products.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> blockdiag(long long n, long long block, std::uint64_t seed = 1) {
  const std::string spec =
      "blockdiag:" + std::to_string(n) + ":" + std::to_string(block) + ":" + std::to_string(seed);
  SPK_REQUIRE(block >= 1, Error, "generator spec '", spec, "': BLOCK must be at least 1");
  block = std::min(block, std::max(1LL, n));
  auto first = [=](long long r) { return r / block * block; };
  auto length = [=](long long r) { return std::min(n, first(r) + block) - first(r); };
  const long long last = n % block;
  const long long nnz = Impl::checked_mul(Impl::checked_mul(n / block, block), block);
  Impl::require_size(spec, nnz, "the number of entries");
  return Impl::build_by_rows<S, O, F>(
      spec, n, n, length,
      [&](long long r, O* ci, S* va) {
        const long long c0 = first(r), len = length(r);
        for (long long t = 0; t < len; ++t) {
          ci[t] = static_cast<O>(c0 + t);
          va[t] = static_cast<S>(c0 + t == r ? double(len) : Impl::pair_value(seed, r, c0 + t));
        }
      },
      nnz + last * last);
}

/// n × n power-law matrix: row lengths from a Pareto law of exponent alpha
/// (> 1) scaled to a mean of about `mean`, each at most n/2 (at least 1);
/// columns drawn from a Zipf law of exponent `zipf` over column ranks
/// spread across the range, so a few hub columns hold many entries.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> powerlaw(long long n, double mean, double alpha, double zipf,
                                        std::uint64_t seed = 1) {
  std::ostringstream name;
  name << "powerlaw:" << n << ":" << mean << ":" << alpha << ":" << zipf << ":" << seed;
  const std::string spec = name.str();
  SPK_REQUIRE(alpha > 1.0, Error, "generator spec '", spec, "': ALPHA = ", alpha,
              " must exceed 1 (a Pareto law with a finite mean)");
  SPK_REQUIRE(mean >= 1.0, Error, "generator spec '", spec, "': MEAN = ", mean,
              " must be at least 1");
  SPK_REQUIRE(std::isfinite(mean) && std::isfinite(alpha) && std::isfinite(zipf), Error,
              "generator spec '", spec, "': MEAN, ALPHA and ZIPF must be finite");
  const double xm = mean * (alpha - 1.0) / alpha;
  const long long longest = std::max(1LL, n / 2);
  auto length = [=](long long r) {
    auto g = Impl::row_stream(seed, r, 0x1e47);
    const double x = xm * std::pow(1.0 - g.uniform(), -1.0 / alpha);
    // Clamped in double: a Pareto draw may exceed any long long.
    return static_cast<long long>(
        std::min(static_cast<double>(longest), std::max(1.0, std::floor(x + 0.5))));
  };
  const long long stride = n > 0 ? Impl::spreading_stride(n) : 1;
  return Impl::build_by_rows<S, O, F>(spec, n, n, length, [&](long long r, O* ci, S* va) {
    const long long len = length(r);
    auto g = Impl::row_stream(seed, r, 0xc015);
    std::vector<long long> picked;
    picked.reserve(len + len / 2 + 8);
    // Zipf draws, duplicates removed, until the row is full; the hubs repeat
    // so after a few rounds the rest comes uniformly (len <= n/2 ends it).
    for (int round = 0; static_cast<long long>(picked.size()) < len; ++round) {
      const long long want = len - static_cast<long long>(picked.size());
      for (long long t = 0; t < want + want / 4 + 1; ++t)
        picked.push_back(round < 8 ? Impl::zipf_rank(g, n, zipf) * stride % n
                                   : static_cast<long long>(g.below(n)));
      std::sort(picked.begin(), picked.end());
      picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    }
    if (static_cast<long long>(picked.size()) > len) {  // keep a random len of them
      for (long long t = 0; t < len; ++t)
        std::swap(picked[t], picked[t + static_cast<long long>(g.below(picked.size() - t))]);
      picked.resize(len);
      std::sort(picked.begin(), picked.end());
    }
    for (long long t = 0; t < len; ++t) {
      ci[t] = static_cast<O>(picked[t]);
      const double u = g.uniform();
      va[t] = static_cast<S>(u < 0.5 ? -0.1 - 1.8 * u : 0.1 + 1.8 * (u - 0.5));
    }
  });
}

namespace Impl {

/// The arrow's K dense rows and K dense columns: rows at (2j+1)·n/(2K),
/// columns half-way between, none within 1 of another.
inline std::vector<long long> arrow_positions(long long n, long long k, bool columns) {
  std::vector<long long> p;
  for (long long j = 0; j < k; ++j) {
    const long long spacing = n / k;
    p.push_back(j * spacing + (columns ? spacing / 4 : (3 * spacing) / 4));
  }
  return p;
}

}  // namespace Impl

/// n × n arrow matrix: tridiagonal plus k dense rows and k dense columns,
/// at distinct positions spread over the matrix (n ≥ 8k).  Values from the
/// seed, the diagonal 1 + the row's absolute sum off it.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> arrow(long long n, long long k, std::uint64_t seed = 1) {
  const std::string spec =
      "arrow:" + std::to_string(n) + ":" + std::to_string(k) + ":" + std::to_string(seed);
  SPK_REQUIRE(k >= 1 && n / 8 >= k, Error, "generator spec '", spec,
              "': needs K >= 1 and N >= 8·K (dense rows and columns apart)");
  // The K dense rows alone hold K·N entries: checked before the positions
  // (K of them) or any row is built.
  Impl::check_generated_size<O, F, S>(spec, n, n,
                                      Impl::checked_mul(spec, k, n, "dense-row entries (K x N)"));
  const auto dense_rows = Impl::arrow_positions(n, k, false);
  const auto dense_cols = Impl::arrow_positions(n, k, true);
  auto is_dense_row = [&](long long r) {
    return std::binary_search(dense_rows.begin(), dense_rows.end(), r);
  };
  // Columns of a sparse row: its tridiagonal part merged with the dense columns.
  auto sparse_row = [&](long long r, long long* out) {
    long long tri[3];
    int m = 0, len = 0;
    for (long long c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < n) tri[m++] = c;
    size_t j = 0;
    for (int t = 0; t < m || j < dense_cols.size();) {
      long long c;
      if (j == dense_cols.size() || (t < m && tri[t] <= dense_cols[j])) {
        c = tri[t++];
        if (j < dense_cols.size() && dense_cols[j] == c) ++j;
      } else {
        c = dense_cols[j++];
      }
      out[len++] = c;
    }
    return len;
  };
  return Impl::build_by_rows<S, O, F>(
      spec, n, n,
      [&](long long r) {
        if (is_dense_row(r)) return n;
        std::vector<long long> tmp(dense_cols.size() + 3);
        return static_cast<long long>(sparse_row(r, tmp.data()));
      },
      [&](long long r, O* ci, S* va) {
        std::vector<long long> cols;
        if (is_dense_row(r)) {
          cols.resize(n);
          for (long long c = 0; c < n; ++c) cols[c] = c;
        } else {
          cols.resize(dense_cols.size() + 3);
          cols.resize(sparse_row(r, cols.data()));
        }
        double off = 0;
        long long diag = 0;
        for (size_t t = 0; t < cols.size(); ++t) {
          ci[t] = static_cast<O>(cols[t]);
          if (cols[t] == r) {
            diag = static_cast<long long>(t);
            continue;
          }
          const double v = Impl::pair_value(seed, r, cols[t]);
          va[t] = static_cast<S>(v);
          off += std::abs(v);
        }
        va[diag] = static_cast<S>(off + 1.0);
      });
}

/// Aggregate of each row of a square matrix's graph (greedy, as in AMG's
/// standard aggregation): first every node whose neighbours are all free
/// starts an aggregate with them; then each free node joins an aggregate of
/// a neighbour; the rest group with their free neighbours.  Returns the
/// aggregate per row and the aggregate count.
namespace Impl {
template <class S, class O, class F>
std::pair<std::vector<long long>, long long> greedy_aggregates(
    const CsrMatrix<S, O, F, HostDevice>& A) {
  SPK_REQUIRE(A.num_rows() == A.num_cols(), Error, "aggregation: A is ", A.num_rows(), " x ",
              A.num_cols(), ", not square");
  const long long n = A.num_rows();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  std::vector<long long> agg(n, -1);
  long long count = 0;
  for (long long i = 0; i < n; ++i) {
    bool all_free = agg[i] < 0;
    for (F k = rm(i); all_free && k < rm(i + 1); ++k) all_free = agg[ci(k)] < 0;
    if (!all_free) continue;
    for (F k = rm(i); k < rm(i + 1); ++k) agg[ci(k)] = count;
    agg[i] = count++;
  }
  std::vector<long long> first_pass = agg;
  for (long long i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    for (F k = rm(i); k < rm(i + 1); ++k)
      if (first_pass[ci(k)] >= 0) {
        agg[i] = first_pass[ci(k)];
        break;
      }
  }
  for (long long i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    agg[i] = count;
    for (F k = rm(i); k < rm(i + 1); ++k)
      if (agg[ci(k)] < 0) agg[ci(k)] = count;
    ++count;
  }
  return {std::move(agg), count};
}
}  // namespace Impl

/// AMG aggregation prolongator of a square A: n × (number of aggregates),
/// P(i, aggregate(i)) = 1.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> aggregation_prolongator(const CsrMatrix<S, O, F, HostDevice>& A,
                                                       const std::string& label = "P_agg") {
  const auto aggregates = Impl::greedy_aggregates(A);
  const std::vector<long long>& agg = aggregates.first;
  const long long count = aggregates.second;
  return Impl::build_by_rows<S, O, F>(
      label, A.num_rows(), count, [](long long) { return 1LL; },
      [&](long long r, O* ci, S* va) {
        ci[0] = static_cast<O>(agg[r]);
        va[0] = S(1);
      });
}

/// Smoothed-aggregation prolongator P = (I − ω D⁻¹A)·P_agg with
/// ω = 4/(3ρ), ρ = max_i Σ_j |a_ij| / |a_ii| (Gershgorin's bound on D⁻¹A's
/// spectral radius).  A must be square with a nonzero diagonal.  Entries
/// that cancel exactly are dropped.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> smoothed_prolongator(const CsrMatrix<S, O, F, HostDevice>& A,
                                                    const std::string& label = "P_sa") {
  const auto aggregates = Impl::greedy_aggregates(A);
  const std::vector<long long>& agg = aggregates.first;
  const long long count = aggregates.second;
  const long long n = A.num_rows();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  std::vector<double> diag(n, 0.0);
  double rho = 0;
  for (long long i = 0; i < n; ++i) {
    double sum = 0;
    for (F k = rm(i); k < rm(i + 1); ++k) {
      if (ci(k) == i) diag[i] += static_cast<double>(va(k));
      sum += std::abs(static_cast<double>(va(k)));
    }
    SPK_REQUIRE(diag[i] != 0.0, Error, label, ": the diagonal entry of A's row ", i,
                " is zero (smoothing divides by it)");
    rho = std::max(rho, sum / std::abs(diag[i]));
  }
  const double omega = rho > 0 ? 4.0 / (3.0 * rho) : 0.0;
  // Row i: 1 at aggregate(i), −ω a_ij / a_ii at aggregate(j), summed per column.
  auto row = [&](long long i) {
    std::vector<std::pair<long long, double>> e{{agg[i], 1.0}};
    for (F k = rm(i); k < rm(i + 1); ++k)
      e.emplace_back(agg[ci(k)], -omega * static_cast<double>(va(k)) / diag[i]);
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t m = 0;
    for (size_t t = 0; t < e.size(); ++t) {
      if (m > 0 && e[m - 1].first == e[t].first)
        e[m - 1].second += e[t].second;
      else
        e[m++] = e[t];
    }
    e.resize(m);
    e.erase(std::remove_if(e.begin(), e.end(), [](const auto& x) { return x.second == 0.0; }),
            e.end());
    return e;
  };
  return Impl::build_by_rows<S, O, F>(
      label, n, count, [&](long long i) { return static_cast<long long>(row(i).size()); },
      [&](long long i, O* out_c, S* out_v) {
        const auto e = row(i);
        for (size_t t = 0; t < e.size(); ++t) {
          out_c[t] = static_cast<O>(e[t].first);
          out_v[t] = static_cast<S>(e[t].second);
        }
      });
}

/// The generator specs, one line each (for help texts and error messages).
inline std::string generator_specs() {
  return "poisson2d:N  poisson3d:N  stencil27:N  random:ROWS:COLS:PER_ROW[:SEED]  "
         "rmat:SCALE:EDGE_FACTOR[:SEED]  fem:N:K:POINTS[:SEED]  "
         "banded:N:BANDWIDTH:PER_ROW[:SEED]  blockdiag:N:BLOCK[:SEED]  "
         "powerlaw:N:MEAN:ALPHA:ZIPF[:SEED]  arrow:N:K[:SEED]  prolongator:agg|sa:SPEC";
}

namespace Impl {

/// The families after the first four: the matrix of `spec` (split at ':'
/// into p), or nothing when p[0] names none of them.
template <class S, class O, class F>
std::optional<CsrMatrix<S, O, F, HostDevice>> generate_family(const std::string& spec,
                                                              const std::vector<std::string>& p) {
  const std::string& kind = p[0];
  auto expect = [&](size_t lo, size_t hi, const char* usage) {
    SPK_REQUIRE(p.size() >= lo && p.size() <= hi, Error, "generator spec '", spec, "': expected ",
                usage);
  };
  auto arg = [&](size_t i, const char* name, const char* usage) {
    return parse_spec_int(spec, p[i], name, usage);
  };
  auto seed_at = [&](size_t i, const char* usage) -> std::uint64_t {
    return p.size() > i ? static_cast<std::uint64_t>(arg(i, "SEED", usage)) : 1;
  };
  if (kind == "stencil27") {
    const char* usage = "stencil27:N";
    expect(2, 2, usage);
    return stencil27<S, O, F>(arg(1, "N", usage));
  }
  if (kind == "fem") {
    const char* usage = "fem:N:K:POINTS[:SEED]";
    expect(4, 5, usage);
    const long long k = arg(2, "K", usage), points = arg(3, "POINTS", usage);
    SPK_REQUIRE(k >= 1 && k <= 8, Error, "generator spec '", spec, "': K = ", k,
                " must be in 1..8 (usage: ", usage, ")");
    SPK_REQUIRE(points == 7 || points == 27, Error, "generator spec '", spec,
                "': POINTS = ", points, " must be 7 or 27 (usage: ", usage, ")");
    return fem<S, O, F>(arg(1, "N", usage), static_cast<int>(k), static_cast<int>(points),
                        seed_at(4, usage));
  }
  if (kind == "banded") {
    const char* usage = "banded:N:BANDWIDTH:PER_ROW[:SEED]";
    expect(4, 5, usage);
    return banded<S, O, F>(arg(1, "N", usage), arg(2, "BANDWIDTH", usage), arg(3, "PER_ROW", usage),
                           seed_at(4, usage));
  }
  if (kind == "blockdiag") {
    const char* usage = "blockdiag:N:BLOCK[:SEED]";
    expect(3, 4, usage);
    return blockdiag<S, O, F>(arg(1, "N", usage), arg(2, "BLOCK", usage), seed_at(3, usage));
  }
  if (kind == "powerlaw") {
    const char* usage = "powerlaw:N:MEAN:ALPHA:ZIPF[:SEED]";
    expect(5, 6, usage);
    return powerlaw<S, O, F>(arg(1, "N", usage), parse_spec_real(spec, p[2], "MEAN", usage),
                             parse_spec_real(spec, p[3], "ALPHA", usage),
                             parse_spec_real(spec, p[4], "ZIPF", usage), seed_at(5, usage));
  }
  if (kind == "arrow") {
    const char* usage = "arrow:N:K[:SEED]";
    expect(3, 4, usage);
    return arrow<S, O, F>(arg(1, "N", usage), arg(2, "K", usage), seed_at(3, usage));
  }
  if (kind == "prolongator") {
    const char* usage = "prolongator:agg:SPEC or prolongator:sa:SPEC";
    SPK_REQUIRE(p.size() >= 3 && (p[1] == "agg" || p[1] == "sa"), Error, "generator spec '", spec,
                "': expected ", usage);
    const std::string inner = spec.substr(spec.find(':', 12) + 1);
    const auto A = generate_real<S, O, F>(inner);
    return p[1] == "agg" ? aggregation_prolongator(A, spec) : smoothed_prolongator(A, spec);
  }
  return std::nullopt;
}

/// The matrix of a spec without a values= suffix, in the real type S.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> generate_real(const std::string& spec) {
  const auto p = Impl::split(spec, ':');
  const std::string& kind = p[0];
  auto arg = [&](size_t i, const char* name, const char* usage) {
    return Impl::parse_spec_int(spec, p[i], name, usage);
  };
  if (kind == "poisson2d" || kind == "poisson3d") {
    const char* usage = kind == "poisson2d" ? "poisson2d:N" : "poisson3d:N";
    SPK_REQUIRE(p.size() == 2, Error, "generator spec '", spec, "': expected ", usage);
    const long long n = arg(1, "N", usage);
    return kind == "poisson2d" ? poisson2d<S, O, F>(n) : poisson3d<S, O, F>(n);
  }
  if (kind == "random") {
    const char* usage = "random:ROWS:COLS:PER_ROW[:SEED]";
    SPK_REQUIRE(p.size() == 4 || p.size() == 5, Error, "generator spec '", spec, "': expected ",
                usage);
    const std::uint64_t seed = p.size() == 5 ? arg(4, "SEED", usage) : 1;
    return random_uniform<S, O, F>(arg(1, "ROWS", usage), arg(2, "COLS", usage),
                                   arg(3, "PER_ROW", usage), seed);
  }
  if (kind == "rmat") {
    const char* usage = "rmat:SCALE:EDGE_FACTOR[:SEED]";
    SPK_REQUIRE(p.size() == 3 || p.size() == 4, Error, "generator spec '", spec, "': expected ",
                usage);
    const std::uint64_t seed = p.size() == 4 ? arg(3, "SEED", usage) : 1;
    return rmat<S, O, F>(arg(1, "SCALE", usage), arg(2, "EDGE_FACTOR", usage), seed);
  }
  if (auto A = Impl::generate_family<S, O, F>(spec, p)) return *A;
  throw Error("unknown generator '" + kind + "' in spec '" + spec +
              "' (known: " + generator_specs() + ")");
}

/// A real matrix with zero imaginary parts, in the complex type C.
template <class C, class R, class O, class F>
CsrMatrix<C, O, F, HostDevice> with_zero_imaginary(const CsrMatrix<R, O, F, HostDevice>& A) {
  typename CsrMatrix<C, O, F, HostDevice>::values_type values("values", A.nnz());
  for (long long k = 0; k < static_cast<long long>(A.nnz()); ++k) values(k) = C(A.values()(k));
  return CsrMatrix<C, O, F, HostDevice>(A.num_rows(), A.num_cols(), A.row_map(), A.col_idx(),
                                        values);
}

}  // namespace Impl

/// Builds the matrix a generator spec names; throws spk::Error on a bad spec.
/// A complex S is generated in its real type first (see the top of the file).
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> generate(const std::string& spec) {
  const Impl::SpecValues request = Impl::split_values_option(spec);
  if constexpr (is_complex_v<S>) {
    const auto A = Impl::generate_real<real_type_t<S>, O, F>(request.base);
    if (request.values == Impl::SpecValues::Complex) return with_complex_values<S>(request.base, A);
    return Impl::with_zero_imaginary<S>(A);
  } else {
    SPK_REQUIRE(request.values == Impl::SpecValues::Real, Error, "generator spec '", spec,
                "': values=complex needs a complex scalar type (Kokkos::complex<float> or "
                "Kokkos::complex<double>), not ",
                ScalarTraits<S>::name());
    return Impl::generate_real<S, O, F>(request.base);
  }
}

}  // namespace spk
