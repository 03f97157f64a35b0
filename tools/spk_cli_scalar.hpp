// The scalar types the spk tool computes in: float, double and their
// complex types, picked by the files' field and --precision in one place
// (dispatch_scalar), and the tolerance of its checks against the serial
// reference.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <spk_cli_args.hpp>
#include <spk_matrix_market.hpp>
#include <type_traits>

namespace spk::cli {

template <class S>
inline constexpr bool is_complex_scalar = Impl::is_mm_complex<S>;

/// The real type of S (S itself when it is real).
template <class S>
using real_type_of = typename Impl::MMScalar<S>::parse_real;

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

/// |v| as a double.
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

}  // namespace spk::cli
