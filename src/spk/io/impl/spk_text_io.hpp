// Whole-file reading and writing, plain or gzip, and the small number
// parsers the Matrix Market reader is built on.
//
// Reading: a file is read sequentially (no seeking, so pipes and other
// streams read too; a directory is refused by name).  gzip data is
// recognised by its magic bytes, not the name, and decoded with zlib's
// inflate: a stream that ends early is reported as truncated, a damaged one
// as corrupt, and bytes after the last gzip member (other than zero padding)
// as trailing garbage.  Memory grows as the data arrives: the first
// reservation is the size of a regular file, or for gzip at most 16 times
// the compressed size (the size trailer is only a hint), so a file that
// claims more than it holds costs nothing.
#pragma once

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <spk_error.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace spk::Impl {

inline bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Bytes from an open file, read front to back.
class FileSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw MatrixMarketError(path, 0, "is a directory, not a Matrix Market file");
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_)
      throw MatrixMarketError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
    if (::fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode)) {
      size_ = static_cast<unsigned long long>(st.st_size);
      regular_ = true;
    }
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() { std::fclose(f_); }

  /// Up to n bytes; 0 at the end.
  size_t read(char* buf, size_t n) {
    const size_t got = std::fread(buf, 1, n, f_);
    if (got < n && std::ferror(f_))
      throw MatrixMarketError(path_, 0, std::string("read error: ") + std::strerror(errno));
    return got;
  }
  /// The size of a regular file (0 for pipes and devices: unknown).
  unsigned long long size() const { return size_; }
  /// The gzip size trailer (uncompressed size mod 2^32) of a regular file,
  /// read without moving the stream; 0 when unknown.
  unsigned long long gzip_size_hint() const {
    unsigned char t[4];
    if (!regular_ || size_ < 4 || ::pread(fileno(f_), t, 4, static_cast<off_t>(size_ - 4)) != 4)
      return 0;
    return static_cast<unsigned long long>(t[0]) | static_cast<unsigned long long>(t[1]) << 8 |
           static_cast<unsigned long long>(t[2]) << 16 |
           static_cast<unsigned long long>(t[3]) << 24;
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  unsigned long long size_ = 0;
  bool regular_ = false;
};

/// Bytes from memory (tests and fuzzing read without files).
class MemorySource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read(char* buf, size_t n) {
    n = std::min(n, bytes_.size() - at_);
    if (n > 0) std::memcpy(buf, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }
  unsigned long long size() const { return bytes_.size(); }
  unsigned long long gzip_size_hint() const {
    if (bytes_.size() < 4) return 0;
    const auto* t = reinterpret_cast<const unsigned char*>(bytes_.data() + bytes_.size() - 4);
    return static_cast<unsigned long long>(t[0]) | static_cast<unsigned long long>(t[1]) << 8 |
           static_cast<unsigned long long>(t[2]) << 16 |
           static_cast<unsigned long long>(t[3]) << 24;
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

/// A string filled front to back whose storage grows by half when full.
struct GrowingText {
  std::string buf;
  size_t used = 0;
  explicit GrowingText(size_t initial) { buf.resize(std::max<size_t>(initial, 4096)); }
  char* free_begin() { return &buf[used]; }
  size_t free_size() const { return buf.size() - used; }
  void make_room() {
    if (free_size() == 0) buf.resize(buf.size() + buf.size() / 2);
  }
  std::string finish() {
    buf.resize(used);
    return std::move(buf);
  }
};

/// gzip's first reservation: the size trailer when it is plausible (at
/// most 16 times the compressed size), else 4 times the compressed size.
inline size_t gzip_initial_capacity(unsigned long long compressed, unsigned long long trailer) {
  const unsigned long long cap = 16 * compressed + (1 << 16);
  const unsigned long long want = trailer > 0 && trailer <= cap ? trailer + 1 : 4 * compressed;
  return static_cast<size_t>(std::min<unsigned long long>(want, 1ULL << 40));
}

/// Decodes the gzip stream(s) of src (the first `head_size` bytes already
/// read into `head`) into text; at most `limit` bytes are kept.
template <class Source>
std::string gunzip(const std::string& path, Source& src, const char* head, size_t head_size,
                   size_t limit) {
  GrowingText out(std::min<size_t>(
      limit,
      src.size() > 0 ? gzip_initial_capacity(src.size(), src.gzip_size_hint()) : size_t(1) << 20));
  // Compressed bytes in blocks of 1 MiB (less for a smaller known size;
  // left uninitialised: they are read into before use).
  const size_t in_size = std::max<size_t>(
      head_size, src.size() > 0 ? std::min<unsigned long long>(src.size(), 1 << 20) : 1 << 20);
  const std::unique_ptr<char[]> in_buffer(new char[in_size]);
  char* const in = in_buffer.get();
  std::memcpy(in, head, head_size);
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    throw MatrixMarketError(path, 0, "cannot start the gzip decoder");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  zs.next_in = reinterpret_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(head_size);
  bool eof = false;
  unsigned long long consumed = 0;  // compressed bytes before zs.next_in
  auto refill = [&] {
    if (zs.avail_in > 0 || eof) return;
    consumed += static_cast<unsigned long long>(reinterpret_cast<char*>(zs.next_in) - in);
    const size_t n = src.read(in, in_size);
    eof = n == 0;
    zs.next_in = reinterpret_cast<Bytef*>(in);
    zs.avail_in = static_cast<uInt>(n);
  };
  auto offset = [&] {
    return consumed + static_cast<unsigned long long>(reinterpret_cast<char*>(zs.next_in) - in);
  };
  for (;;) {
    refill();
    out.make_room();
    zs.next_out = reinterpret_cast<Bytef*>(out.free_begin());
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.free_size(), UINT_MAX));
    const uInt offered = zs.avail_out;
    const int ret = inflate(&zs, Z_NO_FLUSH);
    out.used += offered - zs.avail_out;
    if (out.used >= limit) {
      out.used = limit;
      return out.finish();
    }
    if (ret == Z_STREAM_END) {
      // Another gzip member may follow (concatenated files are one
      // stream); zero bytes are tape padding; anything else is garbage.
      for (;;) {
        refill();
        if (zs.avail_in == 0) return out.finish();
        if (*zs.next_in != 0) break;
        ++zs.next_in;
        --zs.avail_in;
      }
      if (*zs.next_in != 0x1f)
        throw MatrixMarketError(path, 0,
                                "unexpected data after the end of the gzip stream (at compressed "
                                "byte " +
                                    std::to_string(offset()) + ")");
      inflateReset(&zs);
      continue;
    }
    if (ret == Z_BUF_ERROR) {  // no progress: input is needed
      if (zs.avail_in == 0 && eof)
        throw MatrixMarketError(path, 0,
                                "truncated gzip file: the compressed data ends after " +
                                    std::to_string(offset()) + " bytes (" +
                                    std::to_string(out.used) +
                                    " bytes decompressed), before the end of the gzip stream");
      continue;  // more output room or input needed
    }
    if (ret != Z_OK)
      throw MatrixMarketError(
          path, 0,
          std::string(ret == Z_MEM_ERROR ? "out of memory decoding gzip data"
                                         : "corrupt gzip data at compressed byte " +
                                               std::to_string(offset()) + ": ") +
              (zs.msg && ret != Z_MEM_ERROR ? zs.msg : ""));
  }
}

