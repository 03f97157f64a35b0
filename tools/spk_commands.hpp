// Subcommands of the spk tool and what they share.
#pragma once

#include <cstdlib>
#include <iostream>
#include <spk.hpp>
#include <spk_cli_args.hpp>
#include <spk_cli_matrix.hpp>
#include <spk_cli_scalar.hpp>
#include <spk_execution_spaces.hpp>
#include <string>
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
       "[--transpose | --conjugate-transpose] [--repeat N] [--precision P] [--check]\n"
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
