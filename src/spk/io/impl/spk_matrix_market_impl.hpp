// Implementation of spk_matrix_market.hpp.  The text is parsed in parallel
// (chunks split at line ends, on the default host execution space): one pass
// counts the entry lines of each chunk, a second parses them into place.
#pragma once

#include <Kokkos_Complex.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <impl/spk_text_io.hpp>
#include <limits>
#include <spk_convert.hpp>
#include <spk_error.hpp>
#include <spk_mirror.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace spk {

inline const char* to_string(MatrixMarketFormat f) {
  return f == MatrixMarketFormat::Coordinate ? "coordinate" : "array";
}
inline const char* to_string(MatrixMarketField f) {
  switch (f) {
    case MatrixMarketField::Real:
      return "real";
    case MatrixMarketField::Integer:
      return "integer";
    case MatrixMarketField::Pattern:
      return "pattern";
    default:
      return "complex";
  }
}
inline const char* to_string(MatrixMarketSymmetry s) {
  switch (s) {
    case MatrixMarketSymmetry::General:
      return "general";
    case MatrixMarketSymmetry::Symmetric:
      return "symmetric";
    case MatrixMarketSymmetry::SkewSymmetric:
      return "skew-symmetric";
    default:
      return "hermitian";
  }
}

namespace Impl {

inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string quote_token(std::string_view s) {
  constexpr size_t max = 40;
  return "'" + std::string(s.substr(0, max)) + (s.size() > max ? "...'" : "'");
}

/// The header and where the data lines start.
struct ParsedHeader {
  MatrixMarketHeader header;
  size_t data_begin = 0;    // offset of the first line after the size line
  long long data_line = 1;  // its 1-based line number
};

inline ParsedHeader parse_header(const std::string& path, const std::string& text) {
  ParsedHeader out;
  auto& h = out.header;
  size_t pos = 0;
  long long line = 0;
  auto next_line = [&](LineCursor& cur) {
    if (pos >= text.size()) return false;
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    cur = LineCursor{text.data() + pos, text.data() + end};
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line;
    return true;
  };
  auto fail = [&](const std::string& what) -> void { throw MatrixMarketError(path, line, what); };

  LineCursor cur{nullptr, nullptr};
  if (!next_line(cur)) {
    line = 1;
    fail("empty file: expected the banner '%%MatrixMarket matrix <format> <field> <symmetry>'");
  }
  const std::string_view banner = cur.token();
  if (banner != "%%MatrixMarket")
    fail("bad banner " + quote_token(banner) +
         ": expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
  const std::string object = lowercase(cur.token());
  if (object != "matrix")
    fail("unsupported object " + quote_token(object) +
         " in the banner (only 'matrix' is supported)");
  const std::string format = lowercase(cur.token());
  const std::string field = lowercase(cur.token());
  const std::string symmetry = lowercase(cur.token());
  if (format == "coordinate")
    h.format = MatrixMarketFormat::Coordinate;
  else if (format == "array")
    h.format = MatrixMarketFormat::Array;
  else
    fail("unknown format " + quote_token(format) + " (expected 'coordinate' or 'array')");
  if (field == "real" || field == "double")
    h.field = MatrixMarketField::Real;
  else if (field == "integer")
    h.field = MatrixMarketField::Integer;
  else if (field == "pattern")
    h.field = MatrixMarketField::Pattern;
  else if (field == "complex")
    h.field = MatrixMarketField::Complex;
  else
    fail("unknown field " + quote_token(field) + " (expected real, integer, pattern or complex)");
  if (symmetry == "general")
    h.symmetry = MatrixMarketSymmetry::General;
  else if (symmetry == "symmetric")
    h.symmetry = MatrixMarketSymmetry::Symmetric;
  else if (symmetry == "skew-symmetric")
    h.symmetry = MatrixMarketSymmetry::SkewSymmetric;
  else if (symmetry == "hermitian")
    h.symmetry = MatrixMarketSymmetry::Hermitian;
  else
    fail("unknown symmetry " + quote_token(symmetry) +
         " (expected general, symmetric, skew-symmetric or hermitian)");
  if (!cur.at_end()) fail("unexpected text " + quote_token(cur.token()) + " after the banner");
  if (h.symmetry == MatrixMarketSymmetry::Hermitian && h.field != MatrixMarketField::Complex)
    fail(std::string("hermitian symmetry needs the field 'complex', not '") + to_string(h.field) +
         "' (a real hermitian matrix is 'symmetric')");
  if (h.format == MatrixMarketFormat::Array && h.field == MatrixMarketField::Pattern)
    fail("an array file cannot have the field 'pattern'");

  // Comments and blank lines, then the size line.
  for (;;) {
    if (!next_line(cur)) {
      if (!text.empty() && text.back() == '\n') ++line;  // the empty line after the last
      fail(h.format == MatrixMarketFormat::Coordinate ? "missing size line 'rows cols entries'"
                                                      : "missing size line 'rows cols'");
    }
    if (cur.p < cur.end && *cur.p == '%') continue;
    if (cur.at_end()) continue;
    break;
  }
  const bool coord = h.format == MatrixMarketFormat::Coordinate;
  const char* expected = coord ? "'rows cols entries'" : "'rows cols'";
  long long v[3] = {0, 0, 0};
  const int want = coord ? 3 : 2;
  for (int i = 0; i < want; ++i) {
    LineCursor probe = cur;
    const std::string_view t = probe.token();
    if (t.empty()) fail(std::string("size line has too few numbers: expected ") + expected);
    if (!cur.integer(v[i]))
      fail("size line: " + quote_token(t) + " is not an integer (or is out of range); expected " +
           expected);
  }
  if (!cur.at_end()) fail(std::string("size line has too many numbers: expected ") + expected);
  if (v[0] < 0 || v[1] < 0 || v[2] < 0)
    fail("negative size in the size line: " + std::to_string(v[0]) + " " + std::to_string(v[1]) +
         (coord ? " " + std::to_string(v[2]) : std::string()));
  h.rows = v[0];
  h.cols = v[1];
  h.size_line = line;
  if (coord) {
    h.entries = v[2];
    if (h.symmetry != MatrixMarketSymmetry::General && h.rows != h.cols)
      fail(std::string(to_string(h.symmetry)) + " matrix must be square, not " +
           std::to_string(h.rows) + " x " + std::to_string(h.cols));
    const long double cells = static_cast<long double>(h.rows) * static_cast<long double>(h.cols);
    if (static_cast<long double>(h.entries) > cells)
      fail("size line declares " + std::to_string(h.entries) + " entries for a " +
           std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix");
  } else {
    if (h.symmetry != MatrixMarketSymmetry::General && h.rows != h.cols)
      fail(std::string(to_string(h.symmetry)) + " array matrix must be square, not " +
           std::to_string(h.rows) + " x " + std::to_string(h.cols));
    const long double n = static_cast<long double>(h.rows);
    // General: every value; symmetric and hermitian: the lower triangle;
    // skew-symmetric: the strictly lower triangle.
    const long double count = h.symmetry == MatrixMarketSymmetry::General
                                  ? n * static_cast<long double>(h.cols)
                              : h.symmetry == MatrixMarketSymmetry::SkewSymmetric ? n * (n - 1) / 2
                                                                                  : n * (n + 1) / 2;
    if (count > 9.0e18L)
      fail("array size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
           " is too large");
    h.entries = static_cast<long long>(count);
  }
  out.data_begin = pos;
  out.data_line = line + 1;
  return out;
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, long>) return "long";
  if constexpr (std::is_same_v<T, long long>) return "long long";
  if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  if constexpr (std::is_same_v<T, short>) return "short";
  return "integer type";
}

/// What the reader needs to know of a matrix's scalar type: whether it is
/// complex, and the real type its values are parsed in (float for float
/// and Kokkos::complex<float>, so that every value is rounded once, from
/// the text; double otherwise).
template <class Scalar>
struct MMScalar {
  static constexpr bool is_complex = false;
  using parse_real = std::conditional_t<std::is_same_v<Scalar, float>, float, double>;
};
template <class T>
struct MMScalar<Kokkos::complex<T>> {
  static constexpr bool is_complex = true;
  using parse_real = std::conditional_t<std::is_same_v<T, float>, float, double>;
};

template <class V>
inline constexpr bool is_mm_complex = MMScalar<V>::is_complex;

template <class V>
bool is_zero_value(const V& v) {
  if constexpr (is_mm_complex<V>)
    return v.real() == 0 && v.imag() == 0;
  else
    return v == 0;
}

/// The value stored at (j, i) for a value at (i, j) under symmetry `sym`.
template <class V>
V mirrored_value(const V& v, MatrixMarketSymmetry sym) {
  if (sym == MatrixMarketSymmetry::SkewSymmetric) return -v;
  if constexpr (is_mm_complex<V>)
    if (sym == MatrixMarketSymmetry::Hermitian) return V(v.real(), -v.imag());
  return v;
}

/// A parsed value (real, or complex for a complex field) as the matrix's
/// scalar: a real value is a complex one with zero imaginary part; a
/// complex value goes into a real scalar only as its real part (the caller
/// has checked MatrixMarketReadOptions::complex_to_real).
template <class Scalar, class V>
Scalar to_matrix_scalar(const V& v) {
  if constexpr (is_mm_complex<Scalar>) {
    using R = typename Scalar::value_type;
    if constexpr (is_mm_complex<V>)
      return Scalar(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else
      return Scalar(static_cast<R>(v), R(0));
  } else if constexpr (is_mm_complex<V>) {
    return static_cast<Scalar>(v.real());
  } else {
    return static_cast<Scalar>(v);
  }
}

/// One parsed stored entry (0-based), before symmetric expansion, its value
/// V real (float or double) or Kokkos::complex of one.
template <class V>
struct BasicMMEntry {
  long long row;
  long long col;
  V value;
  bool skip;  // dropped (out of range) or a zero of an array file
};
using MMEntry = BasicMMEntry<double>;

/// The data lines split into chunks at line ends.
struct Chunks {
  std::vector<size_t> begin;  // chunk c is [begin[c], begin[c+1])
  std::vector<long long> first_line;
  std::vector<long long> first_entry;  // index of the chunk's first entry line
  long long entry_lines = 0;
  long long last_line = 0;
};

inline bool is_entry_line(const char* b, const char* e) {
  while (b < e && is_blank(*b)) ++b;
  return b < e && *b != '%';
}

/// How the reader cuts the text into chunks and runs them.  The defaults
/// give 64 KiB chunks, at most 8 per host thread, in parallel; the fuzz
/// targets use tiny chunks run one after the other to cross chunk
/// boundaries with small inputs.
struct ReaderTuning {
  size_t chunk_bytes = size_t(1) << 16;
  int max_chunks = 0;  // 0: 8 per host thread
  bool serial = false;
};

/// Calls f(c) for every chunk c: in parallel on the host, or in a plain
/// loop when there is one chunk (small inputs spawn no parallel work) or
/// the tuning asks for it.
template <class F>
void for_each_chunk(const char* label, int chunks, const ReaderTuning& tuning, F&& f) {
  if (chunks <= 1 || tuning.serial) {
    for (int c = 0; c < chunks; ++c) f(c);
    return;
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks), f);
  Kokkos::fence();
}

inline Chunks split_chunks(const std::string& text, size_t data_begin, long long data_line,
                           const ReaderTuning& tuning = {}) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  Chunks ch;
  const size_t n = text.size() - std::min(text.size(), data_begin);
  const size_t max_chunks = tuning.max_chunks > 0 ? static_cast<size_t>(tuning.max_chunks)
                                                  : static_cast<size_t>(Host().concurrency()) * 8;
  const int chunks = static_cast<int>(std::max<size_t>(
      1, std::min<size_t>(n / std::max<size_t>(1, tuning.chunk_bytes) + 1, max_chunks)));
  ch.begin.resize(chunks + 1);
  for (int c = 0; c <= chunks; ++c) {
    size_t p = data_begin + n * static_cast<size_t>(c) / static_cast<size_t>(chunks);
    if (c > 0 && c < chunks) {  // move to the start of the next line
      const size_t nl = text.find('\n', p > 0 ? p - 1 : 0);
      p = nl == std::string::npos ? text.size() : nl + 1;
      p = std::max(p, ch.begin[c - 1]);
    }
    ch.begin[c] = c == chunks ? text.size() : p;
  }
  std::vector<long long> lines(chunks, 0), entries(chunks, 0);
  for_each_chunk("spk::mm_count", chunks, tuning, [&](const int c) {
    const char* p = text.data() + ch.begin[c];
    const char* end = text.data() + ch.begin[c + 1];
    long long nl = 0, ne = 0;
    while (p < end) {
      const char* e = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (!e) e = end;
      ++nl;
      ne += is_entry_line(p, e);
      p = e + 1;
    }
    lines[c] = nl;
    entries[c] = ne;
  });
  ch.first_line.resize(chunks + 1);
  ch.first_entry.resize(chunks + 1);
  ch.first_line[0] = data_line;
  ch.first_entry[0] = 0;
  for (int c = 0; c < chunks; ++c) {
    ch.first_line[c + 1] = ch.first_line[c] + lines[c];
    ch.first_entry[c + 1] = ch.first_entry[c] + entries[c];
  }
  ch.entry_lines = ch.first_entry[chunks];
  ch.last_line = ch.first_line[chunks] - 1;
  return ch;
}

/// What parsing one chunk counted: entries dropped (out of range) and kept
/// (after symmetric expansion), and, of the kept off-diagonal entries of a
/// symmetric file, those in the strict upper and lower triangles.
struct ChunkTally {
  long long dropped = 0;
  long long kept = 0;
  long long upper = 0;
  long long lower = 0;
};

/// The first error found in a chunk.
struct ChunkError {
  long long line = std::numeric_limits<long long>::max();
  std::string what;
};

/// Parses one real number (float or double) of an entry: a whole token,
/// and for an integer field an integral value (written with or without
/// decimals).  Returns an error text or an empty string.
template <class R>
std::string parse_number(LineCursor& cur, MatrixMarketField field, R& value) {
  std::string_view t;
  if (field == MatrixMarketField::Integer) {
    LineCursor probe = cur;
    long long iv = 0;
    if (probe.integer(iv)) {
      cur = probe;
      value = static_cast<R>(iv);
      return {};
    }
    // Accept integral values written with decimals ("1.0"), not fractions
    // (checked in double, so that every scalar type refuses the same text).
    double dv = 0;
    if (!cur.real(dv, t))
      return t.empty() ? "missing value" : "value " + quote_token(t) + " is not a number";
    if (std::isfinite(dv) && dv != std::floor(dv))
      return "integer field but value " + quote_token(t) + " has a fractional part";
    if (!std::isfinite(dv)) return "integer field but value " + quote_token(t) + " is not finite";
    value = static_cast<R>(dv);
    return {};
  }
  if (!cur.real(value, t))
    return t.empty() ? "missing value" : "value " + quote_token(t) + " is not a number";
  return {};
}

/// Parses the value tokens of one entry line according to the field (a
/// complex field has two numbers, the real and imaginary parts); returns an
/// error text or an empty string.  V is real or Kokkos::complex; a real V
/// keeps the real part of a complex entry.
template <class V>
std::string parse_value(LineCursor& cur, MatrixMarketField field, V& value) {
  if (field == MatrixMarketField::Pattern) {
    value = V(1);
    return {};
  }
  using R = typename MMScalar<V>::parse_real;
  R re = 0;
  std::string err = parse_number(cur, field, re);
  if (!err.empty()) return err;
  if (field != MatrixMarketField::Complex) {
    value = V(re);
    return {};
  }
  LineCursor probe = cur;
  const std::string_view first_im = probe.token();
  if (first_im.empty())
    return "complex entry has one number: expected the real and the imaginary part";
  R im = 0;
  err = parse_number(cur, field, im);
  if (!err.empty()) return "imaginary part: " + err;
  if constexpr (is_mm_complex<V>)
    value = V(re, im);
  else
    value = re;
  return {};
}

/// Parses the data lines in [p, end) (whole lines; the first is line
/// `line` of the file, its first entry line entry number k), storing entry
/// k at stored[k - base]; tallies the entries and records the first
/// error.  Entries past the declared count are an error.
template <class Entry>
void parse_entry_lines(const char* p, const char* end, const MatrixMarketHeader& h, long long line,
                       long long k, const MatrixMarketReadOptions& options, Entry* stored,
                       long long base, ChunkError& err, ChunkTally& tally) {
  const bool coord = h.format == MatrixMarketFormat::Coordinate;
  const long long declared = h.entries;
  const auto sym = h.symmetry;
  auto error = [&](const std::string& what) {
    err.line = line;
    err.what = what;
  };
  for (; p < end; ++line) {
    const char* e = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!e) e = end;
    LineCursor cur{p, e};
    p = e + 1;
    if (!is_entry_line(cur.p, cur.end)) continue;
    if (k >= declared) {
      error("more entries than the " + std::to_string(declared) + " declared in the size line");
      return;
    }
    Entry en{0, 0, {}, false};
    if (coord) {
      LineCursor probe = cur;
      const std::string_view t1 = probe.token();
      if (!cur.integer(en.row)) return error("row index " + quote_token(t1) + " is not an integer");
      probe = cur;
      const std::string_view t2 = probe.token();
      if (t2.empty()) return error("missing column index and value");
      if (!cur.integer(en.col))
        return error("column index " + quote_token(t2) + " is not an integer");
    } else {
      // Column-major position of the k-th listed value.
      long long i = 0, j = 0;
      if (sym == MatrixMarketSymmetry::General) {
        j = k / std::max(1LL, h.rows);
        i = k % std::max(1LL, h.rows);
      } else {  // lower triangle (strictly lower for skew), by columns
        const long long n = h.rows;
        const long long d = sym == MatrixMarketSymmetry::SkewSymmetric ? 1 : 0;
        // Column j starts after sum_{t<j} (n - t - d) values: binary search j
        // (in 128 bits: col * (n - d) overflows 64 for declared n > 3e9).
        auto start = [&](long long col) {
          const __int128 c = col;
          return c * (n - d) - c * (col - 1) / 2;
        };
        long long lo = 0, hi = n;
        while (hi - lo > 1) {
          const long long mid = (lo + hi) / 2;
          (start(mid) <= k ? lo : hi) = mid;
        }
        j = lo;
        i = j + d + static_cast<long long>(k - start(j));
      }
      en.row = i + 1;
      en.col = j + 1;
    }
    const std::string verr = parse_value(cur, h.field, en.value);
    if (!verr.empty()) return error(verr);
    if (!cur.at_end())
      return error("unexpected text " + quote_token(cur.token()) + " after the entry");
    if (en.row < 1 || en.row > h.rows || en.col < 1 || en.col > h.cols) {
      if (options.drop_out_of_range) {
        ++tally.dropped;
        en.skip = true;
        stored[k++ - base] = en;
        continue;
      }
      return error("entry (" + std::to_string(en.row) + ", " + std::to_string(en.col) +
                   ") is outside the " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                   " matrix (indices are 1-based)");
    }
    if (coord && sym == MatrixMarketSymmetry::SkewSymmetric && en.row == en.col &&
        !is_zero_value(en.value))
      return error("skew-symmetric matrix has a nonzero diagonal entry (" + std::to_string(en.row) +
                   ", " + std::to_string(en.col) + ")");
    if constexpr (is_mm_complex<decltype(en.value)>)
      if (sym == MatrixMarketSymmetry::Hermitian && en.row == en.col && en.value.imag() != 0)
        return error("hermitian matrix has a diagonal entry (" + std::to_string(en.row) + ", " +
                     std::to_string(en.col) + ") with a nonzero imaginary part");
    if (!coord && is_zero_value(en.value)) {  // array zeros are not entries
      en.skip = true;
      stored[k++ - base] = en;
      continue;
    }
    ++tally.kept;
    if (sym != MatrixMarketSymmetry::General && en.row != en.col) {
      ++tally.kept;
      ++(en.row < en.col ? tally.upper : tally.lower);
    }
    en.row -= 1;
    en.col -= 1;
    stored[k++ - base] = en;
  }
}

}  // namespace Impl

