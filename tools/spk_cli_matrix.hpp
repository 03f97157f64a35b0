// A matrix named on the spk tool's command line: a generator spec or a
// Matrix Market file, opened before the command knows its scalar type.
#pragma once

#include <spk_cli_scalar.hpp>
#include <spk_generators.hpp>
#include <spk_load.hpp>
#include <spk_matrix_market.hpp>
#include <string>

namespace spk::cli {

/// A matrix named on the command line, before it is read into a scalar
/// type: a generator spec (complex with values=complex), or a file whose text is held and whose
/// header is parsed, so that the command can pick its scalar from the field
/// and then parse the text once (a pipe can be read only once).
struct MatrixArgument {
  std::string name;
  bool generated = false;
  std::string text;
  MatrixMarketHeader header;  ///< a generator's is coordinate general, real or complex
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
  if (generator_values(name) == GeneratedValues::Complex)
    m.header.field = MatrixMarketField::Complex;
  return m;
}

inline bool is_complex(const MatrixArgument& m) {
  return m.header.field == MatrixMarketField::Complex;
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
  if (m.generated) return generate<S, O, F>(m.name);
  return Impl::csr_from_contents(m.name, read_contents<S, O, F>(m, options), options);
}

}  // namespace spk::cli
