// The machinery under the generators (spk_generators.hpp): the portable
// random streams, spec parsing, the size checks against the ordinal and
// offset types and the machine's memory, the grid stencils, and
// build_by_rows, which builds a matrix row by row in parallel on the host.
#pragma once

#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

namespace spk::Impl {

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

/// A spec split at its ":values=" suffix (Real when it has none).
struct SpecValues {
  enum Kind { Real, Complex };
  std::string base;
  Kind values = Real;
};

inline SpecValues split_values_option(const std::string& spec) {
  const std::string key = ":values=";
  const size_t at = spec.rfind(key);
  if (at == std::string::npos) return {spec, SpecValues::Real};
  const std::string v = spec.substr(at + key.size());
  SPK_REQUIRE(v == "real" || v == "complex", Error, "generator spec '", spec, "': values = '", v,
              "' must be real or complex (values= ends the spec)");
  return {spec.substr(0, at), v == "complex" ? SpecValues::Complex : SpecValues::Real};
}

/// The families whose values are symmetric: their complex values are
/// Hermitian.
inline bool is_hermitian_family(const std::string& spec) {
  for (const char* p : {"poisson2d:", "poisson3d:", "stencil27:", "fem:"})
    if (spec.rfind(p, 0) == 0) return true;
  return false;
}

/// The SEED of a spec that generate() has accepted (1 where the family has
/// none or it is left out); a prolongator's is its matrix's.
inline std::uint64_t spec_seed(const std::string& spec) {
  const auto p = split(spec, ':');
  if (p[0] == "prolongator" && p.size() >= 3) return spec_seed(spec.substr(spec.find(':', 12) + 1));
  static const std::pair<const char*, size_t> seed_at[] = {
      {"random", 4},    {"rmat", 3},     {"fem", 4},  {"banded", 4},
      {"blockdiag", 3}, {"powerlaw", 5}, {"arrow", 3}};
  for (const auto& [kind, at] : seed_at)
    if (p[0] == kind && p.size() > at)
      return static_cast<std::uint64_t>(parse_spec_int(spec, p[at], "SEED", kind));
  return 1;
}

/// The phase θ of entry (i, j): in [π/12, 5π/12] from (seed, i, j), so that
/// cos θ and sin θ are both at least 0.25; for a Hermitian family
/// θ_ji = −θ_ij and the diagonal's is 0.
inline double entry_phase(std::uint64_t seed, long long i, long long j, bool hermitian) {
  if (hermitian && i == j) return 0.0;
  const long long a = hermitian ? std::min(i, j) : i, b = hermitian ? std::max(i, j) : j;
  SplitMix64 g(seed * 0xd6e8feb86659fd93ull +
               static_cast<std::uint64_t>(a) * 0x9e3779b97f4a7c15ull +
               static_cast<std::uint64_t>(b) * 0xc2b2ae3d27d4eb4full);
  const double theta = (1.0 + 4.0 * g.uniform()) * (3.14159265358979323846 / 12.0);
  return hermitian && i > j ? -theta : theta;
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
  SPK_REQUIRE(fits_integer<F>(nnz), Overflow, "generator spec '", spec, "': ", nnz,
              " nonzeros do not fit the offset type (max ", +std::numeric_limits<F>::max(), ")");
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

/// Builds a rows × cols matrix row by row, in parallel on the host: `length`
/// (row) → its number of entries, `fill`(row, cols, vals) writes exactly
/// that many entries, columns sorted and unique.  The entries are counted
/// and checked against the offset type before anything is allocated.
/// `known_nnz` (when ≥ 0), a count known in closed form, is checked first.
template <class S, class O, class F, class Length, class Fill>
CsrMatrix<S, O, F, HostDevice> build_by_rows(const std::string& spec, long long rows,
                                             long long cols, Length&& length, Fill&& fill,
                                             long long known_nnz = -1) {
  check_generated_size<O, F>(spec, rows, cols, std::max(0LL, known_nnz));
  using Host = Kokkos::DefaultHostExecutionSpace;
  double total = 0;  // in double: a count past 64 bits is still seen
  Kokkos::parallel_reduce(
      "spk::generators::count", Kokkos::RangePolicy<Host>(0, rows),
      [&](const long long r, double& sum) { sum += static_cast<double>(length(r)); }, total);
  SPK_REQUIRE(total < 9.2e18, Overflow, "generator spec '", spec,
              "': the number of entries overflows 64-bit integers");
  check_generated_size<O, F>(spec, rows, cols, static_cast<long long>(total));
  CsrMatrix<S, O, F, HostDevice> A(spec, static_cast<O>(rows), static_cast<O>(cols),
                                   static_cast<F>(total));
  auto rm = A.row_map();
  Kokkos::parallel_for("spk::generators::row_lengths", Kokkos::RangePolicy<Host>(0, rows),
                       [&](const long long r) { rm(r + 1) = static_cast<F>(length(r)); });
  for (long long r = 0; r < rows; ++r) rm(r + 1) += rm(r);
  SPK_REQUIRE(static_cast<double>(rm(rows)) == total, Error, "generator spec '", spec,
              "': row lengths changed between two passes");
  O* ci = A.col_idx().data();
  S* va = A.values().data();
  Kokkos::parallel_for("spk::generators::fill", Kokkos::RangePolicy<Host>(0, rows),
                       [&](const long long r) { fill(r, ci + rm(r), va + rm(r)); });
  return A;
}

/// B's values from A's: a_ij·e^{iθ_ij}, θ from entry_phase (host threads,
/// one row each).
template <class C, class R, class O, class F>
void write_complex_values(const CsrMatrix<R, O, F, HostDevice>& A,
                          const CsrMatrix<C, O, F, HostDevice>& B, std::uint64_t seed,
                          bool hermitian) {
  using CR = typename C::value_type;
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  auto out = B.values();
  Kokkos::parallel_for(
      "spk::generators::complex_values",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, A.num_rows()),
      [&](const long long i) {
        for (F k = rm(i); k < rm(i + 1); ++k) {
          const double v = static_cast<double>(va(k)), t = entry_phase(seed, i, ci(k), hermitian);
          out(k) = C(static_cast<CR>(v * std::cos(t)), static_cast<CR>(v * std::sin(t)));
        }
      });
}

}  // namespace spk::Impl
