// Distributed SpGEMM: C = A·B with A and B distributed by rows.  Each rank
// fetches only the rows of B that its ghost columns of A name (through A's
// SpMV communication plan), then multiplies locally; C is distributed like
// A's rows and B's columns.  Symbolic / numeric split as on one node.
//
// The functions here check their operands and forward to impl/:
// spk_dist_spgemm_symbolic.hpp (the pattern, or the one-call product, as
// named steps), spk_dist_spgemm_numeric.hpp (values on a known pattern),
// with the fetch of B's rows (spk_dist_spgemm_fetch.hpp), the merged
// operands (spk_dist_spgemm_operands.hpp) and C's ghost block
// (spk_dist_spgemm_ghost_rows.hpp) beneath them.
#pragma once

#include <impl/spk_dist_spgemm_numeric.hpp>
#include <impl/spk_dist_spgemm_symbolic.hpp>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_spgemm_handle.hpp>
#include <spk_error.hpp>

namespace spk::dist {

namespace Impl {

/// A·B is defined and A's columns are distributed like B's rows.
template <class S, class O, class F, class D>
void check_spgemm_operands(const DistCsrMatrix<S, O, F, D>& A, const DistCsrMatrix<S, O, F, D>& B) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::spgemm: A is ", A.num_rows(),
              "x", A.num_cols(), ", B is ", B.num_rows(), "x", B.num_cols());
  SPK_REQUIRE(A.col_layout() == B.row_layout(), ShapeMismatch,
              "spk::dist::spgemm: A's columns must be distributed like B's rows (rank ",
              A.row_layout().rank(), " owns columns [", A.col_layout().begin(), ", ",
              A.col_layout().end(), ") of A but rows [", B.row_layout().begin(), ", ",
              B.row_layout().end(), ") of B)");
}

}  // namespace Impl

/// Symbolic phase: fetches the pattern of the needed rows of B, computes
/// C's pattern and returns C (distributed like A's rows, columns like B's);
/// C's values are set by spgemm_numeric.  Needs A's column layout to be
/// B's row layout.  Collective.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm_symbolic(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                          const DistCsrMatrix<S, O, F, D>& A,
                                          const DistCsrMatrix<S, O, F, D>& B) {
  Impl::check_spgemm_operands(A, B);
  return Impl::spgemm_pattern(space, h, A, B, false);
}

/// Numeric phase: C's values from A's and B's current values (the patterns
/// symbolic saw).  Only values travel.  Collective.
template <class ExecSpace, class S, class O, class F, class D>
void spgemm_numeric(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                    const DistCsrMatrix<S, O, F, D>& A, const DistCsrMatrix<S, O, F, D>& B,
                    const DistCsrMatrix<S, O, F, D>& C) {
  SPK_REQUIRE(h.done_, Error, "spk::dist::spgemm_numeric: call spgemm_symbolic first");
  SPK_REQUIRE(h.a_nnz_ == A.local_block().nnz() + A.ghost_block().nnz() &&
                  A.row_layout().local_size() == h.na_ && C.local_block().nnz() == h.c_local_nnz_ &&
                  C.ghost_block().nnz() == h.ghost_.nnz,
              ShapeMismatch, "spk::dist::spgemm_numeric: A or C is not the one symbolic saw");
  Impl::spgemm_values(space, h, A, B, C);
}

/// C = A·B in one call, leaving `h` ready for spgemm_numeric when A's and
/// B's values change.  B's values travel with its columns and the local
/// product runs once (symbolic followed by numeric would run it twice).
/// Collective.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm(const ExecSpace& space, DistSpgemmHandle<S, O, F, D>& h,
                                 const DistCsrMatrix<S, O, F, D>& A,
                                 const DistCsrMatrix<S, O, F, D>& B) {
  Impl::check_spgemm_operands(A, B);
  auto C = Impl::spgemm_pattern(space, h, A, B, true);
  space.fence();
  return C;
}

/// C = A·B in one call.
template <class ExecSpace, class S, class O, class F, class D>
DistCsrMatrix<S, O, F, D> spgemm(const ExecSpace& space, const DistCsrMatrix<S, O, F, D>& A,
                                 const DistCsrMatrix<S, O, F, D>& B) {
  DistSpgemmHandle<S, O, F, D> h;
  return spgemm(space, h, A, B);
}

}  // namespace spk::dist
