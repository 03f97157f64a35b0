// What spk needs to know about a scalar type: real or complex, its real
// type, conjugation, conversions between precisions, and the type a mixed
// product accumulates in.  spk supports float, double,
// Kokkos::complex<float> and Kokkos::complex<double> (std::complex is not a
// device type; Kokkos::complex has the same layout).
#pragma once

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace spk {

/// ScalarTraits<S>: is_complex, real_type, and the name used in messages
/// and benchmark records.
template <class S>
struct ScalarTraits {
  static_assert(std::is_floating_point_v<S>,
                "spk: a scalar is float, double, Kokkos::complex<float> or "
                "Kokkos::complex<double>");
  static constexpr bool is_complex = false;
  using real_type = S;
  static constexpr const char* name() {
    return std::is_same_v<S, float> ? "float" : std::is_same_v<S, double> ? "double" : "real";
  }
};

template <class R>
struct ScalarTraits<Kokkos::complex<R>> {
  static constexpr bool is_complex = true;
  using real_type = R;
  static constexpr const char* name() {
    return std::is_same_v<R, float> ? "cfloat" : std::is_same_v<R, double> ? "cdouble" : "complex";
  }
};

template <class S>
struct ScalarTraits<const S> : ScalarTraits<S> {};

template <class S>
inline constexpr bool is_complex_v = ScalarTraits<std::remove_cv_t<S>>::is_complex;

template <class S>
using real_type_t = typename ScalarTraits<std::remove_cv_t<S>>::real_type;

/// The type a product of values of types A, X accumulating into Y is summed
/// in: the widest real precision of the three, complex when any of them is
/// complex.  A float matrix times double vectors sums in double; a double
/// matrix times float vectors also sums in double and rounds once, when y
/// is stored.
template <class A, class X, class Y>
struct MixedScalar {
  using real = std::common_type_t<real_type_t<A>, real_type_t<X>, real_type_t<Y>>;
  static constexpr bool complex = is_complex_v<A> || is_complex_v<X> || is_complex_v<Y>;
  using type = std::conditional_t<complex, Kokkos::complex<real>, real>;
};

template <class A, class X, class Y>
using mixed_scalar_t = typename MixedScalar<A, X, Y>::type;

namespace Impl {

/// v converted to T: between precisions, real to complex; complex to real
/// is refused at compile time (it would drop the imaginary part).
template <class T, class V>
KOKKOS_FORCEINLINE_FUNCTION T scalar_cast(const V& v) {
  static_assert(is_complex_v<T> || !is_complex_v<V>,
                "spk: a complex value cannot be stored in a real scalar");
  if constexpr (is_complex_v<T> && is_complex_v<V>)
    return T(static_cast<real_type_t<T>>(v.real()), static_cast<real_type_t<T>>(v.imag()));
  else if constexpr (is_complex_v<T>)
    return T(static_cast<real_type_t<T>>(v));
  else
    return static_cast<T>(v);
}

/// conj(v) when `conjugate` (complex types only; reals are their own conjugate).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION S conj_if(const S& v, bool conjugate) {
  if constexpr (is_complex_v<S>)
    return conjugate ? Kokkos::conj(v) : v;
  else
    return (void)conjugate, v;
}

/// |v| as a real (the modulus for complex values).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION real_type_t<S> magnitude(const S& v) {
  if constexpr (is_complex_v<S>)
    return Kokkos::abs(v);
  else
    return v < S(0) ? -v : v;
}

/// dst += v atomically.  Complex values add their two parts with two
/// atomics: Kokkos would otherwise take a lock for a 16-byte complex<double>
/// on GPUs (each part of the sum is still exact to one rounding).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void atomic_add_scalar(T* dst, const T& v) {
  if constexpr (is_complex_v<T>) {
    using R = real_type_t<T>;
    R* parts = reinterpret_cast<R*>(dst);
    Kokkos::atomic_add(parts, v.real());
    Kokkos::atomic_add(parts + 1, v.imag());
  } else {
    Kokkos::atomic_add(dst, v);
  }
}

}  // namespace Impl
}  // namespace spk