namespace Impl {

/// A count for a message: exact while it fits, else in scientific notation.
inline std::string count_text(long double n) {
  if (n <= 9.0e18L) return std::to_string(static_cast<long long>(n));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3Le", n);
  return buf;
}

/// Refuses an allocation of `elements` (what the size line declares) that
/// the file's `entries` do not justify (see declared_size_floor in
/// spk_matrix_market.hpp), unless the caller trusts the declared size.
/// `confirmed`: elements the caller has confirmed otherwise.
inline void check_declared_allocation(const std::string& path, const MatrixMarketHeader& h,
                                      const char* what, long double elements, long long entries,
                                      long long confirmed, const MatrixMarketReadOptions& options) {
  if (options.trust_declared_size) return;
  const long double limit = std::max({static_cast<long double>(declared_size_floor),
                                      static_cast<long double>(declared_size_per_entry) * entries,
                                      static_cast<long double>(confirmed)});
  if (elements <= limit) return;
  throw MatrixMarketError(
      path, h.size_line,
      "the size line declares " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
          " but the file holds " + std::to_string(entries) + " entries: " + what + " would need " +
          count_text(elements) + " elements, more than the " + count_text(limit) +
          " its entries justify (max(2^22, " + std::to_string(declared_size_per_entry) +
          " per entry)); set MatrixMarketReadOptions::trust_declared_size to allocate it anyway");
}

/// The line of entry line k (0-based, counting entry lines only).
inline long long line_of_entry(const std::string& text, const Chunks& ch, long long k) {
  const int c = static_cast<int>(std::upper_bound(ch.first_entry.begin(), ch.first_entry.end(), k) -
                                 ch.first_entry.begin() - 1);
  const char* p = text.data() + ch.begin[c];
  const char* end = text.data() + ch.begin[c + 1];
  long long e = ch.first_entry[c];
  for (long long line = ch.first_line[c]; p < end; ++line) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!nl) nl = end;
    if (is_entry_line(p, nl) && e++ == k) return line;
    p = nl + 1;
  }
  return 0;
}

