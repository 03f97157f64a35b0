// Subcommands of the spk tool and what they share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <spk.hpp>
#include <spk_cli_args.hpp>
#include <spk_execution_spaces.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace spk::cli {

/// A subcommand: `spk <name> args...`.  Returns the process exit code.
struct Command {
  const char* name;
  const char* synopsis;
  int (*run)(const std::vector<std::string>& args);
};

int run_info(const std::vector<std::string>& args);
int run_convert(const std::vector<std::string>& args);
int run_spmv(const std::vector<std::string>& args);
int run_spgemm(const std::vector<std::string>& args);

/// Every subcommand, in the order `spk --help` lists them.
inline const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"info",
       "info FILE|SPEC [--precision P]  shape, nnz, symmetry, field, scalar, row lengths "
       "(hermitian-ness of a complex matrix)",
       run_info},
      {"convert",
       "convert IN OUT [--format F] [--precision P]\n"
       "                                any Matrix Market file -> coordinate real general "
       "(complex general for a complex file; .mtx or .mtx.gz by OUT's suffix); --format F goes "
       "through format F (csr|ell|hyb|bsr:B|sell:C:SIGMA) and back, so OUT holds what F stores",
       run_convert},
      {"spmv",
       "spmv A [-x X] -o Y [--space S] [--format csr|ell|hyb|bsr:B|sell:C:SIGMA]\n"
       "                                [--algorithm auto|scalar|vector|merge_path|stream|dynamic] "
       "[--transpose] [--repeat N] [--precision P] [--check]\n"
       "                                y = A·x (x: Matrix Market, default all ones; "
       "Y: Matrix Market array); --check compares y with the serial reference",
       run_spmv},
      {"spgemm",
       "spgemm A B -o C [--space S] [--check] [--unsorted] [--precision P]\n"
       "                                  C = A*B written as coordinate real (or complex) general, "
       "rows and columns sorted; prints phase timings; --check compares with the serial "
       "reference",
       run_spgemm},
  };
  return all;
}

/// A matrix named on the command line, before it is read into a scalar
/// type: a generator spec (real), or a file whose text is held and whose
/// header is parsed, so that the command can pick its scalar from the field
/// and then parse the text once (a pipe can be read only once).
struct MatrixArgument {
  std::string name;
  bool generated = false;
  std::string text;
  MatrixMarketHeader header;  ///< a generator's is coordinate real general
};

/// A Matrix Market file (never a generator spec).
inline MatrixArgument open_matrix_file(const std::string& name) {
  MatrixArgument m;
  m.name = name;
  m.text = Impl::read_file(name);
  m.header = Impl::parse_header(name, m.text).header;
  return m;
}

/// A generator spec or a Matrix Market file.
inline MatrixArgument open_matrix(const std::string& name) {
  if (!is_spec_argument(name)) return open_matrix_file(name);
  MatrixArgument m;
  m.name = name;
  m.generated = true;
  return m;
}

inline bool is_complex(const MatrixArgument& m) {
  return m.header.field == MatrixMarketField::Complex;
}

template <class S>
inline constexpr bool is_complex_scalar = Impl::is_mm_complex<S>;

/// The real type of S (S itself when it is real).
template <class S>
using real_type_of = typename Impl::MMScalar<S>::parse_real;

/// A generator's matrix in the scalar S: generated in S's real type, with
/// zero imaginary parts for a complex S.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> generate_in(const std::string& spec) {
  if constexpr (is_complex_scalar<S>) {
    const auto G = generate<real_type_of<S>, O, F>(spec);
    typename CsrMatrix<S, O, F, HostDevice>::values_type values("values", G.nnz());
    for (long long k = 0; k < static_cast<long long>(G.nnz()); ++k) values(k) = S(G.values()(k));
    return CsrMatrix<S, O, F, HostDevice>(G.num_rows(), G.num_cols(), G.row_map(), G.col_idx(),
                                          values);
  } else {
    return generate<S, O, F>(spec);
  }
}

/// The matrix's contents in the scalar S (a file's text is released once
/// parsed).
template <class S, class O, class F>
MatrixMarketContents<S, O, F> read_contents(MatrixArgument& m,
                                            const MatrixMarketReadOptions& options = {}) {
  auto contents = Impl::parse_matrix_market<S, O, F>(m.name, m.text, options);
  std::string().swap(m.text);
  return contents;
}

/// Host CSR (sorted columns, duplicates summed) of the matrix in the scalar
/// S.
template <class S, class O, class F>
CsrMatrix<S, O, F, HostDevice> load_matrix(MatrixArgument& m,
                                           const MatrixMarketReadOptions& options = {}) {
  if (m.generated) return generate_in<S, O, F>(m.name);
  return Impl::csr_from_contents(m.name, read_contents<S, O, F>(m, options), options);
}

/// Calls f(S()) for the scalar type a command computes in: float or double
/// by the precision, complex of it when any input is complex.  The one
/// place where a command's body is instantiated for the four scalars.
template <class F>
int dispatch_scalar(bool complex, Precision precision, F&& f) {
  if (complex)
    return precision == Precision::Single ? f(Kokkos::complex<float>())
                                          : f(Kokkos::complex<double>());
  return precision == Precision::Single ? f(float()) : f(double());
}

/// The name of a scalar type in the tool's output.
template <class S>
const char* scalar_name() {
  if constexpr (std::is_same_v<S, float>) return "float";
  if constexpr (std::is_same_v<S, double>) return "double";
  if constexpr (std::is_same_v<S, Kokkos::complex<float>>) return "complex<float>";
  if constexpr (std::is_same_v<S, Kokkos::complex<double>>) return "complex<double>";
  return "scalar";
}

/// The tolerance of a check against the serial reference, relative to
/// max(1, |reference|): a few thousand rounding errors of S's precision.
template <class S>
double check_tolerance() {
  return 4096.0 * static_cast<double>(std::numeric_limits<real_type_of<S>>::epsilon());
}

template <class S>
double magnitude(const S& v) {
  if constexpr (is_complex_scalar<S>)
    return static_cast<double>(Kokkos::abs(v));
  else
    return std::abs(static_cast<double>(v));
}

/// |a - b| <= check_tolerance<S>() · max(1, |b|) (NaN never passes).
template <class S>
bool close_to_reference(const S& a, const S& b) {
  return magnitude(S(a - b)) <= check_tolerance<S>() * std::max(1.0, magnitude(b));
}

/// The execution spaces this build can run on.
inline std::string enabled_spaces() { return enabled_space_names(); }

/// Calls f(ExecSpace()) for the execution space named on the command line
/// ("serial", "openmp", "cuda"; "default" = Kokkos' default).
template <class F>
int with_space(const std::string& name, F&& f) {
  if (!is_enabled_space(name))
    throw UsageError("execution space '" + name +
                     "' is not enabled in this build (enabled:" + enabled_space_names() + ")");
  return with_execution_space(name, std::forward<F>(f));
}

}  // namespace spk::cli
