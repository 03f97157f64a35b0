// CSR <-> BSR conversions as Kokkos parallel patterns.
//
//   csr_to_bsr(space, A, b)   blocks of b × b (1 <= b <= 16); a block is stored
//                             when any entry of A falls in it, the rest of it
//                             (and the padding past num_rows / num_cols) is 0
//   bsr_to_csr(space, B)      every stored entry inside the matrix (the zeros
//                             that fill a block included, unless drop_zeros)
#pragma once

#include <impl/spk_convert_bsr_impl.hpp>
#include <impl/spk_csr_operand.hpp>
#include <spk_bsr_matrix.hpp>
#include <spk_convert.hpp>
#include <spk_mirror.hpp>
#include <spk_validate.hpp>

namespace spk {

/// A as BsrMatrix with block_size × block_size blocks.  Duplicate entries are
/// summed; unsorted rows are sorted in a copy first.
template <class ExecSpace, class S, class O, class F, class D>
BsrMatrix<std::remove_const_t<S>, O, F, D> csr_to_bsr(const ExecSpace& space,
                                                      const CsrMatrix<S, O, F, D>& A_in,
                                                      int block_size) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_bsr");
  SPK_REQUIRE(block_size >= 1 && block_size <= bsr_max_block_size, InvalidMatrix,
              "csr_to_bsr: block size ", block_size, " is outside [1, ", bsr_max_block_size, "]");
  validate(space, A);
  if (is_sorted(space, A)) return Impl::csr_to_bsr(space, A, block_size);
  auto sorted = clone(space, A);
  sort_rows(space, sorted);
  return Impl::csr_to_bsr(space, sorted, block_size);
}
template <class S, class O, class F, class D>
auto csr_to_bsr(const CsrMatrix<S, O, F, D>& A, int block_size) {
  return csr_to_bsr(typename CsrMatrix<S, O, F, D>::execution_space(), A, block_size);
}

struct BsrToCsrOptions {
  /// Leave out the stored zeros (block fill, and explicit zeros of the
  /// original matrix alike: BSR cannot tell them apart).
  bool drop_zeros = false;
};

/// B as CSR with sorted columns.
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> bsr_to_csr(const ExecSpace& space, const BsrMatrix<S, O, F, D>& B,
                                 const BsrToCsrOptions& options = {}) {
  Impl::check_access<ExecSpace, D>("bsr_to_csr");
  validate(space, B);
  return Impl::bsr_to_csr(space, B, options.drop_zeros);
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> bsr_to_csr(const BsrMatrix<S, O, F, D>& B,
                                 const BsrToCsrOptions& options = {}) {
  return bsr_to_csr(typename BsrMatrix<S, O, F, D>::execution_space(), B, options);
}

}  // namespace spk
