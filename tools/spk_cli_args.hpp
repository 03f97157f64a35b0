// Command-line parsing of the spk subcommands, apart from their work so that
// it can be tested and fuzzed alone.  A bad command line is a UsageError
// (printed with the usage, exit code 2) that names the option.
#pragma once

#include <charconv>
#include <climits>
#include <spk_convert_format.hpp>
#include <spk_spmv_plan.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace spk::cli {

/// Thrown for bad command lines: printed with the usage, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value of `option` as an integer in [1, INT_MAX], the whole token.
inline int parse_positive_int(const std::string& option, const std::string& value) {
  long long v = 0;
  const char* end = value.data() + value.size();
  const auto r = std::from_chars(value.data(), end, v);
  if (value.empty() || r.ec != std::errc() || r.ptr != end || v < 1 || v > INT_MAX)
    throw UsageError(option + " takes a positive integer (at most " + std::to_string(INT_MAX) +
                     "), not '" + value + "'");
  return static_cast<int>(v);
}

/// The precision a command computes in (`--precision single|double`): float
/// or double, and their complex types for complex files.
enum class Precision { Single, Double };

inline Precision parse_precision(const std::string& value) {
  if (value == "single") return Precision::Single;
  if (value == "double") return Precision::Double;
  throw UsageError("--precision takes single or double, not '" + value + "'");
}

inline const char* to_string(Precision p) { return p == Precision::Single ? "single" : "double"; }

/// Walks args, handing each option's value to the caller; "--kokkos..."
/// options (Kokkos' own) are skipped.
class ArgCursor {
 public:
  explicit ArgCursor(const std::vector<std::string>& args) : args_(args) {}
  bool next() {
    while (++i_ < args_.size())
      if (args_[i_].rfind("--kokkos", 0) != 0) return true;
    return false;
  }
  const std::string& arg() const { return args_[i_]; }
  bool is_option() const { return arg().size() > 1 && arg()[0] == '-'; }
  /// The value after the current option.
  const std::string& value() {
    const std::string& option = arg();
    if (i_ + 1 >= args_.size()) throw UsageError("option " + option + " needs a value");
    return args_[++i_];
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = static_cast<size_t>(-1);
};

/// spk info FILE|SPEC [--precision P]
struct InfoArgs {
  std::string path;
  Precision precision = Precision::Double;
};

inline InfoArgs parse_info_args(const std::vector<std::string>& args) {
  InfoArgs s;
  ArgCursor c(args);
  while (c.next()) {
    const std::string& a = c.arg();
    if (a == "--precision")
      s.precision = parse_precision(c.value());
    else if (c.is_option())
      throw UsageError("unknown option " + a);
    else if (a.empty())
      throw UsageError("an empty argument is not a matrix file or generator spec");
    else if (s.path.empty())
      s.path = a;
    else
      throw UsageError("expected one matrix file or generator spec, not also '" + a + "'");
  }
  if (s.path.empty()) throw UsageError("expected one matrix file or generator spec");
  return s;
}

/// spk convert IN OUT [--format F] [--precision P]
struct ConvertArgs {
  std::string in, out;
  FormatSpec format;
  bool through = false;  ///< --format given: convert to it and back
  Precision precision = Precision::Double;
};

inline ConvertArgs parse_convert_args(const std::vector<std::string>& args) {
  ConvertArgs s;
  std::vector<std::string> files;
  ArgCursor c(args);
  while (c.next()) {
    const std::string& a = c.arg();
    if (a == "--format") {
      const std::string& name = c.value();
      try {
        s.format = parse_format_spec(name);
      } catch (const Error& e) {
        throw UsageError(std::string("--format: ") + e.what());
      }
      s.through = true;
    } else if (a == "--precision") {
      s.precision = parse_precision(c.value());
    } else if (c.is_option()) {
      throw UsageError("unknown option " + a);
    } else if (a.empty()) {
      throw UsageError("an empty argument is not a file name");
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2) throw UsageError("expected an input and an output file");
  s.in = files[0];
  s.out = files[1];
  return s;
}

/// spk spmv A [-x X] -o Y [--space S] [--format F] [--algorithm NAME]
///          [--transpose | --conjugate-transpose] [--repeat N] [--precision P] [--check]
struct SpmvArgs {
  std::string a_path, x_path, y_path, space_name = "default";
  SpmvOptions options;
  FormatSpec format;  ///< storage format the product runs in (CSR by default)
  int repeat = 1;
  Precision precision = Precision::Double;
  bool check = false;  ///< compare y with the serial reference
};

inline SpmvArgs parse_spmv_args(const std::vector<std::string>& args) {
  SpmvArgs s;
  ArgCursor c(args);
  while (c.next()) {
    const std::string& a = c.arg();
    if (a == "-x")
      s.x_path = c.value();
    else if (a == "-o")
      s.y_path = c.value();
    else if (a == "--space")
      s.space_name = c.value();
    else if (a == "--algorithm") {
      const std::string& name = c.value();
      try {
        s.options.algorithm = spmv_algorithm_from_string(name);
      } catch (const Error&) {
        throw UsageError("--algorithm: unknown algorithm '" + name +
                         "' (expected auto, scalar, vector, merge_path, stream or dynamic)");
      }
    } else if (a == "--format") {
      const std::string& name = c.value();
      try {
        s.format = parse_format_spec(name);
      } catch (const Error& e) {
        throw UsageError(std::string("--format: ") + e.what());
      }
    } else if (a == "--transpose")
      s.options.mode = Mode::Transpose;
    else if (a == "--conjugate-transpose")
      s.options.mode = Mode::ConjugateTranspose;
    else if (a == "--repeat")
      s.repeat = parse_positive_int(a, c.value());
    else if (a == "--precision")
      s.precision = parse_precision(c.value());
    else if (a == "--check")
      s.check = true;
    else if (c.is_option())
      throw UsageError("unknown option " + a);
    else if (s.a_path.empty())
      s.a_path = a;
    else
      throw UsageError("more than one matrix: '" + s.a_path + "' and '" + a + "'");
  }
  if (s.a_path.empty()) throw UsageError("expected a matrix file or generator spec");
  if (s.y_path.empty()) throw UsageError("expected -o Y.mtx for the result");
  return s;
}

/// spk spgemm A B -o C [--space S] [--check] [--unsorted] [--precision P]
struct SpgemmArgs {
  std::vector<std::string> inputs;
  std::string out, space_name = "default";
  bool check = false, unsorted = false;
  Precision precision = Precision::Double;
};

inline SpgemmArgs parse_spgemm_args(const std::vector<std::string>& args) {
  SpgemmArgs s;
  ArgCursor c(args);
  while (c.next()) {
    const std::string& a = c.arg();
    if (a == "-o" || a == "--output")
      s.out = c.value();
    else if (a == "--space")
      s.space_name = c.value();
    else if (a == "--check")
      s.check = true;
    else if (a == "--unsorted")
      s.unsorted = true;
    else if (a == "--precision")
      s.precision = parse_precision(c.value());
    else if (c.is_option())
      throw UsageError("unknown option " + a);
    else
      s.inputs.push_back(a);
  }
  if (s.inputs.size() != 2) throw UsageError("expected two matrices A and B");
  if (s.out.empty()) throw UsageError("missing -o OUTPUT");
  if (s.unsorted && s.check) throw UsageError("--check compares sorted rows: drop --unsorted");
  return s;
}

}  // namespace spk::cli
