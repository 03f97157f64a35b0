// HybMatrix: ELLPACK for the first `width` entries of every row, COO for
// the rest (Bell & Garland's HYB) in Kokkos Views.
#pragma once

#include <spk_coo_matrix.hpp>
#include <spk_ell_matrix.hpp>
#include <spk_mirror.hpp>
#include <spk_validate.hpp>

namespace spk {

/// A num_rows × num_cols matrix as ell() + coo(): the ELL part holds up to
/// width() entries of each row, the COO part (the spill) the entries of the
/// longer rows beyond that.  Both parts have the full shape.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class HybMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using ell_type = EllMatrix<Scalar, Ordinal, Offset, Device>;
  using coo_type = CooMatrix<Scalar, Ordinal, Offset, Device>;
  template <class OtherDevice>
  using rebind_device = HybMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  HybMatrix() = default;
  HybMatrix(ell_type ell, coo_type coo) : ell_(ell), coo_(coo) {
    SPK_REQUIRE(ell_.num_rows() == coo_.num_rows() && ell_.num_cols() == coo_.num_cols(),
                InvalidMatrix, "HybMatrix: the ELL part is ", +ell_.num_rows(), " x ",
                +ell_.num_cols(), " but the COO part ", +coo_.num_rows(), " x ", +coo_.num_cols());
  }

  Ordinal num_rows() const noexcept { return ell_.num_rows(); }
  Ordinal num_cols() const noexcept { return ell_.num_cols(); }
  Ordinal width() const noexcept { return ell_.width(); }
  Offset nnz() const noexcept { return static_cast<Offset>(ell_.nnz() + coo_.nnz()); }
  /// Slots, the ELL padding included.
  size_t num_stored() const noexcept { return ell_.num_stored() + coo_.values().extent(0); }
  const ell_type& ell() const noexcept { return ell_; }
  const coo_type& coo() const noexcept { return coo_; }

 private:
  ell_type ell_;
  coo_type coo_;
};

template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const HybMatrix<S, O, F, D>& A) {
  validate(space, A.ell());
  validate(space, A.coo());
}

/// A copy of A whose Views live in Space (shared when already there).
template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space& space, const HybMatrix<S, O, F, D>& A) {
  using Result = HybMatrix<S, O, F, device_t<Space>>;
  return Result(create_mirror_view_and_copy(space, A.ell()),
                create_mirror_view_and_copy(space, A.coo()));
}

}  // namespace spk
