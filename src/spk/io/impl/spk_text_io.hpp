// Whole-file reading and writing, plain or gzip (by the .gz suffix), and the
// small number parsers the Matrix Market reader is built on.
#pragma once

#include <zlib.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <spk_error.hpp>
#include <string>

namespace spk::Impl {

inline bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The whole file as one string.  gzip files are recognised by their magic
/// bytes (not the name), so a mislabelled file still reads.
inline std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw MatrixMarketError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, f);
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::string out;
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    // The gzip trailer holds the uncompressed size mod 2^32: a size hint.
    unsigned char tail[4] = {0, 0, 0, 0};
    if (size >= 4 && std::fseek(f, size - 4, SEEK_SET) == 0 && std::fread(tail, 1, 4, f) == 4)
      out.reserve(static_cast<size_t>(tail[0]) | static_cast<size_t>(tail[1]) << 8 |
                  static_cast<size_t>(tail[2]) << 16 | static_cast<size_t>(tail[3]) << 24);
    std::fclose(f);
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) throw MatrixMarketError(path, 0, "cannot open gzip file");
    gzbuffer(gz, 1 << 20);
    constexpr size_t chunk = 1 << 22;
    for (;;) {
      const size_t old = out.size();
      out.resize(old + chunk);
      const int n = gzread(gz, &out[old], static_cast<unsigned>(chunk));
      if (n < 0) {
        int code = 0;
        const std::string msg = gzerror(gz, &code);
        gzclose(gz);
        throw MatrixMarketError(path, 0, "corrupt gzip data: " + msg);
      }
      out.resize(old + static_cast<size_t>(n));
      if (n == 0) break;
    }
    gzclose(gz);
    return out;
  }
  out.resize(static_cast<size_t>(size));
  std::fseek(f, 0, SEEK_SET);
  const size_t n = size > 0 ? std::fread(&out[0], 1, out.size(), f) : 0;
  std::fclose(f);
  if (n != out.size()) throw MatrixMarketError(path, 0, "short read");
  return out;
}

/// Writes data to path, gzip-compressed when the name ends in .gz.
inline void write_file(const std::string& path, const std::string& data) {
  if (has_suffix(path, ".gz")) {
    gzFile gz = gzopen(path.c_str(), "wb6");
    if (!gz) throw Error(path + ": cannot open for writing");
    size_t done = 0;
    while (done < data.size()) {
      const unsigned n = static_cast<unsigned>(std::min<size_t>(data.size() - done, 1u << 30));
      if (gzwrite(gz, data.data() + done, n) != static_cast<int>(n)) {
        gzclose(gz);
        throw Error(path + ": write failed");
      }
      done += n;
    }
    if (gzclose(gz) != Z_OK) throw Error(path + ": write failed");
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot open for writing: " + std::strerror(errno));
  const size_t n = std::fwrite(data.data(), 1, data.size(), f);
  const bool ok = std::fclose(f) == 0 && n == data.size();
  if (!ok) throw Error(path + ": write failed");
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// A cursor over one line of text, [p, end) with end at the '\n' (or EOF).
struct LineCursor {
  const char* p;
  const char* end;

  void skip_blanks() {
    while (p < end && is_blank(*p)) ++p;
  }
  bool at_end() {
    skip_blanks();
    return p == end;
  }
  /// The next whitespace-separated token (empty at the end of the line).
  std::string_view token() {
    skip_blanks();
    const char* b = p;
    while (p < end && !is_blank(*p)) ++p;
    return std::string_view(b, static_cast<size_t>(p - b));
  }
  /// Parses a signed integer token; false if the token is not one or does
  /// not fit long long.
  bool integer(long long& v) {
    const std::string_view t = token();
    if (t.empty()) return false;
    const char* b = t.data();
    if (*b == '+') ++b;
    const auto r = std::from_chars(b, t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }
  /// Parses a floating-point token (inf and nan accepted).
  bool real(double& v, std::string_view& t) {
    t = token();
    if (t.empty()) return false;
    const char* b = t.data();
    if (*b == '+') ++b;
    const auto r = std::from_chars(b, t.data() + t.size(), v);
    if (r.ec == std::errc::result_out_of_range) {  // over/underflow: use strtod's answer
      v = std::strtod(std::string(t).c_str(), nullptr);
      return true;
    }
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }
};

}  // namespace spk::Impl