/// The refusal of a symmetric file that stores entry (row_a, col_a) at
/// line_a and its mirror (row_b, col_b) later (0-based indices).
inline std::string mirrored_pair_reason(const MatrixMarketHeader& h, long long row_b,
                                        long long col_b, long long row_a, long long col_a,
                                        long long line_a) {
  return "entry (" + std::to_string(row_b + 1) + ", " + std::to_string(col_b + 1) +
         ") mirrors entry (" + std::to_string(row_a + 1) + ", " + std::to_string(col_a + 1) +
         ") at line " + std::to_string(line_a) + ": a " + to_string(h.symmetry) +
         " file stores one triangle, and spk refuses a file holding both (i, j) and (j, i) "
         "rather than guess whether to sum them";
}

/// An off-diagonal entry of a symmetric file: (larger index, smaller index,
/// entry number, 1 above the diagonal / 0 below); a std type, so that
/// std::sort's swap is found by ADL in std only.
using TriangleKey = std::array<long long, 4>;

/// The key of an off-diagonal entry (row != col), entry number k.
inline TriangleKey triangle_key(long long row, long long col, long long k) {
  return {std::max(row, col), std::min(row, col), k, row < col ? 1 : 0};
}

/// Sorts `keys` and finds the pair stored in both triangles that is
/// completed first in file order: {later entry, earlier entry} (each side's
/// first entry; repeats within a side are ordinary duplicates), or
/// {LLONG_MAX, -1} when there is none.
inline std::array<long long, 2> first_mirrored_pair(std::vector<TriangleKey>& keys) {
  std::sort(keys.begin(), keys.end());
  std::array<long long, 2> pair = {std::numeric_limits<long long>::max(), -1};
  for (size_t b = 0; b < keys.size();) {
    size_t e = b;
    long long first_side[2] = {-1, -1};  // the run is sorted by entry number
    for (; e < keys.size() && keys[e][0] == keys[b][0] && keys[e][1] == keys[b][1]; ++e)
      if (first_side[keys[e][3]] < 0) first_side[keys[e][3]] = keys[e][2];
    if (first_side[0] >= 0 && first_side[1] >= 0 &&
        std::max(first_side[0], first_side[1]) < pair[0])
      pair = {std::max(first_side[0], first_side[1]), std::min(first_side[0], first_side[1])};
    b = e;
  }
  return pair;
}