/// The text of src, gunzipped when it starts with gzip's magic bytes; at
/// most `limit` bytes are kept (the header reader's prefix).
template <class Source>
std::string read_text(const std::string& path, Source& src, size_t limit = SIZE_MAX) {
  char head[2];
  size_t got = 0;
  while (got < 2) {
    const size_t n = src.read(head + got, 2 - got);
    if (n == 0) break;
    got += n;
  }
  if (got == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return gunzip(path, src, head, got, limit);
  GrowingText out(std::min<size_t>(limit, src.size() > 0 ? src.size() + 1 : size_t(1) << 16));
  std::memcpy(out.free_begin(), head, got);
  out.used = got;
  while (out.used < limit) {
    out.make_room();
    const size_t n = src.read(out.free_begin(), std::min(out.free_size(), limit - out.used));
    if (n == 0) break;
    out.used += n;
  }
  return out.finish();
}

/// The whole file as one string (at most `limit` bytes of its text).
inline std::string read_file(const std::string& path, size_t limit = SIZE_MAX) {
  FileSource src(path);
  return read_text(path, src, limit);
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
  /// Parses a signed integer token, consumed whole; false if the token is
  /// not one or does not fit long long.
  bool integer(long long& v) {
    const std::string_view t = token();
    const char* b = number_begin(t);
    if (!b) return false;
    const auto r = std::from_chars(b, t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }
  /// Parses a floating-point token (float or double), consumed whole and
  /// correctly rounded to T (inf and nan accepted; a value beyond the range
  /// of T reads as strtod / strtof gives it: ±inf or a denormal / zero).
  template <class T>
  bool real(T& v, std::string_view& t) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    t = token();
    const char* b = number_begin(t);
    if (!b) return false;
    const auto r = std::from_chars(b, t.data() + t.size(), v);
    if (r.ptr != t.data() + t.size()) return false;
    if (r.ec == std::errc::result_out_of_range) {
      const std::string whole(t);
      if constexpr (std::is_same_v<T, float>)
        v = std::strtof(whole.c_str(), nullptr);
      else
        v = std::strtod(whole.c_str(), nullptr);
      return true;
    }
    return r.ec == std::errc();
  }

 private:
  /// Where from_chars should start: past one leading '+' (which from_chars
  /// does not take), never before a second sign; null for an empty token.
  static const char* number_begin(std::string_view t) {
    if (t.empty()) return nullptr;
    const char* b = t.data();
    if (*b == '+') {
      ++b;
      if (b == t.data() + t.size() || *b == '+' || *b == '-') return nullptr;
    }
    return b;
  }
};

}  // namespace spk::Impl
