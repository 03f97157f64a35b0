// spk convert IN OUT [--format F] [--precision single|double]
//
// A complex file is written as complex (values in complex<double>, or
// complex<float> with --precision single); every other file as real.
// With --format the matrix goes to format F and back to CSR before it is
// written, so OUT holds what F stores (BSR: the zeros that fill its blocks).
#include <spk_commands.hpp>
#include <spk_convert_format.hpp>

namespace spk::cli {

int run_convert(const std::vector<std::string>& args) {
  const ConvertArgs parsed = parse_convert_args(args);
  MatrixArgument in = open_matrix(parsed.in);
  return dispatch_scalar(is_complex(in), parsed.precision, [&](auto zero) {
    using S = decltype(zero);
    auto A = load_matrix<S, int, long long>(in);
    if (parsed.through) {
      const Kokkos::DefaultHostExecutionSpace space;
      with_format(space, A, parsed.format, [&](const auto& M) { A = to_csr(space, M); });
    }
    write_matrix_market(parsed.out, A);
    return 0;
  });
}

}  // namespace spk::cli