/// A symmetric (or skew-symmetric) coordinate file stores one triangle;
/// one that holds both (i, j) and (j, i) is refused, naming both lines
/// (summing them would double the entry, keeping one would drop data: no
/// rule is right for every writer).  Called only when the file has
/// entries in both strict triangles, which is rare and allowed as long as
/// no pair is stored twice.
template <class Entry>
void check_one_triangle(const std::string& path, const std::string& text, const Chunks& ch,
                        const MatrixMarketHeader& h, const std::vector<Entry>& stored) {
  std::vector<TriangleKey> keys;
  for (long long k = 0; k < static_cast<long long>(stored.size()); ++k) {
    const Entry& e = stored[k];
    if (!e.skip && e.row != e.col) keys.push_back(triangle_key(e.row, e.col, k));
  }
  const auto [later, earlier] = first_mirrored_pair(keys);
  if (earlier < 0) return;
  const Entry& a = stored[earlier];
  const Entry& b = stored[later];
  throw MatrixMarketError(
      path, line_of_entry(text, ch, later),
      mirrored_pair_reason(h, b.row, b.col, a.row, a.col, line_of_entry(text, ch, earlier)));
}

/// A complex file goes into a real matrix only when the caller asks for
/// the real part (MatrixMarketReadOptions::complex_to_real).
template <class Scalar>
void check_field_fits_scalar(const std::string& path, const MatrixMarketHeader& h,
                             const MatrixMarketReadOptions& options) {
  if constexpr (!MMScalar<Scalar>::is_complex) {
    if (h.field == MatrixMarketField::Complex && options.complex_to_real == ComplexPart::Refuse)
      throw MatrixMarketError(
          path, 1,
          "the field is 'complex' but the matrix's scalar type is real: read it into "
          "Kokkos::complex<float> or Kokkos::complex<double>, or set "
          "MatrixMarketReadOptions::complex_to_real = spk::ComplexPart::Real to keep the real "
          "parts");
  }
}

