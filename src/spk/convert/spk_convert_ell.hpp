// CSR <-> ELL and CSR <-> HYB conversions as Kokkos parallel patterns.
//
//   csr_to_ell(space, A, options)   every row padded to one width (the
//                                   longest row, or options.width: a longer
//                                   row is an error that names it)
//   ell_to_csr(space, E)            the real entries, rows in order
//   csr_to_hyb(space, A, options)   ELL for the first `width` entries of each
//                                   row (width from the row-length histogram
//                                   unless given), COO for the rest
//   hyb_to_csr(space, H)            sorted, duplicates summed (coo_to_csr)
#pragma once

#include <impl/spk_convert_ell_impl.hpp>
#include <impl/spk_csr_operand.hpp>
#include <spk_convert.hpp>
#include <spk_ell_matrix.hpp>
#include <spk_hyb_matrix.hpp>
#include <spk_validate.hpp>

namespace spk {

struct EllOptions {
  /// Slots per row; -1: the longest row's length.
  long long width = -1;
  /// Most slots ELL may hold, as a multiple of max(nnz, rows), beyond a
  /// fixed allowance of ell_slot_allowance slots; a larger padding is an error
  /// that names the longest row.  A power-law matrix's hub row would otherwise
  /// pad every row to its length (a 10^6-row graph asked 191 GiB for 8·10^6
  /// entries).  0 or less: no cap.
  double max_fill = 16;
};

/// Slots every ELL matrix may hold whatever its fill: small matrices with one
/// dense row stay convertible.
inline constexpr long long ell_slot_allowance = 1LL << 20;

template <class ExecSpace, class S, class O, class F, class D>
EllMatrix<std::remove_const_t<S>, O, F, D> csr_to_ell(const ExecSpace& space,
                                                      const CsrMatrix<S, O, F, D>& A_in,
                                                      const EllOptions& options = {}) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_ell");
  validate(space, A);
  const long long m = A.num_rows();
  long long width = options.width;
  if (width < 0) {
    width = Impl::longest_row(space, A.row_map(), m);
  } else {
    const long long r = Impl::first_row_longer_than(space, A.row_map(), m, width);
    if (r < m) {
      const long long len = static_cast<long long>(Impl::read_element(A.row_map(), r + 1)) -
                            static_cast<long long>(Impl::read_element(A.row_map(), r));
      throw InvalidMatrix(Impl::concat(
          "csr_to_ell: row ", r, " has ", len, " entries, more than the ELL width ", width,
          "; use a larger width, or HYB (csr_to_hyb), which keeps the entries past the "
          "width in COO form"));
    }
  }
  Impl::check_ell_padding(space, A, width, options.width < 0, options.max_fill, ell_slot_allowance);
  return Impl::csr_to_ell(space, A, width);
}
template <class S, class O, class F, class D>
auto csr_to_ell(const CsrMatrix<S, O, F, D>& A, const EllOptions& options = {}) {
  return csr_to_ell(typename CsrMatrix<S, O, F, D>::execution_space(), A, options);
}

template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> ell_to_csr(const ExecSpace& space, const EllMatrix<S, O, F, D>& E) {
  Impl::check_access<ExecSpace, D>("ell_to_csr");
  validate(space, E);
  return Impl::ell_to_csr(space, E);
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> ell_to_csr(const EllMatrix<S, O, F, D>& E) {
  return ell_to_csr(typename EllMatrix<S, O, F, D>::execution_space(), E);
}

struct HybOptions {
  /// ELL slots per row; -1: from the row-length histogram
  /// (Impl::hyb_width_from_histogram).
  long long width = -1;
};

/// The ELL width csr_to_hyb picks for A when none is given.
template <class ExecSpace, class S, class O, class F, class D>
long long hyb_default_width(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A_in) {
  const auto A = Impl::as_operand(A_in);
  const long long m = A.num_rows();
  const long long longest = Impl::longest_row(space, A.row_map(), m);
  return Impl::hyb_width_from_histogram(Impl::row_length_histogram(space, A.row_map(), m, longest),
                                        m);
}

template <class ExecSpace, class S, class O, class F, class D>
HybMatrix<std::remove_const_t<S>, O, F, D> csr_to_hyb(const ExecSpace& space,
                                                      const CsrMatrix<S, O, F, D>& A_in,
                                                      const HybOptions& options = {}) {
  const auto A = Impl::as_operand(A_in);
  Impl::check_access<ExecSpace, D>("csr_to_hyb");
  validate(space, A);
  const long long width = options.width >= 0 ? options.width : hyb_default_width(space, A);
  return HybMatrix<std::remove_const_t<S>, O, F, D>(Impl::csr_to_ell(space, A, width),
                                                    Impl::csr_spill_to_coo(space, A, width));
}
template <class S, class O, class F, class D>
auto csr_to_hyb(const CsrMatrix<S, O, F, D>& A, const HybOptions& options = {}) {
  return csr_to_hyb(typename CsrMatrix<S, O, F, D>::execution_space(), A, options);
}

/// H as CSR, columns sorted and duplicates summed.
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> hyb_to_csr(const ExecSpace& space, const HybMatrix<S, O, F, D>& H) {
  Impl::check_access<ExecSpace, D>("hyb_to_csr");
  validate(space, H);
  return coo_to_csr(space, Impl::ell_and_coo_to_coo(space, H.ell(), H.coo()));
}
template <class S, class O, class F, class D>
CsrMatrix<S, O, F, D> hyb_to_csr(const HybMatrix<S, O, F, D>& H) {
  return hyb_to_csr(typename HybMatrix<S, O, F, D>::execution_space(), H);
}

}  // namespace spk
