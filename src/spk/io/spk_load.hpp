// One entry point for "a matrix named on a command line": a generator spec
// (see spk_generators.hpp) or a Matrix Market file (.mtx or .mtx.gz).
#pragma once

#include <filesystem>
#include <spk_generators.hpp>
#include <spk_matrix_market.hpp>
#include <string>

namespace spk {

/// Whether a command-line matrix argument should be treated as a generator
/// spec: a known generator, or "name:..." that is not an existing file (so a
/// misspelt generator gets "unknown generator", not "cannot open file").
inline bool is_spec_argument(const std::string& s) {
  return is_generator_spec(s) || (s.find(':') != std::string::npos &&
                                  s.find('/') == std::string::npos && !std::filesystem::exists(s));
}

/// Host CSR (sorted columns, duplicates summed) of a generator spec or file.
template <class Scalar = double, class Ordinal = int, class Offset = int>
CsrMatrix<Scalar, Ordinal, Offset, HostDevice> load_csr(
    const std::string& spec_or_path, const MatrixMarketReadOptions& options = {}) {
  if (is_spec_argument(spec_or_path)) return generate<Scalar, Ordinal, Offset>(spec_or_path);
  return read_csr<Scalar, Ordinal, Offset>(spec_or_path, options);
}

/// A short display name: the spec itself, or the file name without
/// directories and the .mtx / .mtx.gz suffix.
inline std::string matrix_display_name(const std::string& spec_or_path) {
  if (is_generator_spec(spec_or_path)) return spec_or_path;
  std::string name = spec_or_path.substr(spec_or_path.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".mtx"})
    if (Impl::has_suffix(name, suffix)) name.resize(name.size() - std::string(suffix).size());
  return name;
}

}  // namespace spk
