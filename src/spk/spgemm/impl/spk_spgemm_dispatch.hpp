// What SpGEMM's phases share: the views the kernels take, the access
// check, the choice of algorithm and the phase timer.
#pragma once

#include <cstdint>
#include <impl/spk_spgemm_binned.hpp>
#include <impl/spk_spgemm_host_fused.hpp>
#include <impl/spk_spgemm_thread_dense.hpp>
#include <limits>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_memory_pool.hpp>
#include <spk_spgemm_handle.hpp>
#include <spk_validate.hpp>
#include <utility>
#include <vector>

namespace spk::Impl {

/// Records phase times in the handle when its options ask for them.  Each
/// phase's end is also a Kokkos Tools event ("spk::spgemm::" + phase), so a
/// profiling tool sees where the host is between kernel launches.
template <class ExecSpace, class Handle>
struct SpgemmPhaseTimer {
  const ExecSpace& space;
  const Handle& handle;
  Kokkos::Timer timer;
  SpgemmPhaseTimer(const ExecSpace& s, const Handle& h) : space(s), handle(h) {}
  void operator()(const char* phase) {
    if (Kokkos::Tools::profileLibraryLoaded())
      Kokkos::Tools::markEvent(std::string("spk::spgemm::") + phase);
    if (!handle.options().time_phases) return;
    space.fence();
    handle.add_phase_time(phase, timer.seconds() * 1e3);
    timer.reset();
  }
};

template <class ExecSpace, class S, class O, class F, class DA, class DB, class DC>
SpgemmViews<S, O, F, device_t<ExecSpace>> spgemm_views(const CsrMatrix<S, O, F, DA>& A,
                                                       const CsrMatrix<S, O, F, DB>& B,
                                                       const CsrMatrix<S, O, F, DC>& C) {
  return {A.row_map(), B.row_map(), C.row_map(), A.col_idx(), B.col_idx(),
          A.values(),  B.values(),  C.col_idx(), C.values()};
}

template <class ExecSpace, class... Mats>
constexpr void spgemm_check_access() {
  static_assert((is_accessible_v<ExecSpace, typename Mats::memory_space> && ...),
                "spk::spgemm: the matrices and the handle must live in memory the execution "
                "space can access");
}

template <class ExecSpace>
SpgemmAlgorithm spgemm_resolve(SpgemmAlgorithm a) {
  if (a == SpgemmAlgorithm::Auto)
    return is_host_space_v<ExecSpace> ? SpgemmAlgorithm::ThreadDense : SpgemmAlgorithm::BinnedHash;
  SPK_REQUIRE(a != SpgemmAlgorithm::ThreadDense || is_host_space_v<ExecSpace>, Error,
              "spk::spgemm: SpgemmAlgorithm::ThreadDense runs on host execution spaces only, not ",
              ExecSpace::name());
  return a;
}

}  // namespace spk::Impl
