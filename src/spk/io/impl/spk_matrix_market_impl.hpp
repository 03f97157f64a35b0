// Implementation of spk_matrix_market.hpp.  The text is parsed in parallel
// (chunks split at line ends, on the default host execution space): one pass
// counts the entry lines of each chunk, a second parses them into place.
#pragma once

#include <algorithm>
#include <cmath>
#include <impl/spk_text_io.hpp>
#include <limits>
#include <spk_convert.hpp>
#include <spk_error.hpp>
#include <spk_mirror.hpp>
#include <string>
#include <string_view>
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
  if (h.field == MatrixMarketField::Complex)
    fail(
        "complex matrices are not supported yet (field 'complex'); spk reads real, integer and "
        "pattern");
  if (h.symmetry == MatrixMarketSymmetry::Hermitian)
    fail("hermitian matrices are not supported yet (they need a complex field)");
  if (h.format == MatrixMarketFormat::Array && h.field == MatrixMarketField::Pattern)
    fail("an array file cannot have the field 'pattern'");

  // Comments and blank lines, then the size line.
  for (;;) {
    if (!next_line(cur)) {
      ++line;
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
  if (coord) {
    h.entries = v[2];
    const long double cells = static_cast<long double>(h.rows) * static_cast<long double>(h.cols);
    if (static_cast<long double>(h.entries) > cells)
      fail("size line declares " + std::to_string(h.entries) + " entries for a " +
           std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix");
  } else {
    if (h.symmetry != MatrixMarketSymmetry::General && h.rows != h.cols)
      fail(std::string(to_string(h.symmetry)) + " array matrix must be square, not " +
           std::to_string(h.rows) + " x " + std::to_string(h.cols));
    const long double n = static_cast<long double>(h.rows);
    const long double count = h.symmetry == MatrixMarketSymmetry::General
                                  ? n * static_cast<long double>(h.cols)
                              : h.symmetry == MatrixMarketSymmetry::Symmetric ? n * (n + 1) / 2
                                                                              : n * (n - 1) / 2;
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

/// One parsed stored entry (0-based), before symmetric expansion.
struct MMEntry {
  long long row;
  long long col;
  double value;
  bool skip;  // dropped (out of range) or a zero of an array file
};

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

inline Chunks split_chunks(const std::string& text, size_t data_begin, long long data_line) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  Chunks ch;
  const size_t n = text.size() - std::min(text.size(), data_begin);
  const int chunks = static_cast<int>(std::max<size_t>(
      1, std::min<size_t>(n / (1 << 16) + 1, static_cast<size_t>(Host().concurrency()) * 8)));
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
  Kokkos::parallel_for("spk::mm_count", Kokkos::RangePolicy<Host>(0, chunks), [&](const int c) {
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
  Kokkos::fence();
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

/// The first error found in a chunk.
struct ChunkError {
  long long line = std::numeric_limits<long long>::max();
  std::string what;
};

/// Parses the value tokens of one entry line according to the field; returns
/// an error text or an empty string.
inline std::string parse_value(LineCursor& cur, MatrixMarketField field, double& value) {
  if (field == MatrixMarketField::Pattern) {
    value = 1.0;
    return {};
  }
  std::string_view t;
  if (field == MatrixMarketField::Integer) {
    LineCursor probe = cur;
    long long iv = 0;
    if (probe.integer(iv)) {
      cur = probe;
      value = static_cast<double>(iv);
      return {};
    }
    // Accept integral values written with decimals ("1.0"), not fractions.
    if (!cur.real(value, t))
      return t.empty() ? "missing value" : "value " + quote_token(t) + " is not a number";
    if (std::isfinite(value) && value != std::floor(value))
      return "integer field but value " + quote_token(t) + " has a fractional part";
    if (!std::isfinite(value))
      return "integer field but value " + quote_token(t) + " is not finite";
    return {};
  }
  if (!cur.real(value, t))
    return t.empty() ? "missing value" : "value " + quote_token(t) + " is not a number";
  return {};
}

/// Parses the data lines in [p, end) (whole lines; the first is line
/// `line` of the file, its first entry line entry number k), storing entry
/// k at stored[k - base]; counts the dropped and the kept entries (kept:
/// after symmetric expansion) and records the first error.  Entries past
/// the declared count are an error.
inline void parse_entry_lines(const char* p, const char* end, const MatrixMarketHeader& h,
                              long long line, long long k, const MatrixMarketReadOptions& options,
                              MMEntry* stored, long long base, ChunkError& err, long long& dropped,
                              long long& kept) {
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
    MMEntry en{0, 0, 0.0, false};
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
        const long long d = sym == MatrixMarketSymmetry::Symmetric ? 0 : 1;
        // Column j starts after sum_{t<j} (n - t - d) values: binary search j.
        auto start = [&](long long col) { return col * (n - d) - col * (col - 1) / 2; };
        long long lo = 0, hi = n;
        while (hi - lo > 1) {
          const long long mid = (lo + hi) / 2;
          (start(mid) <= k ? lo : hi) = mid;
        }
        j = lo;
        i = j + d + (k - start(j));
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
        ++dropped;
        en.skip = true;
        stored[k++ - base] = en;
        continue;
      }
      return error("entry (" + std::to_string(en.row) + ", " + std::to_string(en.col) +
                   ") is outside the " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                   " matrix (indices are 1-based)");
    }
    if (coord && sym == MatrixMarketSymmetry::SkewSymmetric && en.row == en.col && en.value != 0.0)
      return error("skew-symmetric matrix has a nonzero diagonal entry (" + std::to_string(en.row) +
                   ", " + std::to_string(en.col) + ")");
    if (!coord && en.value == 0.0) {  // array zeros are not entries
      en.skip = true;
      stored[k++ - base] = en;
      continue;
    }
    ++kept;
    if (sym != MatrixMarketSymmetry::General && en.row != en.col) ++kept;
    en.row -= 1;
    en.col -= 1;
    stored[k++ - base] = en;
  }
}

}  // namespace Impl

inline MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  // Headers are short: read the first 64 KB of the (decompressed) file.
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz)
    throw MatrixMarketError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::string text(1 << 16, '\0');
  const int n = gzread(gz, &text[0], static_cast<unsigned>(text.size()));
  gzclose(gz);
  if (n < 0) throw MatrixMarketError(path, 0, "cannot read file");
  text.resize(static_cast<size_t>(n));
  return Impl::parse_header(path, text).header;
}

