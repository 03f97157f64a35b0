// spk convert IN OUT
#include <spk_commands.hpp>

namespace spk::cli {

int run_convert(const std::vector<std::string>& args) {
  if (args.size() != 2) throw UsageError("expected an input and an output file");
  const auto A = load_csr<double, int, long long>(args[0]);
  write_matrix_market(args[1], A);
  return 0;
}

}  // namespace spk::cli
