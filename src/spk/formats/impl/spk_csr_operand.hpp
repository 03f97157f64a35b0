// A read-only CSR matrix (CsrMatrix<const S, ...>, e.g. from spk::make_csr on
// const Views or a const Kokkos Kernels CrsMatrix) as an operand of kernels
// written for mutable matrices that only read it: SpGEMM and the
// conversions from CSR normalise their input through as_operand, as Kokkos
// Kernels normalises its inputs to const unmanaged Views.
#pragma once

#include <Kokkos_Core.hpp>
#include <spk_csr_matrix.hpp>
#include <type_traits>

namespace spk::Impl {

/// A's Views with const removed from the type: the kernels' operand types
/// are written for mutable matrices but only read them (SpGEMM's symbolic and
/// numeric, the conversions), so this is the one place where a read-only
/// matrix is passed on as a mutable one.  Mutable matrices pass unchanged.
template <class S, class O, class F, class D>
CsrMatrix<std::remove_const_t<S>, O, F, D> as_operand(const CsrMatrix<S, O, F, D>& A) {
  if constexpr (std::is_const_v<S>) {
    using M = CsrMatrix<std::remove_const_t<S>, O, F, D>;
    using U = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    using RM = Kokkos::View<F*, typename M::device_type, U>;
    using CI = Kokkos::View<O*, typename M::device_type, U>;
    using VA = Kokkos::View<std::remove_const_t<S>*, typename M::device_type, U>;
    M B(A.num_rows(), A.num_cols(),
        typename M::row_map_type(RM(const_cast<F*>(A.row_map().data()), A.row_map().extent(0))),
        typename M::index_type(CI(const_cast<O*>(A.col_idx().data()), A.col_idx().extent(0))),
        typename M::values_type(
            VA(const_cast<std::remove_const_t<S>*>(A.values().data()), A.values().extent(0))));
    B.set_keep_alive(A.keep_alive());
    return B;
  } else {
    return A;
  }
}

}  // namespace spk::Impl
