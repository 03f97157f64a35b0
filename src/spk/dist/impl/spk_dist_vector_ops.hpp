// The local parts of the collective vector operations (spk_dist_vector.hpp).
#pragma once

#include <Kokkos_Core.hpp>

namespace spk::dist::Impl {

/// Σ x_i·y_i over this rank's entries (x and y of one length).
template <class ExecSpace, class X, class Y>
static double local_dot(const ExecSpace& space, const X& x, const Y& y) {
  double local = 0;
  Kokkos::parallel_reduce(
      "spk::dist::dot", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const long long i, double& s) { s += x(i) * y(i); }, local);
  return local;
}

}  // namespace spk::dist::Impl
