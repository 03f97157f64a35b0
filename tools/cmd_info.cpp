// spk info FILE|SPEC
#include <algorithm>
#include <cstdio>
#include <spk_commands.hpp>

namespace spk::cli {

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
    symmetric_storage = h.symmetry != MatrixMarketSymmetry::general;
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
  return 0;
}

}  // namespace spk::cli
