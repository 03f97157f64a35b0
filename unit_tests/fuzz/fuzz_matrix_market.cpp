// libFuzzer target: the Matrix Market reader (spk::read_matrix_market's
// text decoding and parsing, and the CSR it builds) on arbitrary bytes.
//
// Input: byte 0 picks the mode, the rest is the file.
//   bit 0      gzip the file first (the text must come back unchanged);
//   bit 1      and then cut the gzip stream short (must be "truncated");
//   bits 2-7   chunk size 1 + 4·v bytes for a second parse, serial, in up to
//              64 chunks, which must agree with the first (default) parse:
//              small inputs cross the parallel reader's chunk boundaries.
// Raw bytes (bit 0 clear) that start with gzip's magic exercise the gzip
// decoder on damaged streams.
//
// Every input is read into double and into Kokkos::complex<double>.
//
// Oracles besides the sanitizers: every error is a MatrixMarketError naming
// the input, with a line inside it; an accepted matrix has its indices in
// its shape, its entry count within what the text holds, and the same
// contents however the text is cut; its CSR (when the size rule allows one)
// is valid.  The two scalars agree: a real, integer or pattern file gives
// the same outcome in both, its complex values being the double ones with
// +0 imaginary parts; a complex file is refused in double at its banner,
// and read with ComplexPart::Real gives the complex read's outcome, its
// values being the complex ones' real parts.
#include <spk_fuzz_common.hpp>
#include <spk_matrix_market.hpp>