/// parse_matrix_market's entries, parsed as values of type V (real or
/// complex), expanded and stored into out.coo.
template <class V, class Scalar, class Ordinal, class Offset>
void parse_entries(const std::string& path, const std::string& text, const ParsedHeader& ph,
                   const MatrixMarketReadOptions& options, const ReaderTuning& tuning,
                   MatrixMarketContents<Scalar, Ordinal, Offset>& out) {
  const MatrixMarketHeader& h = ph.header;
  auto fail = [&](long long line, const std::string& what) {
    throw MatrixMarketError(path, line, what);
  };
  const Chunks ch = split_chunks(text, ph.data_begin, ph.data_line, tuning);
  const int chunks = static_cast<int>(ch.begin.size()) - 1;
  const long long declared = h.entries;

  // Parse every stored entry into place (entries past the declared count are
  // only located, for the error message).  The storage is bounded by the
  // entry lines the text holds, whatever the size line claims.
  std::vector<BasicMMEntry<V>> stored(static_cast<size_t>(std::min(declared, ch.entry_lines)));
  std::vector<ChunkError> errors(chunks);
  std::vector<ChunkTally> tally(chunks);
  const auto sym = h.symmetry;
  for_each_chunk("spk::mm_parse", chunks, tuning, [&](const int c) {
    parse_entry_lines(text.data() + ch.begin[c], text.data() + ch.begin[c + 1], h, ch.first_line[c],
                      ch.first_entry[c], options, stored.data(), 0, errors[c], tally[c]);
  });
  const auto first_error = std::min_element(errors.begin(), errors.end(),
                                            [](auto& a, auto& b) { return a.line < b.line; });
  if (first_error != errors.end() && first_error->line != std::numeric_limits<long long>::max())
    fail(first_error->line, first_error->what);
  if (ch.entry_lines < declared) {
    // The line where the file ends: the empty one after a final newline.
    const long long end_line =
        text.empty() || text.back() == '\n' ? ch.last_line + 1 : ch.last_line;
    fail(end_line, "file ends after " + std::to_string(ch.entry_lines) + " of the " +
                       std::to_string(declared) + " declared entries");
  }

  // Compact (dropped entries, array zeros) and expand symmetric storage: each
  // chunk writes its kept entries, mirrored ones right after, from its offset.
  std::vector<long long> out_begin(chunks + 1, 0);
  long long upper = 0, lower = 0;
  for (int c = 0; c < chunks; ++c) {
    out_begin[c + 1] = out_begin[c] + tally[c].kept;
    out.dropped_entries += tally[c].dropped;
    upper += tally[c].upper;
    lower += tally[c].lower;
  }
  if (h.format == MatrixMarketFormat::Coordinate && upper > 0 && lower > 0)
    check_one_triangle(path, text, ch, h, stored);
  const long long total = out_begin[chunks];
  if (static_cast<unsigned long long>(total) >
      static_cast<unsigned long long>(std::numeric_limits<Offset>::max()))
    fail(0, "expanding the " + std::string(to_string(sym)) + " storage gives " +
                std::to_string(total) + " entries, which do not fit the offset type " +
                type_name<Offset>() + " (max " +
                std::to_string(std::numeric_limits<Offset>::max()) + ")");
  out.coo = CooMatrix<Scalar, Ordinal, Offset, HostDevice>(
      path, static_cast<Ordinal>(h.rows), static_cast<Ordinal>(h.cols), static_cast<Offset>(total));
  auto ri = out.coo.row_idx();
  auto ci = out.coo.col_idx();
  auto va = out.coo.values();
  for_each_chunk("spk::mm_fill", chunks, tuning, [&](const int c) {
    long long o = out_begin[c];
    const long long last = std::min(ch.first_entry[c + 1], declared);
    for (long long k = ch.first_entry[c]; k < last; ++k) {
      const BasicMMEntry<V>& en = stored[k];
      if (en.skip) continue;
      ri(o) = static_cast<Ordinal>(en.row);
      ci(o) = static_cast<Ordinal>(en.col);
      va(o) = to_matrix_scalar<Scalar>(en.value);
      ++o;
      if (sym != MatrixMarketSymmetry::General && en.row != en.col) {
        ri(o) = static_cast<Ordinal>(en.col);
        ci(o) = static_cast<Ordinal>(en.row);
        va(o) = to_matrix_scalar<Scalar>(mirrored_value(en.value, sym));
        ++o;
      }
    }
  });
}

