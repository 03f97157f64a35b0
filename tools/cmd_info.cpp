// spk info FILE|SPEC [--precision single|double]
//
// The values are read in the file's field (complex files in complex<float>
// or complex<double>), so that reading them is checked as the other
// commands read them; the statistics depend on the pattern alone.
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
  so.sigma = sell_default_sigma;
  const std::string sell_name = "sell:32:" + std::to_string(sell_default_sigma);
  const double sell = A.nnz() ? double(csr_to_sell(space, A, so).num_stored()) / nnz : 1.0;
  std::printf("  %s %.3f\n", sell_name.c_str(), sell);
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
    pick = sell_name + " (rows of uneven length, sorted into slices)";
  std::printf("suggested:   %s\n", pick.c_str());
}

/// Whether a square complex A equals its conjugate transpose (sorted,
/// duplicate-free columns: one binary search per entry).
template <class S, class O, class F>
bool is_hermitian(const CsrMatrix<S, O, F, HostDevice>& A) {
  if (A.num_rows() != A.num_cols()) return false;
  const auto rm = A.row_map();
  const auto ci = A.col_idx();
  const auto va = A.values();
  for (long long i = 0; i < A.num_rows(); ++i)
    for (long long k = rm(i); k < rm(i + 1); ++k) {
      const long long j = ci(k);
      const auto* b = ci.data() + rm(j);
      const auto* e = ci.data() + rm(j + 1);
      const auto* at = std::lower_bound(b, e, static_cast<O>(i));
      const S mirror = at != e && *at == i ? va(rm(j) + (at - b)) : S(0);
      if (!(va(k) == S(mirror.real(), -mirror.imag()))) return false;
    }
  return true;
}

/// The matrix's description and statistics, its values read in S.
template <class S>
int print_info(MatrixArgument& m, Precision precision) {
  std::string format = std::string("generated (") + to_string(m.header.field) + " general)";
  long long stored = -1;
  bool symmetric_storage = false;
  CsrMatrix<S, int, long long, HostDevice> A;
  if (m.generated) {
    A = generate<S, int, long long>(m.name);
  } else {
    const auto contents = read_contents<S, int, long long>(m);
    const auto& h = contents.header;
    format =
        std::string(to_string(h.format)) + " " + to_string(h.field) + " " + to_string(h.symmetry);
    stored = h.entries;
    symmetric_storage = h.symmetry != MatrixMarketSymmetry::General;
    A = Impl::csr_from_contents(m.name, contents, MatrixMarketReadOptions());
  }
  long long min_len = A.num_rows() ? std::numeric_limits<long long>::max() : 0, max_len = 0,
            empty = 0;
  for (int i = 0; i < A.num_rows(); ++i) {
    const long long len = A.row_map()(i + 1) - A.row_map()(i);
    min_len = std::min(min_len, len);
    max_len = std::max(max_len, len);
    empty += len == 0;
  }
  std::printf("matrix:      %s\n", m.name.c_str());
  std::printf("format:      %s\n", format.c_str());
  std::printf("scalar:      %s (--precision %s)\n", scalar_name<S>(), to_string(precision));
  std::printf("size:        %d x %d\n", A.num_rows(), A.num_cols());
  if (stored >= 0) std::printf("stored:      %lld entries in the file\n", stored);
  if (symmetric_storage && stored >= 0)
    std::printf(
        "symmetric:   one triangle stored, mirrored on read (a file holding both (i, j) and "
        "(j, i) is refused)\n");
  if constexpr (is_complex_scalar<S>)
    if (A.num_rows() == A.num_cols())
      std::printf("hermitian:   %s\n",
                  is_hermitian(A) ? "yes (A equals its conjugate transpose)" : "no");
  std::printf("nnz:         %lld (symmetric storage expanded, duplicates summed)\n",
              static_cast<long long>(A.nnz()));
  std::printf("row length:  min %lld, mean %.3f, max %lld; %lld empty rows\n", min_len,
              A.num_rows() ? static_cast<double>(A.nnz()) / A.num_rows() : 0.0, max_len, empty);
  // The storage figures depend on the pattern alone.
  const InfoCsr pattern(A.num_rows(), A.num_cols(), A.row_map(), A.col_idx(),
                        InfoCsr::values_type("pattern", A.nnz()));
  print_format_fill(pattern, max_len);
  return 0;
}

}  // namespace

int run_info(const std::vector<std::string>& args) {
  const InfoArgs parsed = parse_info_args(args);
  MatrixArgument m = open_matrix(parsed.path);
  return dispatch_scalar(is_complex(m), parsed.precision, [&](auto zero) {
    return print_info<decltype(zero)>(m, parsed.precision);
  });
}

}  // namespace spk::cli
