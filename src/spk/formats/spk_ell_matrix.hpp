// EllMatrix: ELLPACK storage (every row padded to one width, column-major)
// in Kokkos Views.
#pragma once

#include <impl/spk_format_checks.hpp>
#include <limits>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// A num_rows × num_cols matrix in ELLPACK form.
///
/// col_idx and values are num_rows × width LayoutLeft Views (column-major:
/// slot (i, k) of row i is at k·num_rows + i, so threads of consecutive
/// rows read consecutive memory).  Row i's real entries are slots
/// (i, 0..len-1); the rest is padding: column index -1, value 0.  Ordinal
/// must be signed.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class EllMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using index_type = Kokkos::View<Ordinal**, Kokkos::LayoutLeft, device_type>;
  using values_type = Kokkos::View<Scalar**, Kokkos::LayoutLeft, device_type>;
  template <class OtherDevice>
  using rebind_device = EllMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal> &&
                    std::is_integral_v<Offset>,
                "EllMatrix: Ordinal must be a signed integer type (-1 marks padding) and Offset "
                "an integer type");

  EllMatrix() = default;

  /// Wraps existing Views (no copy); nnz is the number of real entries.
  /// Checks the sizes, not the contents: call spk::validate() for that.
  EllMatrix(Ordinal num_rows, Ordinal num_cols, Offset nnz, index_type col_idx, values_type values)
      : num_rows_(num_rows), num_cols_(num_cols), nnz_(nnz), col_idx_(col_idx), values_(values) {
    SPK_REQUIRE(num_rows >= 0 && num_cols >= 0, InvalidMatrix, "EllMatrix: negative size ",
                +num_rows, " x ", +num_cols);
    SPK_REQUIRE(col_idx_.extent(0) == static_cast<size_t>(num_rows) &&
                    values_.extent(0) == col_idx_.extent(0) &&
                    values_.extent(1) == col_idx_.extent(1),
                InvalidMatrix, "EllMatrix: col_idx is ", col_idx_.extent(0), " x ",
                col_idx_.extent(1), " and values ", values_.extent(0), " x ", values_.extent(1),
                "; both must be num_rows (", +num_rows, ") x width");
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  /// Slots per row.
  Ordinal width() const noexcept { return static_cast<Ordinal>(col_idx_.extent(1)); }
  /// Real entries (not counting padding).
  Offset nnz() const noexcept { return nnz_; }
  /// Slots, padding included.
  size_t num_stored() const noexcept { return values_.size(); }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }

 private:
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  Offset nnz_ = 0;
  index_type col_idx_;
  values_type values_;
};

/// Throws spk::InvalidMatrix naming the first row with a column index
/// outside [-1, num_cols) or a real entry after padding.
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const EllMatrix<S, O, F, D>& A) {
  const long long m = A.num_rows(), n = A.num_cols(), w = A.width();
  auto ci = A.col_idx();
  const long long first = Impl::first_bad_ell_row(space, m, n, w, ci);
  SPK_REQUIRE(first >= m, InvalidMatrix, "EllMatrix (", m, " x ", n, ", width ", w, "): row ",
              first, " has a column index outside [-1, ", n,
              ") or an entry after its padding (-1)");
}

/// A copy of A whose Views live in Space (shared when already there).
template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const EllMatrix<S, O, F, D>& A) {
  using Result = EllMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(A.num_rows(), A.num_cols(), A.nnz(),
                Kokkos::create_mirror_view_and_copy(MS(), A.col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.values()));
}

}  // namespace spk
