// Subcommands of the spk tool and what they share.
#pragma once

#include <cstdlib>
#include <iostream>
#include <spk.hpp>
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
int run_spgemm(const std::vector<std::string>& args);

/// Every subcommand, in the order `spk --help` lists them.
inline const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"info", "info FILE|SPEC                 shape, nnz, symmetry, field, row lengths", run_info},
      {"convert",
       "convert IN OUT                  any Matrix Market file -> coordinate real "
       "general (.mtx or .mtx.gz by OUT's suffix)",
       run_convert},
      {"spgemm",
       "spgemm A B -o C [--space S] [--check] [--unsorted]\n"
       "                                  C = A*B written as coordinate real general, rows and "
       "columns sorted; prints phase timings; --check compares with the serial reference",
       run_spgemm},
  };
  return all;
}

/// Thrown for bad command lines: printed with the usage, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The execution spaces this build can run on, e.g. " serial openmp".
inline std::string enabled_spaces() {
  std::string s;
#if defined(KOKKOS_ENABLE_SERIAL)
  s += " serial";
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  s += " openmp";
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  s += " cuda";
#endif
  return s;
}

/// Calls f(ExecSpace()) for the execution space named on the command line
/// ("serial", "openmp", "cuda"; "default" = Kokkos' default).
template <class F>
int with_space(const std::string& name, F&& f) {
  if (name == "default" || name.empty()) return f(Kokkos::DefaultExecutionSpace());
#if defined(KOKKOS_ENABLE_SERIAL)
  if (name == "serial") return f(Kokkos::Serial());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if (name == "openmp") return f(Kokkos::OpenMP());
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if (name == "cuda") return f(Kokkos::Cuda());
#endif
  throw UsageError("execution space '" + name +
                   "' is not enabled in this build (enabled:" + enabled_spaces() + ")");
}

}  // namespace spk::cli
