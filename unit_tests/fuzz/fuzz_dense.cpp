// libFuzzer target: the dense / vector reader (spk::read_dense, as `spk
// spmv -x` uses it) on arbitrary text.
//
// Input: byte 0: bit 0 asks for required_rows = byte 1 (the rows of the
// matrix x must match; checked before any entry is parsed); bits 1-7: the
// chunk size (1 + 2·v bytes, serial).  The rest is the file.
//
// Oracles: every error is a MatrixMarketError naming the input with a line
// inside it; an accepted x has the declared shape, the required rows, no
// more cells than the size rule allows, and the values of the COO read of
// the same text summed into place.
#include <spk_fuzz_common.hpp>
#include <spk_matrix_market.hpp>

namespace {
const std::string kName = "fuzz_x.mtx";

void check_error(const spk::MatrixMarketError& e, const std::string& text) {
  SPK_FUZZ_CHECK(e.file() == kName, "error names '%s'", e.file().c_str());
  SPK_FUZZ_CHECK(e.line() >= 0 && e.line() <= spk_fuzz::line_count(text),
                 "error line %lld outside the %lld lines: %s", e.line(), spk_fuzz::line_count(text),
                 e.what());
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spk_fuzz::initialize_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size < 2) return 0;
  spk::MatrixMarketReadOptions options;
  if (data[0] & 1) options.required_rows = data[1];
  spk::Impl::ReaderTuning tuning;
  tuning.chunk_bytes = 1 + 2 * (data[0] >> 1);
  tuning.max_chunks = 64;
  tuning.serial = true;
  const std::string text(spk_fuzz::as_text(data + 2, size - 2));

  // The COO of the text first: dense matrices of more than 2^16 cells are
  // only size-checked (zero-filling megabytes per input would starve the
  // fuzzer), smaller ones are read and compared.
  spk::MatrixMarketContents<double, long long, long long> coo;
  try {
    coo =
        spk::Impl::parse_matrix_market<double, long long, long long>(kName, text, options, tuning);
  } catch (const spk::MatrixMarketError& e) {
    check_error(e, text);
    return 0;
  }
  const auto& h = coo.header;
  SPK_FUZZ_CHECK(options.required_rows < 0 || h.rows == options.required_rows,
                 "%lld rows accepted, %lld required", h.rows, options.required_rows);
  const long double cells = static_cast<long double>(h.rows) * h.cols;
  if (cells > (1 << 16)) {
    try {
      spk::Impl::check_declared_allocation(kName, h, "the dense matrix", cells,
                                           std::max(h.entries, coo.coo.nnz()),
                                           options.required_rows, options);
    } catch (const spk::MatrixMarketError& e) {
      check_error(e, text);
    }
    return 0;
  }
  Kokkos::View<double**, Kokkos::LayoutLeft, spk::HostDevice> x;
  try {
    x = spk::Impl::dense_from_text<double>(kName, text, options, tuning);
  } catch (const spk::MatrixMarketError& e) {
    SPK_FUZZ_CHECK(false, "the COO read but the dense read refused: %s", e.what());
  }
  SPK_FUZZ_CHECK(static_cast<long long>(x.extent(0)) == h.rows &&
                     static_cast<long long>(x.extent(1)) == h.cols,
                 "x is %zu x %zu, declared %lld x %lld", x.extent(0), x.extent(1), h.rows, h.cols);
  Kokkos::View<double**, Kokkos::LayoutLeft, spk::HostDevice> sum("sum", x.extent(0), x.extent(1));
  const auto& c = coo.coo;
  for (long long k = 0; k < c.nnz(); ++k) sum(c.row_idx()(k), c.col_idx()(k)) += c.values()(k);
  for (size_t j = 0; j < x.extent(1); ++j)
    for (size_t i = 0; i < x.extent(0); ++i)
      SPK_FUZZ_CHECK(std::memcmp(&x(i, j), &sum(i, j), sizeof(double)) == 0 ||
                         (x(i, j) != x(i, j) && sum(i, j) != sum(i, j)),
                     "x(%zu, %zu) differs from the COO", i, j);
  return 0;
}
