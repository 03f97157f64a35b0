// The one seam between the distributed layer and the single-node kernels:
// every local product of spk::dist goes through local_spmv and
// local_spgemm_symbolic / local_spgemm_numeric, which call spk::spmv and
// spk::spgemm_symbolic / spgemm_numeric.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_mpi.hpp>
#include <memory>
#include <spk_csr_matrix.hpp>
#include <spk_spgemm.hpp>
#include <spk_spmv.hpp>

namespace spk::dist::Impl {

/// Which local kernels this build uses (for reports).
inline const char* local_kernels() { return "spk::spmv, spk::spgemm"; }

/// y := alpha·A·x + beta·y (beta == 0 overwrites y, NaNs included).
template <class ExecSpace, class S, class O, class F, class D, class X, class Y>
void local_spmv(const ExecSpace& space, S alpha, const CsrMatrix<S, O, F, D>& A, const X& x, S beta,
                const Y& y) {
  spk::spmv(space, alpha, A, x, beta, y);
}

/// What local_spgemm_symbolic leaves for local_spgemm_numeric.
template <class O, class F, class D>
struct LocalSpgemmHandle {
  long long nnz = 0;
  long long products = 0;
  std::shared_ptr<spk::SpgemmHandle<O, F, D>> handle;
};

/// C's pattern of A·B (columns sorted, distinct), with values; C's arrays
/// are Kokkos Views that C owns (C becomes a block of the distributed
/// result).  B without entries makes C empty without running a product
/// (numeric then does nothing).  With wait = false the numeric kernels are
/// only queued on `space` (C's columns and values are ready after a fence).
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> local_spgemm_symbolic(const ExecSpace& space, LocalSpgemmHandle<O, F, D>& h,
                                            const CsrMatrix<S, O, F, D>& A,
                                            const CsrMatrix<S, O, F, D>& B, bool wait = true,
                                            bool time_phases = false) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::local_spgemm: A is ",
              +A.num_rows(), "x", +A.num_cols(), ", B is ", +B.num_rows(), "x", +B.num_cols());
  // spk::spgemm fills C's columns in numeric, and the distributed symbolic
  // needs them (C's ghost list comes from them), so numeric runs once here.  Sorted rows keep
  // the column order the same in every numeric call.
  h = LocalSpgemmHandle<O, F, D>();
  // C's blocks may go to MPI in place (gather): no pool memory then.
  const bool pooled = !mpi_reads_directly<typename D::memory_space>();
  if (B.nnz() == 0) {
    // (its row map on `space`: a Kokkos allocation would initialise it on
    // the default instance and wait for what runs there)
    using M = CsrMatrix<S, O, F, D>;
    const auto rm = spk::Impl::result_view<typename M::row_map_type>(
        space, "spk::dist::empty.row_map", A.num_rows() + 1, pooled);
    Kokkos::deep_copy(space, rm, F(0));
    return M(A.num_rows(), B.num_cols(), rm, typename M::index_type(), typename M::values_type());
  }
  spk::SpgemmOptions opt;
  opt.sort = spk::SpgemmSort::Sorted;
  opt.validate_inputs = false;  // built by this layer; B_ext's rows are unsorted
  if (!pooled) opt.result_memory = spk::SpgemmResultMemory::Kokkos;
  opt.time_phases = time_phases;  // (fences each phase: for StepTiming::Fenced)
  h.handle = std::make_shared<spk::SpgemmHandle<O, F, D>>(opt);
  CsrMatrix<S, O, F, D> C;
  spk::spgemm_symbolic(space, *h.handle, A, B, C);
  if (wait)
    spk::spgemm_numeric(space, *h.handle, A, B, C);
  else
    spk::Impl::spgemm_numeric_queue(space, *h.handle, A, B, C);
  h.nnz = C.nnz();
  h.products = static_cast<long long>(h.handle->products());
  return C;
}

/// The counting part of local_spgemm_symbolic, for a product whose C is a
/// row range of a larger matrix: counts(i + 1) = the columns of row i of
/// A·B (counts: A's rows + 1 values of 64 bits; counts(0) is not written).
/// local_spgemm_adopt then gives it C's row map, and local_spgemm_numeric
/// fills C.  B without entries gives zero counts and no product.
template <class ExecSpace, class S, class O, class F, class D, class Counts>
void local_spgemm_count(const ExecSpace& space, LocalSpgemmHandle<O, F, D>& h,
                        const CsrMatrix<S, O, F, D>& A, const CsrMatrix<S, O, F, D>& B,
                        const Counts& counts, bool time_phases = false) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::local_spgemm: A is ",
              +A.num_rows(), "x", +A.num_cols(), ", B is ", +B.num_rows(), "x", +B.num_cols());
  h = LocalSpgemmHandle<O, F, D>();
  if (B.nnz() == 0 || A.num_rows() == 0) {
    Kokkos::deep_copy(space, Kokkos::subview(counts, std::make_pair(1LL, A.num_rows() + 1LL)),
                      std::uint64_t(0));
    return;
  }
  spk::SpgemmOptions opt;
  opt.sort = spk::SpgemmSort::Sorted;
  opt.validate_inputs = false;  // built by this layer
  opt.time_phases = time_phases;
  h.handle = std::make_shared<spk::SpgemmHandle<O, F, D>>(opt);
  spk::Impl::spgemm_symbolic_count(space, *h.handle, A, B, counts);
  h.products = static_cast<long long>(h.handle->products());
}

/// Completes local_spgemm_count: C's row map (relative offsets, from 0 to
/// nnz) and its number of entries.
template <class O, class F, class D, class RowMap>
void local_spgemm_adopt(LocalSpgemmHandle<O, F, D>& h, const RowMap& row_map, long long nnz) {
  h.nnz = nnz;
  if (h.handle)
    spk::Impl::spgemm_symbolic_adopt(*h.handle, row_map, static_cast<std::uint64_t>(nnz));
}

/// C's values from A's and B's current values (patterns as in symbolic).
/// With wait = false the kernels are only queued on `space`.
template <class ExecSpace, class S, class O, class F, class D>
void local_spgemm_numeric(const ExecSpace& space, const LocalSpgemmHandle<O, F, D>& h,
                          const CsrMatrix<S, O, F, D>& A, const CsrMatrix<S, O, F, D>& B,
                          const CsrMatrix<S, O, F, D>& C, bool wait = true) {
  if (!h.handle) return;        // B had no entries: C has none
  CsrMatrix<S, O, F, D> c = C;  // a handle: shares C's Views
  if (wait)
    spk::spgemm_numeric(space, *h.handle, A, B, c);
  else
    spk::Impl::spgemm_numeric_queue(space, *h.handle, A, B, c);
}

}  // namespace spk::dist::Impl