template <class Scalar, class Ordinal, class Offset>
MatrixMarketContents<Scalar, Ordinal, Offset> read_matrix_market(
    const std::string& path, const MatrixMarketReadOptions& options) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const std::string text = Impl::read_file(path);
  const Impl::ParsedHeader ph = Impl::parse_header(path, text);
  const MatrixMarketHeader& h = ph.header;
  MatrixMarketContents<Scalar, Ordinal, Offset> out;
  out.header = h;

  auto fail = [&](long long line, const std::string& what) {
    throw MatrixMarketError(path, line, what);
  };
  if (h.rows > static_cast<long long>(std::numeric_limits<Ordinal>::max()) ||
      h.cols > static_cast<long long>(std::numeric_limits<Ordinal>::max()))
    fail(ph.data_line - 1, "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                               " does not fit the ordinal type " + Impl::type_name<Ordinal>() +
                               " (max " + std::to_string(std::numeric_limits<Ordinal>::max()) +
                               ")");
  if (static_cast<unsigned long long>(h.entries) >
      static_cast<unsigned long long>(std::numeric_limits<Offset>::max()))
    fail(ph.data_line - 1, std::to_string(h.entries) + " entries do not fit the offset type " +
                               Impl::type_name<Offset>() + " (max " +
                               std::to_string(std::numeric_limits<Offset>::max()) + ")");

  const Impl::Chunks ch = Impl::split_chunks(text, ph.data_begin, ph.data_line);
  const int chunks = static_cast<int>(ch.begin.size()) - 1;
  const long long declared = h.entries;

  // Parse every stored entry into place (entries past the declared count are
  // only located, for the error message).
  std::vector<Impl::MMEntry> stored(static_cast<size_t>(std::min(declared, ch.entry_lines)));
  std::vector<Impl::ChunkError> errors(chunks);
  std::vector<long long> dropped(chunks, 0), kept(chunks, 0);
  const auto sym = h.symmetry;
  Kokkos::parallel_for("spk::mm_parse", Kokkos::RangePolicy<Host>(0, chunks), [&](const int c) {
    Impl::parse_entry_lines(text.data() + ch.begin[c], text.data() + ch.begin[c + 1], h,
                            ch.first_line[c], ch.first_entry[c], options, stored.data(), 0,
                            errors[c], dropped[c], kept[c]);
  });
  Kokkos::fence();
  const auto first_error = std::min_element(errors.begin(), errors.end(),
                                            [](auto& a, auto& b) { return a.line < b.line; });
  if (first_error != errors.end() && first_error->line != std::numeric_limits<long long>::max())
    fail(first_error->line, first_error->what);
  if (ch.entry_lines < declared)
    fail(ch.last_line + 1, "file ends after " + std::to_string(ch.entry_lines) + " of the " +
                               std::to_string(declared) + " declared entries");

  // Compact (dropped entries, array zeros) and expand symmetric storage: each
  // chunk writes its kept entries, mirrored ones right after, from its offset.
  std::vector<long long> out_begin(chunks + 1, 0);
  for (int c = 0; c < chunks; ++c) {
    out_begin[c + 1] = out_begin[c] + kept[c];
    out.dropped_entries += dropped[c];
  }
  const long long total = out_begin[chunks];
  if (static_cast<unsigned long long>(total) >
      static_cast<unsigned long long>(std::numeric_limits<Offset>::max()))
    fail(0, "expanding the " + std::string(to_string(sym)) + " storage gives " +
                std::to_string(total) + " entries, which do not fit the offset type " +
                Impl::type_name<Offset>() + " (max " +
                std::to_string(std::numeric_limits<Offset>::max()) + ")");
  out.coo = CooMatrix<Scalar, Ordinal, Offset, HostDevice>(
      path, static_cast<Ordinal>(h.rows), static_cast<Ordinal>(h.cols), static_cast<Offset>(total));
  auto ri = out.coo.row_idx();
  auto ci = out.coo.col_idx();
  auto va = out.coo.values();
  const double mirror_sign = sym == MatrixMarketSymmetry::SkewSymmetric ? -1.0 : 1.0;
  Kokkos::parallel_for("spk::mm_fill", Kokkos::RangePolicy<Host>(0, chunks), [&](const int c) {
    long long o = out_begin[c];
    const long long last = std::min(ch.first_entry[c + 1], declared);
    for (long long k = ch.first_entry[c]; k < last; ++k) {
      const Impl::MMEntry& en = stored[k];
      if (en.skip) continue;
      ri(o) = static_cast<Ordinal>(en.row);
      ci(o) = static_cast<Ordinal>(en.col);
      va(o) = static_cast<Scalar>(en.value);
      ++o;
      if (sym != MatrixMarketSymmetry::General && en.row != en.col) {
        ri(o) = static_cast<Ordinal>(en.col);
        ci(o) = static_cast<Ordinal>(en.row);
        va(o) = static_cast<Scalar>(mirror_sign * en.value);
        ++o;
      }
    }
  });
  Kokkos::fence();
  return out;
}

