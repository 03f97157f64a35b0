// Launch hints for Kokkos policies.
#pragma once

#include <Kokkos_Core.hpp>

namespace spk::Impl {

/// The policy with Kokkos' HintLightWeight: the functor goes to the kernel
/// as a parameter (up to 4 KiB).  Without it, Kokkos' CUDA backend copies a
/// functor of 512 bytes or more to constant memory, and each such launch
/// first waits on the host for the previous one to finish (one constant
/// buffer per device): kernels on other streams stop overlapping and the
/// host stalls.  For kernels whose captures may pass 512 bytes.
template <class Policy>
auto light_weight(const Policy& policy) {
  return Kokkos::Experimental::require(policy,
                                       Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

}  // namespace spk::Impl
