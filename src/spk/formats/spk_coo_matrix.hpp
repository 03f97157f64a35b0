// CooMatrix: coordinate (triplet) storage in Kokkos Views.
#pragma once

#include <limits>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// A num_rows × num_cols matrix as nnz triplets (row_idx(k), col_idx(k),
/// values(k)) in any order; duplicates are allowed and mean "sum".  Offset is
/// the type that counts entries, as in CsrMatrix.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class CooMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;
  template <class OtherDevice>
  using rebind_device = CooMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  CooMatrix() = default;

  CooMatrix(const std::string& label, Ordinal num_rows, Ordinal num_cols, Offset nnz)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        row_idx_(Kokkos::ViewAllocateWithoutInitializing(label + ".row_idx"), checked_nnz(nnz)),
        col_idx_(Kokkos::ViewAllocateWithoutInitializing(label + ".col_idx"), checked_nnz(nnz)),
        values_(Kokkos::ViewAllocateWithoutInitializing(label + ".values"), checked_nnz(nnz)) {
    check_shape(num_rows, num_cols);
  }

  CooMatrix(Ordinal num_rows, Ordinal num_cols, index_type row_idx, index_type col_idx,
            values_type values)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        row_idx_(row_idx),
        col_idx_(col_idx),
        values_(values) {
    check_shape(num_rows, num_cols);
    SPK_REQUIRE(row_idx_.extent(0) == col_idx_.extent(0) && col_idx_.extent(0) == values_.extent(0),
                InvalidMatrix, "CooMatrix: row_idx, col_idx and values have ", row_idx_.extent(0),
                ", ", col_idx_.extent(0), " and ", values_.extent(0), " entries; they must agree");
    checked_nnz(row_idx_.extent(0));
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  Offset nnz() const noexcept { return static_cast<Offset>(row_idx_.extent(0)); }
  const index_type& row_idx() const noexcept { return row_idx_; }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }

 private:
  static void check_shape(Ordinal rows, Ordinal cols) {
    SPK_REQUIRE(rows >= 0 && cols >= 0, InvalidMatrix, "CooMatrix: negative size ", +rows, " x ",
                +cols);
  }
  template <class N>
  static size_t checked_nnz(N nnz) {
    SPK_REQUIRE(!Impl::is_negative(nnz) &&
                    static_cast<unsigned long long>(nnz) <=
                        static_cast<unsigned long long>(std::numeric_limits<Offset>::max()),
                Overflow, "CooMatrix: nnz = ", +nnz, " does not fit the offset type (max ",
                +std::numeric_limits<Offset>::max(), ")");
    return static_cast<size_t>(nnz);
  }

  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  index_type row_idx_;
  index_type col_idx_;
  values_type values_;
};

}  // namespace spk
