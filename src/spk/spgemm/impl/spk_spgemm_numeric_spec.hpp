// SpGEMM's numeric phase (spk_spgemm.hpp is its entry point): the checks
// against the symbolic plan, then the kernels of the algorithm symbolic
// chose.
#pragma once

#include <impl/spk_spgemm_dispatch.hpp>

namespace spk::Impl {

/// spgemm_numeric without its final fence: the kernels are queued on `space`
/// (and its bin streams, joined to it) when it returns.  For callers with
/// host work to overlap (the distributed product builds C's plan meanwhile).
template <class ExecSpace, class S, class O, class F, class HD, class DA, class DB, class DC>
void spgemm_numeric_queue(const ExecSpace& space, const SpgemmHandle<O, F, HD>& handle,
                          const CsrMatrix<S, O, F, DA>& A, const CsrMatrix<S, O, F, DB>& B,
                          CsrMatrix<S, O, F, DC>& C) {
  Impl::spgemm_check_access<ExecSpace, CsrMatrix<S, O, F, DA>, CsrMatrix<S, O, F, DB>,
                            CsrMatrix<S, O, F, DC>, CsrMatrix<S, O, F, HD>>();
  SPK_REQUIRE(handle.symbolic_done(), Error,
              "spk::spgemm_numeric: run spgemm_symbolic with this handle first");
  const auto& plan = handle.plan();
  SPK_REQUIRE(A.num_rows() == plan.a_rows && A.num_cols() == plan.a_cols &&
                  B.num_cols() == plan.b_cols && B.num_rows() == plan.a_cols &&
                  static_cast<std::uint64_t>(A.nnz()) == plan.a_nnz &&
                  static_cast<std::uint64_t>(B.nnz()) == plan.b_nnz,
              ShapeMismatch, "spk::spgemm_numeric: A is ", +A.num_rows(), " x ", +A.num_cols(),
              " with ", +A.nnz(), " entries and B ", +B.num_rows(), " x ", +B.num_cols(), " with ",
              +B.nnz(), ", but symbolic saw A ", +plan.a_rows, " x ", +plan.a_cols, " with ",
              plan.a_nnz, " and B with ", plan.b_nnz, " entries");
  SPK_REQUIRE(static_cast<std::uint64_t>(C.nnz()) == handle.nnz() &&
                  C.row_map().data() == plan.row_map_c.data(),
              ShapeMismatch, "spk::spgemm_numeric: C (", +C.nnz(),
              " entries) is not the matrix spgemm_symbolic made for this handle (", handle.nnz(),
              " entries)");
  if (handle.nnz() == 0) return;
  const std::int64_t m = A.num_rows();
  const std::uint64_t ncols = static_cast<std::uint64_t>(B.num_cols());
  const bool sorted = handle.options().sort == SpgemmSort::Sorted;
  const auto v = Impl::spgemm_views<ExecSpace>(A, B, C);
  Impl::SpgemmPhaseTimer<ExecSpace, SpgemmHandle<O, F, HD>> mark(space, handle);
  if constexpr (Impl::is_host_space_v<ExecSpace>) {
    if (handle.algorithm() == SpgemmAlgorithm::ThreadDense) {
      Impl::SpgemmHostPlan<F> hp;
      hp.blocks = plan.host_blocks;
      hp.cb.used = plan.host_cb_word.extent(0) > 0;
      hp.cb.end = plan.host_cb_end;
      hp.cb.pairs = plan.host_cb_pairs;
      hp.cb.word = plan.host_cb_word;
      hp.cb.mask = plan.host_cb_mask;
      hp.dense = plan.slab_dense;
      hp.hash_capacity = plan.slab_capacity;
      hp.num_threads = plan.num_slabs;
      Impl::spgemm_host_numeric(space, v, ncols, hp, sorted);
    }
  }
  if (handle.algorithm() == SpgemmAlgorithm::BinnedHash) {
    Impl::SpgemmBinnedTuning t;
    t.vector_length = plan.vector_length;
    t.scratch = plan.scratch_bytes;  // the long rows' key buffers
    t.wide_row = plan.wide_row;
    Impl::spgemm_binned_numeric(space, v, plan.perm, handle.bins(), ncols, t, plan.long_rows,
                                sorted);
  }
  mark("numeric");  // fences only when the handle times its phases
}

}  // namespace spk::Impl
