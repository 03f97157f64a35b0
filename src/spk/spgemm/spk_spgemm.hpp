// Sparse matrix-matrix product C = A·B (CSR), in two phases:
//   spgemm_symbolic(space, handle, A, B, C)  C's row pointers and nnz
//   spgemm_numeric(space, handle, A, B, C)   C's columns and values
// numeric may run again whenever A's and B's values change (same patterns)
// at numeric cost only.  spgemm(A, B) does both in one call.
//
//   spk::SpgemmHandle<int, int, Kokkos::Cuda> h;   // options: SpgemmOptions
//   spk::CsrMatrix<double, int, int, Kokkos::Cuda> C;
//   spk::spgemm_symbolic(h, A, B, C);
//   spk::spgemm_numeric(h, A, B, C);
//
// Rows of C have sorted columns unless the handle's options say
// SpgemmSort::Unsorted.  Products are counted in 64 bits and nnz(C) is
// checked against the Offset type before C is allocated (spk::Overflow).
//
// This header holds the entry points; the phases' steps are in
// impl/spk_spgemm_symbolic_spec.hpp and impl/spk_spgemm_numeric_spec.hpp.
#pragma once

#include <impl/spk_csr_operand.hpp>
#include <impl/spk_spgemm_numeric_spec.hpp>
#include <impl/spk_spgemm_symbolic_spec.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_spgemm_handle.hpp>

namespace spk {

/// Symbolic phase of C = A·B: checks the shapes (and A's and B's structure
/// unless options().validate_inputs is false), counts the products, bins the
/// rows, counts the distinct columns of each row of C and allocates C
/// (row pointers filled, columns and values left for spgemm_numeric).
/// Throws ShapeMismatch when A's columns differ from B's rows, Overflow when
/// nnz(C) does not fit Offset (before allocating C).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC,
          std::enable_if_t<!std::is_const_v<S>, int> = 0>
void spgemm_symbolic(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                     const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                     CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_symbolic_into(space, handle, A, B, C);
}

/// Numeric phase: fills C's columns and values from A's and B's current
/// values.  A and B must have the patterns symbolic saw, C must come from
/// symbolic (its row pointers are the handle's).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC,
          std::enable_if_t<!std::is_const_v<S>, int> = 0>
void spgemm_numeric(const ExecSpace& space, const SpgemmHandle<O, F, HD>& handle,
                    const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                    CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_numeric_queue(space, handle, A, B, C);
  space.fence();
}

/// spgemm_symbolic in C's execution space.
template <class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic(SpgemmHandle<O, F, HD>& handle, const CsrMatrix<S, O, F, DA>& A,
                     const CsrMatrix<S, O, F, DB>& B, CsrMatrix<S, O, F, DC>& C) {
  spgemm_symbolic(typename CsrMatrix<S, O, F, DC>::execution_space(), handle, A, B, C);
}

/// spgemm_numeric in C's execution space.
template <class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_numeric(const SpgemmHandle<O, F, HD>& handle, const CsrMatrix<S, O, F, DA>& A,
                    const CsrMatrix<S, O, F, DB>& B, CsrMatrix<S, O, F, DC>& C) {
  spgemm_numeric(typename CsrMatrix<S, O, F, DC>::execution_space(), handle, A, B, C);
}

/// C = A·B in one call, in the execution space `space` (C lives there).
template <class ExecSpace, class S, class O, class F, class DA, class DB,
          std::enable_if_t<!std::is_const_v<S>, int> = 0>
CsrMatrix<S, O, F, device_t<ExecSpace>> spgemm(const ExecSpace& space,
                                               const CsrMatrix<S, O, F, DA>& A,
                                               const CsrMatrix<S, O, F, DB>& B,
                                               const SpgemmOptions& options = SpgemmOptions()) {
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    // Host spaces: no symbolic phase (nothing to keep for a next numeric).
    if (Impl::spgemm_resolve<ExecSpace>(options.algorithm) == SpgemmAlgorithm::ThreadDense) {
      Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DA>, CsrMatrix<S, O, F, DB>>();
      Impl::require_product_shapes(A, B, "spk::spgemm");
      return Impl::spgemm_host_fused(space, A, B, options);
    }
  }
  SpgemmHandle<O, F, device_t<ExecSpace>> handle(options);
  CsrMatrix<S, O, F, device_t<ExecSpace>> C;
  spgemm_symbolic(space, handle, A, B, C);
  spgemm_numeric(space, handle, A, B, C);
  return C;
}

/// C = A·B in one call, in A's execution space.
template <class S, class O, class F, class DA, class DB>
auto spgemm(const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
            const SpgemmOptions& options = SpgemmOptions()) {
  return spgemm(typename CsrMatrix<S, O, F, DA>::execution_space(), A, B, options);
}

// Read-only operands (CsrMatrix<const S, ...>, e.g. from spk::make_csr on
// const Views or a const Kokkos Kernels CrsMatrix): the same products.  C
// holds the non-const scalar.
namespace Impl {
template <class SA, class SB>
inline constexpr bool const_operands_v =
    (std::is_const_v<SA> ||
     std::is_const_v<SB>)&&std::is_same_v<std::remove_const_t<SA>, std::remove_const_t<SB>>;

}  // namespace Impl

template <class ExecSpace, class SA, class SB, class O, class F, class HD, class DA, class DB,
          class DC, std::enable_if_t<Impl::const_operands_v<SA, SB>, int> = 0>
void spgemm_symbolic(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                     const CsrMatrix<SA, O, F, DA>& A, const CsrMatrix<SB, O, F, DB>& B,
                     CsrMatrix<std::remove_const_t<SA>, O, F, DC>& C) {
  spgemm_symbolic(space, handle, Impl::as_operand(A), Impl::as_operand(B), C);
}

template <class ExecSpace, class SA, class SB, class O, class F, class HD, class DA, class DB,
          class DC, std::enable_if_t<Impl::const_operands_v<SA, SB>, int> = 0>
void spgemm_numeric(const ExecSpace& space, const SpgemmHandle<O, F, HD>& handle,
                    const CsrMatrix<SA, O, F, DA>& A, const CsrMatrix<SB, O, F, DB>& B,
                    CsrMatrix<std::remove_const_t<SA>, O, F, DC>& C) {
  spgemm_numeric(space, handle, Impl::as_operand(A), Impl::as_operand(B), C);
}

template <
    class ExecSpace, class SA, class SB, class O, class F, class DA, class DB,
    std::enable_if_t<Impl::const_operands_v<SA, SB> && Kokkos::is_execution_space<ExecSpace>::value,
                     int> = 0>
CsrMatrix<std::remove_const_t<SA>, O, F, device_t<ExecSpace>> spgemm(
    const ExecSpace& space, const CsrMatrix<SA, O, F, DA>& A, const CsrMatrix<SB, O, F, DB>& B,
    const SpgemmOptions& options = SpgemmOptions()) {
  return spgemm(space, Impl::as_operand(A), Impl::as_operand(B), options);
}

template <class SA, class SB, class O, class F, class DA, class DB,
          std::enable_if_t<Impl::const_operands_v<SA, SB>, int> = 0>
auto spgemm(const CsrMatrix<SA, O, F, DA>& A, const CsrMatrix<SB, O, F, DB>& B,
            const SpgemmOptions& options = SpgemmOptions()) {
  return spgemm(typename CsrMatrix<SA, O, F, DA>::execution_space(), A, B, options);
}

}  // namespace spk
