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
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_symbolic(const ExecSpace& space, SpgemmHandle<O, F, HD>& handle,
                     const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                     CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_symbolic_into(space, handle, A, B, C);
}

/// Numeric phase: fills C's columns and values from A's and B's current
/// values.  A and B must have the patterns symbolic saw, C must come from
/// symbolic (its row pointers are the handle's).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
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
template <class ExecSpace, class S, class O, class F, class DA, class DB>
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

}  // namespace spk
