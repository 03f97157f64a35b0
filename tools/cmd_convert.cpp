// spk convert IN OUT [--format F]
//
// With --format the matrix goes to format F and back to CSR before it is
// written, so OUT holds what F stores (BSR: the zeros that fill its blocks).
#include <spk_commands.hpp>
#include <spk_convert_format.hpp>

namespace spk::cli {

int run_convert(const std::vector<std::string>& args_in) {
  std::vector<std::string> args;
  FormatSpec format;
  bool through = false;
  for (size_t i = 0; i < args_in.size(); ++i) {
    if (args_in[i] == "--format") {
      if (i + 1 >= args_in.size()) throw UsageError("--format needs a value");
      format = parse_format_spec(args_in[++i]);
      through = true;
    } else {
      args.push_back(args_in[i]);
    }
  }
  if (args.size() != 2) throw UsageError("expected an input and an output file");
  auto A = load_csr<double, int, long long>(args[0]);
  if (through) {
    const Kokkos::DefaultHostExecutionSpace space;
    with_format(space, A, format, [&](const auto& M) { A = to_csr(space, M); });
  }
  write_matrix_market(args[1], A);
  return 0;
}

}  // namespace spk::cli