namespace {

const std::string kName = "fuzz.mtx";

using Complex = Kokkos::complex<double>;
template <class S>
using Contents = spk::MatrixMarketContents<S, int, long long>;

template <class S>
struct Outcome {
  bool ok = false;
  Contents<S> contents;
  long long line = -1;
  std::string reason;
};

template <class S>
Outcome<S> parse(const std::string& text, const spk::Impl::ReaderTuning& tuning,
                 const spk::MatrixMarketReadOptions& options = {}) {
  Outcome<S> o;
  try {
    o.contents = spk::Impl::parse_matrix_market<S, int, long long>(kName, text, options, tuning);
    o.ok = true;
  } catch (const spk::MatrixMarketError& e) {
    SPK_FUZZ_CHECK(e.file() == kName, "error names '%s'", e.file().c_str());
    SPK_FUZZ_CHECK(e.line() >= 0 && e.line() <= spk_fuzz::line_count(text),
                   "error line %lld outside the %lld lines: %s", e.line(),
                   spk_fuzz::line_count(text), e.what());
    o.line = e.line();
    o.reason = e.reason();
  }
  return o;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const Complex& a, const Complex& b) {
  return same_bits(a.real(), b.real()) && same_bits(a.imag(), b.imag());
}

template <class S>
void check_contents(const std::string& text, const Contents<S>& c) {
  const auto& coo = c.coo;
  const auto& h = c.header;
  SPK_FUZZ_CHECK(coo.num_rows() == h.rows && coo.num_cols() == h.cols, "shape");
  // At most two stored entries (a symmetric pair) per line of text.
  SPK_FUZZ_CHECK(coo.nnz() <= 2 * spk_fuzz::line_count(text), "%lld entries from %zu bytes",
                 static_cast<long long>(coo.nnz()), text.size());
  for (long long k = 0; k < coo.nnz(); ++k)
    SPK_FUZZ_CHECK(coo.row_idx()(k) >= 0 && coo.row_idx()(k) < h.rows && coo.col_idx()(k) >= 0 &&
                       coo.col_idx()(k) < h.cols,
                   "entry %lld at (%d, %d) outside %lld x %lld", k, coo.row_idx()(k),
                   coo.col_idx()(k), h.rows, h.cols);
}

/// Both accepted with the same entries (values compared by `same_value`),
/// or both refused with the same error.
template <class A, class B, class SameValue>
void check_same(const Outcome<A>& a, const Outcome<B>& b, SameValue&& same_value) {
  SPK_FUZZ_CHECK(a.ok == b.ok, "one read accepted, the other refused: %s%s", a.reason.c_str(),
                 b.reason.c_str());
  if (!a.ok) {
    SPK_FUZZ_CHECK(a.line == b.line && a.reason == b.reason, "errors differ: %lld '%s' / %lld '%s'",
                   a.line, a.reason.c_str(), b.line, b.reason.c_str());
    return;
  }
  const auto& x = a.contents.coo;
  const auto& y = b.contents.coo;
  SPK_FUZZ_CHECK(x.nnz() == y.nnz(), "nnz differ");
  for (long long k = 0; k < x.nnz(); ++k)
    SPK_FUZZ_CHECK(x.row_idx()(k) == y.row_idx()(k) && x.col_idx()(k) == y.col_idx()(k) &&
                       same_value(x.values()(k), y.values()(k)),
                   "entry %lld differs", k);
}

template <class S>
void check_same(const Outcome<S>& a, const Outcome<S>& b) {
  check_same(a, b, [](const S& x, const S& y) { return same_bits(x, y); });
}

template <class S>
void check_csr(const Contents<S>& c) {
  if (c.header.rows > 100000) return;  // (a row map per input: keep it fast)
  try {
    const auto A = spk::Impl::csr_from_contents(kName, c, {});
    SPK_FUZZ_CHECK(A.row_map()(0) == 0 && A.row_map()(A.num_rows()) == A.nnz(), "row map ends");
    for (int i = 0; i < A.num_rows(); ++i)
      for (long long k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
        SPK_FUZZ_CHECK(A.col_idx()(k) >= 0 && A.col_idx()(k) < A.num_cols(), "CSR column");
        SPK_FUZZ_CHECK(k == A.row_map()(i) || A.col_idx()(k - 1) < A.col_idx()(k), "CSR order");
      }
  } catch (const spk::MatrixMarketError& e) {
    SPK_FUZZ_CHECK(e.line() == c.header.size_line, "CSR refusal at line %lld", e.line());
  }
}

/// The default parse and the cut one agree; an accepted matrix is checked.
template <class S>
Outcome<S> parse_and_check(const std::string& text, const spk::Impl::ReaderTuning& tiny) {
  const Outcome<S> whole = parse<S>(text, {});
  check_same(whole, parse<S>(text, tiny));
  if (whole.ok) {
    check_contents(text, whole.contents);
    check_csr(whole.contents);
  }
  return whole;
}

/// The double read and the complex read of the same text agree (see the
/// top of the file).
void check_scalars_agree(const std::string& text, const Outcome<double>& real,
                         const Outcome<Complex>& complex) {
  const bool complex_file =
      !real.ok && real.line == 1 && real.reason.find("the field is 'complex'") != std::string::npos;
  if (!complex_file) {
    check_same(real, complex, [](double r, const Complex& c) {
      return same_bits(r, c.real()) && same_bits(0.0, c.imag());
    });
    return;
  }
  spk::MatrixMarketReadOptions real_part;
  real_part.complex_to_real = spk::ComplexPart::Real;
  check_same(parse<double>(text, {}, real_part), complex,
             [](double r, const Complex& c) { return same_bits(r, c.real()); });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spk_fuzz::initialize_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const unsigned mode = data[0];
  const std::string_view file = spk_fuzz::as_text(data + 1, size - 1);
  std::string bytes(file);
  if (mode & 1) {
    bytes = spk_fuzz::gzip(file);
    if (mode & 2) bytes.resize(bytes.size() * (mode >> 2) / 64);
  }
  std::string text;
  try {
    spk::Impl::MemorySource src(bytes);
    text = spk::Impl::read_text(kName, src);
  } catch (const spk::MatrixMarketError& e) {
    SPK_FUZZ_CHECK(e.line() == 0 && e.file() == kName, "decoding error: %s", e.what());
    SPK_FUZZ_CHECK(!(mode & 1) || (mode & 2), "a whole gzip stream was refused: %s", e.what());
    return 0;
  }
  if (mode & 1) {
    SPK_FUZZ_CHECK(!(mode & 2) || bytes.size() < 2, "a cut gzip stream was read");
    if (!(mode & 2)) SPK_FUZZ_CHECK(text == file, "gzip round trip changed the text");
  }
  spk::Impl::ReaderTuning tiny;
  tiny.chunk_bytes = 1 + 4 * (mode >> 2);
  tiny.max_chunks = 64;
  tiny.serial = true;
  const Outcome<double> real = parse_and_check<double>(text, tiny);
  const Outcome<Complex> complex = parse_and_check<Complex>(text, tiny);
  check_scalars_agree(text, real, complex);
  return 0;
}
