// spk info FILE|SPEC
#include <algorithm>
#include <cstdio>
#include <spk_commands.hpp>
#include <spk_convert_format.hpp>
#include <vector>

namespace spk::cli {
namespace {

using InfoCsr = CsrMatrix<double, int, long long, HostDevice>;

/// Stored b × b blocks of A (counted, not converted: BSR values can be b²
/// times nnz).
long long bsr_blocks(const InfoCsr& A, int b) {
  const long long nbc = (A.num_cols() + b - 1) / b;
  std::vector<long long> seen(nbc, -1);
  long long blocks = 0;
  for (long long i = 0; i < A.num_rows(); ++i)
    for (long long k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
      const long long J = A.col_idx()(k) / b;
      if (seen[J] != i / b) seen[J] = i / b, ++blocks;
    }
  return blocks;
}

/// Each format's stored values over nnz (padding, block fill), and the
/// format the numbers suggest.
void print_format_fill(const InfoCsr& A, long long max_len) {
  const double nnz = std::max<double>(1, A.nnz());
  const long long m = A.num_rows();
  const Kokkos::DefaultHostExecutionSpace space;
  std::printf("storage:     stored values / nnz (padding and block fill count as stored)\n");
  const double ell = double(m) * max_len / nnz;
  std::printf("  ell        %.3f (width %lld)\n", ell, max_len);
  const long long w = hyb_default_width(space, A);
  long long spill = 0;
  for (long long i = 0; i < m; ++i) spill += std::max(0LL, A.row_map()(i + 1) - A.row_map()(i) - w);
  const double hyb = (double(m) * w + spill) / nnz;
  std::printf("  hyb        %.3f (width %lld, %lld entries in COO)\n", hyb, w, spill);
  int best_b = 0;
  for (int b : {2, 3, 4, 5, 6, 8}) {
    const double fill = double(bsr_blocks(A, b)) * b * b / nnz;
    std::printf("  bsr:%-2d     %.3f\n", b, fill);
    if (fill <= 1.2) best_b = b;
  }
  SellOptions so;
  so.slice_height = 32;
  so.sigma = 256;
  const double sell = A.nnz() ? double(csr_to_sell(space, A, so).num_stored()) / nnz : 1.0;
  std::printf("  sell:32:256 %.3f\n", sell);
  const double mean = m ? double(A.nnz()) / m : 0.0;
  std::string pick = "csr (no other format stores it with under 20% padding)";
  if (best_b > 0)
    pick = "bsr:" + std::to_string(best_b) + " (dense " + std::to_string(best_b) + " x " +
           std::to_string(best_b) + " blocks)";
  else if (ell <= 1.2)
    pick = "ell (rows of nearly equal length)";
  else if (hyb <= 1.2 && spill <= 0.1 * nnz)
    pick = "hyb (a few long rows spill to COO)";
  else if (sell <= 1.2 && max_len > 4 * std::max(mean, 1.0))
    pick = "sell:32:256 (rows of uneven length, sorted into slices)";
  std::printf("suggested:   %s\n", pick.c_str());
}

}  // namespace

int run_info(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError("expected one matrix file or generator spec");
  const std::string& what = args[0];
  std::string format = "generated (real general)";
  long long stored = -1;
  bool symmetric_storage = false;
  CsrMatrix<double, int, long long, HostDevice> A;
  if (is_spec_argument(what)) {
    A = generate<double, int, long long>(what);
  } else {
    const auto contents = read_matrix_market<double, int, long long>(what);
    const auto& h = contents.header;
    format =
        std::string(to_string(h.format)) + " " + to_string(h.field) + " " + to_string(h.symmetry);
    stored = h.entries;
    symmetric_storage = h.symmetry != MatrixMarketSymmetry::General;
    A = Impl::csr_from_contents(what, contents, MatrixMarketReadOptions());
  }
  long long min_len = A.num_rows() ? std::numeric_limits<long long>::max() : 0, max_len = 0,
            empty = 0;
  for (int i = 0; i < A.num_rows(); ++i) {
    const long long len = A.row_map()(i + 1) - A.row_map()(i);
    min_len = std::min(min_len, len);
    max_len = std::max(max_len, len);
    empty += len == 0;
  }
  std::printf("matrix:      %s\n", what.c_str());
  std::printf("format:      %s\n", format.c_str());
  std::printf("size:        %d x %d\n", A.num_rows(), A.num_cols());
  if (stored >= 0) std::printf("stored:      %lld entries in the file\n", stored);
  if (symmetric_storage && stored >= 0)
    std::printf(
        "symmetric:   one triangle stored, mirrored on read (a file holding both (i, j) and "
        "(j, i) is refused)\n");
  std::printf("nnz:         %lld (symmetric storage expanded, duplicates summed)\n",
              static_cast<long long>(A.nnz()));
  std::printf("row length:  min %lld, mean %.3f, max %lld; %lld empty rows\n", min_len,
              A.num_rows() ? static_cast<double>(A.nnz()) / A.num_rows() : 0.0, max_len, empty);
  print_format_fill(A, max_len);
  return 0;
}

}  // namespace spk::cli