/// read_matrix_market on text already in memory (`path` names it in
/// errors).
template <class Scalar, class Ordinal, class Offset>
MatrixMarketContents<Scalar, Ordinal, Offset> parse_matrix_market(
    const std::string& path, const std::string& text, const MatrixMarketReadOptions& options,
    const ReaderTuning& tuning = {}) {
  const ParsedHeader ph = parse_header(path, text);
  const MatrixMarketHeader& h = ph.header;
  MatrixMarketContents<Scalar, Ordinal, Offset> out;
  out.header = h;

  auto fail = [&](long long line, const std::string& what) {
    throw MatrixMarketError(path, line, what);
  };
  check_field_fits_scalar<Scalar>(path, h, options);
  if (options.required_rows >= 0 && h.rows != options.required_rows)
    fail(h.size_line, "the size line declares " + std::to_string(h.rows) + " rows; " +
                          std::to_string(options.required_rows) + " are required");
  if (h.rows > static_cast<long long>(std::numeric_limits<Ordinal>::max()) ||
      h.cols > static_cast<long long>(std::numeric_limits<Ordinal>::max()))
    fail(h.size_line, "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                          " does not fit the ordinal type " + type_name<Ordinal>() + " (max " +
                          std::to_string(std::numeric_limits<Ordinal>::max()) + ")");
  if (static_cast<unsigned long long>(h.entries) >
      static_cast<unsigned long long>(std::numeric_limits<Offset>::max()))
    fail(h.size_line, std::to_string(h.entries) + " entries do not fit the offset type " +
                          type_name<Offset>() + " (max " +
                          std::to_string(std::numeric_limits<Offset>::max()) + ")");

  // Values are parsed in the scalar's precision (float or double), and as
  // complex numbers only for a complex field: the entries of a real file
  // stay as small as they are for a real matrix.
  using R = typename MMScalar<Scalar>::parse_real;
  if (h.field == MatrixMarketField::Complex)
    parse_entries<Kokkos::complex<R>>(path, text, ph, options, tuning, out);
  else
    parse_entries<R>(path, text, ph, options, tuning, out);
  return out;
}

/// Host CSR of read contents, after the row-map size check (`path` names
/// the file in errors).
template <class Scalar, class Ordinal, class Offset>
CsrMatrix<Scalar, Ordinal, Offset, HostDevice> csr_from_contents(
    const std::string& path, const MatrixMarketContents<Scalar, Ordinal, Offset>& contents,
    const MatrixMarketReadOptions& options) {
  check_declared_allocation(
      path, contents.header, "the CSR row map", static_cast<long double>(contents.header.rows) + 1,
      static_cast<long long>(contents.coo.nnz()), options.required_rows + 1, options);
  return coo_to_csr(Kokkos::DefaultHostExecutionSpace(), contents.coo);
}

/// read_dense on text already in memory.
template <class Scalar>
Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> dense_from_text(
    const std::string& path, const std::string& text, const MatrixMarketReadOptions& options,
    const ReaderTuning& tuning = {}) {
  const auto contents =
      parse_matrix_market<Scalar, long long, long long>(path, text, options, tuning);
  const MatrixMarketHeader& h = contents.header;
  const auto& coo = contents.coo;
  const long double cells = static_cast<long double>(h.rows) * static_cast<long double>(h.cols);
  check_declared_allocation(path, h, "the dense matrix", cells,
                            std::max(h.entries, static_cast<long long>(coo.nnz())),
                            options.required_rows, options);
  if (cells * sizeof(Scalar) > static_cast<long double>(std::numeric_limits<std::ptrdiff_t>::max()))
    throw MatrixMarketError(path, h.size_line,
                            "a dense " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                " matrix does not fit in memory");
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> dense(path, static_cast<size_t>(h.rows),
                                                               static_cast<size_t>(h.cols));
  for (long long k = 0; k < coo.nnz(); ++k)
    dense(coo.row_idx()(k), coo.col_idx()(k)) += coo.values()(k);
  return dense;
}

}  // namespace Impl