template <class Scalar, class Ordinal, class Offset>
CsrMatrix<Scalar, Ordinal, Offset, HostDevice> read_csr(const std::string& path,
                                                        const MatrixMarketReadOptions& options) {
  const auto contents = read_matrix_market<Scalar, Ordinal, Offset>(path, options);
  return coo_to_csr(Kokkos::DefaultHostExecutionSpace(), contents.coo);
}

template <class Scalar>
Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> read_dense(const std::string& path) {
  const auto contents = read_matrix_market<Scalar, long long, long long>(path);
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice> dense(
      path, static_cast<size_t>(contents.header.rows), static_cast<size_t>(contents.header.cols));
  const auto& coo = contents.coo;
  for (long long k = 0; k < coo.nnz(); ++k)
    dense(coo.row_idx()(k), coo.col_idx()(k)) += coo.values()(k);
  return dense;
}

namespace Impl {

inline void append_int(std::string& s, long long v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

inline void append_real(std::string& s, double v) {
  char buf[40];
  // Shortest representation that reads back to the same double.
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

template <class RowOf, class Cols, class Vals>
void write_coordinate(const std::string& path, long long rows, long long cols, long long nnz,
                      RowOf row_of, const Cols& ci, const Vals& va) {
  std::string s;
  s.reserve(static_cast<size_t>(nnz) * 32 + 128);
  s += "%%MatrixMarket matrix coordinate real general\n% written by spk " SPK_VERSION_STRING "\n";
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
    append_real(s, static_cast<double>(va(k)));
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
  std::string s;
  s.reserve(static_cast<size_t>(rows * cols) * 24 + 128);
  s += "%%MatrixMarket matrix array real general\n% written by spk " SPK_VERSION_STRING "\n";
  Impl::append_int(s, rows);
  s += ' ';
  Impl::append_int(s, cols);
  s += '\n';
  for (long long j = 0; j < cols; ++j)
    for (long long i = 0; i < rows; ++i) {
      if constexpr (View::rank == 1)
        Impl::append_real(s, static_cast<double>(v(i)));
      else
        Impl::append_real(s, static_cast<double>(v(i, j)));
      s += '\n';
    }
  Impl::write_file(path, s);
}

}  // namespace spk
