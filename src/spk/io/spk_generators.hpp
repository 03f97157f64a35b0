// Deterministic matrix generators, addressed by a spec string anywhere a
// matrix file is accepted:
//   poisson2d:N                      5-point Laplacian on an N×N grid (N² rows)
//   poisson3d:N                      7-point Laplacian on an N×N×N grid (N³ rows)
//   random:ROWS:COLS:PER_ROW[:SEED]  PER_ROW distinct uniform columns per row
//   rmat:SCALE:EDGE_FACTOR[:SEED]    Graph500 R-MAT (a=.57, b=c=.19), 2^SCALE
//                                    rows, EDGE_FACTOR·2^SCALE edges, repeated
//                                    edges summed
// Generated matrices are host CSR, columns sorted and unique, values nonzero.
// Spec numbers are plain decimal integers; every size a spec implies is
// computed with overflow checks and compared with the ordinal and offset
// types and with the machine's memory (generator_memory_limit) before
// anything is allocated.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <string>
#include <unordered_set>
#include <vector>

namespace spk {
namespace Impl {

/// splitmix64: a tiny, fast, portable generator (same stream everywhere).
struct SplitMix64 {
  std::uint64_t state;
  explicit SplitMix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
};

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + 1)
    parts.push_back(s.substr(b, e - b));
  parts.push_back(s.substr(b));
  return parts;
}

inline long long parse_spec_int(const std::string& spec, const std::string& tok, const char* name,
                                const char* usage) {
  long long v = 0;
  const char* b = tok.data();
  const char* e = tok.data() + tok.size();
  const bool negative = b < e && *b == '-';
  const auto r = std::from_chars(b + negative, e, v);
  SPK_REQUIRE(!tok.empty() && r.ptr == e && r.ec != std::errc::invalid_argument, Error,
              "generator spec '", spec, "': ", name, " = '", tok,
              "' is not an integer (usage: ", usage, ")");
  SPK_REQUIRE(!negative, Error, "generator spec '", spec, "': ", name, " = ", tok,
              " is negative (usage: ", usage, ")");
  SPK_REQUIRE(r.ec == std::errc(), Overflow, "generator spec '", spec, "': ", name, " = ", tok,
              " is too large (max ", std::numeric_limits<long long>::max(), ")");
  return v;
}

/// a * b for sizes (both >= 0), or an Overflow naming the spec and what
/// the product counts.
inline long long checked_mul(const std::string& spec, long long a, long long b, const char* what) {
  long long r = 0;
  SPK_REQUIRE(!__builtin_mul_overflow(a, b, &r), Overflow, "generator spec '", spec, "': ", what,
              " = ", a, " x ", b, " overflows 64-bit integers");
  return r;
}

/// a + b for sizes, checked like checked_mul.
inline long long checked_add(const std::string& spec, long long a, long long b, const char* what) {
  long long r = 0;
  SPK_REQUIRE(!__builtin_add_overflow(a, b, &r), Overflow, "generator spec '", spec, "': ", what,
              " = ", a, " + ", b, " overflows 64-bit integers");
  return r;
}

/// The most bytes a generator may allocate: the machine's physical memory
/// unless set (the fuzz targets set a small limit to generate only small
/// matrices).
inline std::atomic<long long>& generator_memory_limit() {
  static std::atomic<long long> limit{[] {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<long long>(pages) * page
                                 : std::numeric_limits<long long>::max();
  }()};
  return limit;
}

inline std::string gib_text(long double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3Lg GiB", bytes / (1024.0L * 1024.0L * 1024.0L));
  return buf;
}