inline MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  // Headers are short: parse the first 64 KiB of the (decompressed) text,
  // and all of it only when the size line is not complete there.
  constexpr size_t prefix = size_t(1) << 16;
  std::string text = Impl::read_file(path, prefix);
  if (text.size() == prefix) {
    try {
      const Impl::ParsedHeader ph = Impl::parse_header(path, text);
      if (ph.data_begin < text.size()) return ph.header;
    } catch (const MatrixMarketError&) {
    }
    text = Impl::read_file(path);
  }
  return Impl::parse_header(path, text).header;
}

template <class Scalar, class Ordinal, class Offset>
MatrixMarketContents<Scalar, Ordinal, Offset> read_matrix_market(
    const std::string& path, const MatrixMarketReadOptions& options) {
  return Impl::parse_matrix_market<Scalar, Ordinal, Offset>(path, Impl::read_file(path), options);
}

template <class Scalar, class Ordinal, class Offset>
CsrMatrix<Scalar, Ordinal, Offset, HostDevice> read_csr(const std::string& path,
                                                        const MatrixMarketReadOptions& options) {
  return Impl::csr_from_contents(path, read_matrix_market<Scalar, Ordinal, Offset>(path, options),
                                 options);
}

template <class Scalar>
Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> read_dense(
    const std::string& path, const MatrixMarketReadOptions& options) {
  return Impl::dense_from_text<Scalar>(path, Impl::read_file(path), options);
}

