// CSR <-> SELL-C-σ conversions as Kokkos parallel patterns.
//
//   csr_to_sell(space, A, options)   rows far longer than the mean to the
//                                    spill (CSR form), the others sorted by
//                                    length within windows of σ, cut into
//                                    slices of C, each padded to its longest
//                                    row (column -1, value 0)
//   sell_to_csr(space, S)            back to A exactly (rows in their
//                                    original order, entries in row order)
#pragma once

#include <impl/spk_convert_sell_impl.hpp>
#include <impl/spk_csr_operand.hpp>
#include <spk_convert.hpp>
#include <spk_sell_matrix.hpp>
#include <spk_spmv_tuning.hpp>
#include <spk_validate.hpp>

namespace spk {

struct SellOptions {
  int slice_height = 0;  ///< C; 0: sell_default_slice_height of the execution space
  int sigma = 0;         ///< σ, rows sorted together; 0: sell_default_sigma; 1: no sorting
  /// Rows longer than this go to the spill; 0: sell_default_spill_width;
  /// -1: no spill.
  long long spill_width = 0;
};

/// Rows longer than this go to the spill by default: a multiple of the mean
/// row length with a floor, and on GPUs at most a few entries per resident
/// thread of the device (spmv_tuning(space)'s sell_spill_width_* values,
/// measured there).  A slice is as slow as its longest row, while the spill
/// cuts rows into pieces that a lane group (GPUs) or a thread (host spaces)
/// sums.
template <class ExecSpace>
long long sell_default_spill_width(const ExecSpace& space, long long rows, long long nnz) {
  return Impl::sell_spill_width(space, spmv_tuning(space), rows, nnz);
}

template <class ExecSpace, class S, class O, class F, class D>
SellMatrix<std::remove_const_t<S>, O, F, D> csr_to_sell(const ExecSpace& space,
                                                        const CsrMatrix<S, O, F, D>& A_in,
                                                        const SellOptions& options = {}) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_sell");
  const int C =
      options.slice_height > 0 ? options.slice_height : sell_default_slice_height<ExecSpace>();
  const int sigma = options.sigma > 0 ? options.sigma : sell_default_sigma;
  SPK_REQUIRE(options.slice_height >= 0 && options.sigma >= 0 && C <= 1024, InvalidMatrix,
              "csr_to_sell: slice height ", options.slice_height, " and sigma ", options.sigma,
              " must be >= 0 (0: default), the slice height at most 1024");
  SPK_REQUIRE(options.spill_width >= -1, InvalidMatrix, "csr_to_sell: spill width ",
              options.spill_width, " must be >= -1 (0: default, -1: no spill)");
  validate(space, A);
  const long long spill_over = options.spill_width > 0 ? options.spill_width
                               : options.spill_width == 0
                                   ? sell_default_spill_width(space, A.num_rows(), A.nnz())
                                   : std::numeric_limits<long long>::max();
  return Impl::csr_to_sell(space, A, C, sigma, spill_over);
}
template <class S, class O, class F, class D>
auto csr_to_sell(const CsrMatrix<S, O, F, D>& A, const SellOptions& options = {}) {
  return csr_to_sell(typename CsrMatrix<S, O, F, D>::execution_space(), A, options);
}

template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> sell_to_csr(const ExecSpace& space, const SellMatrix<S, O, F, D>& A) {
  Impl::check_access<ExecSpace, D>("sell_to_csr");
  validate(space, A);
  return Impl::sell_to_csr(space, A);
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> sell_to_csr(const SellMatrix<S, O, F, D>& A) {
  return sell_to_csr(typename SellMatrix<S, O, F, D>::execution_space(), A);
}

}  // namespace spk