/// Checks that a generated rows x cols matrix with nnz entries fits the
/// ordinal type O and offset type F, and that it plus `workspace_bytes`
/// fits generator_memory_limit(); call it before allocating.
template <class O, class F, class S = double>
void check_generated_size(const std::string& spec, long long rows, long long cols, long long nnz,
                          long double workspace_bytes = 0) {
  SPK_REQUIRE(rows <= std::numeric_limits<O>::max() && cols <= std::numeric_limits<O>::max(),
              Overflow, "generator spec '", spec, "': ", rows, " x ", cols,
              " does not fit the ordinal type (max ", +std::numeric_limits<O>::max(), ")");
  SPK_REQUIRE(nnz <= static_cast<long long>(std::numeric_limits<F>::max()), Overflow,
              "generator spec '", spec, "': ", nnz, " nonzeros do not fit the offset type (max ",
              +std::numeric_limits<F>::max(), ")");
  const long double bytes = (static_cast<long double>(rows) + 1) * sizeof(F) +
                            static_cast<long double>(nnz) * (sizeof(O) + sizeof(S)) +
                            workspace_bytes;
  const long long limit = generator_memory_limit().load();
  SPK_REQUIRE(bytes <= static_cast<long double>(limit), Error, "generator spec '", spec, "': a ",
              rows, " x ", cols, " matrix with ", nnz, " nonzeros needs about ", gib_text(bytes),
              ", more than the ", gib_text(limit), " memory limit");
}

/// Rows of a 2-D (n²) or 3-D (n³) grid, checked.
inline long long grid_points(const std::string& spec, long long n, int dims) {
  const long long nn = checked_mul(spec, n, n, "rows (N x N)");
  return dims == 2 ? nn : checked_mul(spec, nn, n, "rows (N x N x N)");
}

template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> stencil(const std::string& spec, long long n, int dims,
                                       long long r0 = 0, long long r1 = -1) {
  // Rows [r0, r1) of the matrix (all of it by default), with global columns:
  // a distributed run can generate each rank's rows where they live.
  const long long all = grid_points(spec, n, dims);
  if (r1 < 0) r1 = all;
  const long long rows = r1 - r0;
  const long long nn = n * n;  // (checked by grid_points)
  // Entries: the diagonal plus two per grid edge, 5·all - 4n (2-D) or
  // 7·all - 6n² (3-D); 0 for an empty grid.
  long long nnz = std::max(
      0LL, checked_mul(spec, dims == 2 ? 5 : 7, all, "nonzeros") - (dims == 2 ? 4 * n : 6 * nn));
  if (rows != all) {  // a block of rows: count its entries
    check_generated_size<O, F, S>(spec, rows, all, 0);
    nnz = 0;
    for (long long r = r0; r < r1; ++r) {
      const long long x = r % n, y = (r / n) % n, z = r / nn;
      nnz += 1 + (x > 0) + (x + 1 < n) + (y > 0) + (y + 1 < n) +
             (dims == 3 ? (z > 0) + (z + 1 < n) : 0);
    }
  }
  check_generated_size<O, F, S>(spec, rows, all, nnz);
  CsrMatrix<S, O, F, HostDevice> A(spec, static_cast<O>(rows), static_cast<O>(all),
                                   static_cast<F>(nnz));
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  F k = 0;
  const S diag = dims == 2 ? S(4) : S(6);
  for (long long r = r0; r < r1; ++r) {
    rm(r - r0) = k;
    const long long x = r % n, y = (r / n) % n, z = r / nn;
    auto put = [&](long long c, S v) {
      ci(k) = static_cast<O>(c);
      va(k) = v;
      ++k;
    };
    if (dims == 3 && z > 0) put(r - nn, S(-1));
    if (y > 0) put(r - n, S(-1));
    if (x > 0) put(r - 1, S(-1));
    put(r, diag);
    if (x + 1 < n) put(r + 1, S(-1));
    if (y + 1 < n) put(r + n, S(-1));
    if (dims == 3 && z + 1 < n) put(r + nn, S(-1));
  }
  rm(rows) = k;
  return A;
}

}  // namespace Impl

/// Whether s names a generator rather than a file.
inline bool is_generator_spec(const std::string& s) {
  for (const char* p : {"poisson2d:", "poisson3d:", "random:", "rmat:"})
    if (s.rfind(p, 0) == 0) return true;
  return false;
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

/// Builds the matrix a generator spec names; throws spk::Error on a bad spec.
template <class S = double, class O = int, class F = int>
CsrMatrix<S, O, F, HostDevice> generate(const std::string& spec) {
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
  throw Error("unknown generator '" + kind + "' in spec '" + spec +
              "' (known: poisson2d:N, poisson3d:N, random:ROWS:COLS:PER_ROW[:SEED], "
              "rmat:SCALE:EDGE_FACTOR[:SEED])");
}

}  // namespace spk