namespace Impl {

inline void append_int(std::string& s, long long v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

/// The shortest text that reads back to the same value (for float, the
/// same float: at most max_digits10 = 9 significant digits).
template <class R>
void append_real(std::string& s, R v) {
  static_assert(std::is_floating_point_v<R>);
  char buf[48];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

/// One value of a matrix or vector: a float or double as it is, another
/// real type as double, a complex one as its real and imaginary parts.
template <class S>
void append_value(std::string& s, const S& v) {
  if constexpr (is_mm_complex<S>) {
    append_value(s, v.real());
    s += ' ';
    append_value(s, v.imag());
  } else if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>) {
    append_real(s, v);
  } else {
    append_real(s, static_cast<double>(v));
  }
}

/// The banner of a general matrix with values of type S.
template <class S>
std::string banner(const char* format) {
  return std::string("%%MatrixMarket matrix ") + format +
         (is_mm_complex<std::remove_cv_t<S>> ? " complex general\n" : " real general\n") +
         "% written by spk " SPK_VERSION_STRING "\n";
}

template <class RowOf, class Cols, class Vals>
void write_coordinate(const std::string& path, long long rows, long long cols, long long nnz,
                      RowOf row_of, const Cols& ci, const Vals& va) {
  using S = typename Vals::non_const_value_type;
  std::string s;
  s.reserve(static_cast<size_t>(nnz) * (is_mm_complex<S> ? 56 : 32) + 128);
  s += banner<S>("coordinate");
  append_int(s, rows);
  s += ' ';
  append_int(s, cols);
  s += ' ';
  append_int(s, nnz);
  s += '\n';
  for (long long k = 0; k < nnz; ++k) {
    append_int(s, static_cast<long long>(row_of(k)) + 1);
    s += ' ';
    append_int(s, static_cast<long long>(ci(k)) + 1);
    s += ' ';
    append_value(s, va(k));
    s += '\n';
  }
  write_file(path, s);
}

}  // namespace Impl

template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = create_mirror_view_and_copy_host(A_in);
  // Row of entry k: walk the row pointers alongside k (entries are written in order).
  const auto rm = A.row_map();
  long long row = 0;
  auto row_of = [&](long long k) {
    while (row < A.num_rows() && static_cast<long long>(rm(row + 1)) <= k) ++row;
    return row;
  };
  Impl::write_coordinate(path, A.num_rows(), A.num_cols(), A.nnz(), row_of, A.col_idx(),
                         A.values());
}

template <class S, class O, class F, class D>
void write_matrix_market(const std::string& path, const CooMatrix<S, O, F, D>& A_in) {
  const auto A = create_mirror_view_and_copy_host(A_in);
  const auto ri = A.row_idx();
  Impl::write_coordinate(
      path, A.num_rows(), A.num_cols(), A.nnz(), [&](long long k) { return ri(k); }, A.col_idx(),
      A.values());
}

template <class View>
void write_matrix_market_array(const std::string& path, const View& v_in) {
  static_assert(View::rank == 1 || View::rank == 2, "write_matrix_market_array: rank 1 or 2");
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v_in);
  const long long rows = static_cast<long long>(v.extent(0));
  const long long cols = View::rank == 2 ? static_cast<long long>(v.extent(1)) : 1;
  using S = typename View::non_const_value_type;
  std::string s;
  s.reserve(static_cast<size_t>(rows * cols) * (Impl::is_mm_complex<S> ? 48 : 24) + 128);
  s += Impl::banner<S>("array");
  Impl::append_int(s, rows);
  s += ' ';
  Impl::append_int(s, cols);
  s += '\n';
  for (long long j = 0; j < cols; ++j)
    for (long long i = 0; i < rows; ++i) {
      if constexpr (View::rank == 1)
        Impl::append_value(s, v(i));
      else
        Impl::append_value(s, v(i, j));
      s += '\n';
    }
  Impl::write_file(path, s);
}

}  // namespace spk
