// Choosing an execution space by name at run time ("serial", "openmp",
// "cuda", "default"), for command lines and drivers.
#pragma once

#include <spk_compat.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// The execution spaces this build can run on, e.g. " serial openmp cuda".
inline std::string enabled_space_names() {
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

/// Whether `name` names an enabled execution space ("default" always does).
inline bool is_enabled_space(const std::string& name) {
  return name == "default" || name.empty() ||
         (" " + enabled_space_names() + " ").find(" " + name + " ") != std::string::npos;
}

/// Calls f(ExecSpace()) for the space called `name` ("default" or "" is
/// Kokkos' default) and returns what f returns; throws spk::Error naming the
/// enabled spaces when `name` is not one of them.
template <class F>
decltype(auto) with_execution_space(const std::string& name, F&& f) {
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
  throw Error("execution space '" + name +
              "' is not enabled in this build (enabled:" + enabled_space_names() + ")");
}

}  // namespace spk
