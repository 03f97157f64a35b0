// Normalising the "Device" template argument of spk's matrix types.
#pragma once

#include <spk_compat.hpp>

namespace spk {

/// Kokkos::Device<ExecutionSpace, MemorySpace> for an execution space, a
/// memory space or a Kokkos::Device (the same rule Kokkos::View applies).
template <class DeviceLike>
using device_t = typename Kokkos::View<int*, DeviceLike>::device_type;

/// The default template argument of every matrix type.
using DefaultDevice = device_t<Kokkos::DefaultExecutionSpace>;

/// The host device spk's readers, generators and references produce.
using HostDevice = device_t<Kokkos::DefaultHostExecutionSpace>;

}  // namespace spk
