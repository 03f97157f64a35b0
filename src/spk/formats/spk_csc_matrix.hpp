// CscMatrix: compressed sparse column storage in Kokkos Views.
#pragma once

#include <limits>
#include <memory>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// A num_rows × num_cols matrix in CSC form: column j's entries are
/// row_idx(k), values(k) for k in [col_map(j), col_map(j+1)).  Structurally the
/// CSR form of the transpose; see CsrMatrix for the conventions.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class CscMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using col_map_type = Kokkos::View<Offset*, device_type>;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;
  template <class OtherDevice>
  using rebind_device = CscMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  CscMatrix() = default;

  CscMatrix(const std::string& label, Ordinal num_rows, Ordinal num_cols, Offset nnz)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        col_map_(label + ".col_map", checked_cols(num_rows, num_cols) + 1),
        row_idx_(Kokkos::ViewAllocateWithoutInitializing(label + ".row_idx"), checked_nnz(nnz)),
        values_(Kokkos::ViewAllocateWithoutInitializing(label + ".values"), checked_nnz(nnz)) {}

  CscMatrix(Ordinal num_rows, Ordinal num_cols, col_map_type col_map, index_type row_idx,
            values_type values)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        col_map_(col_map),
        row_idx_(row_idx),
        values_(values) {
    checked_cols(num_rows, num_cols);
    SPK_REQUIRE(col_map_.extent(0) == static_cast<size_t>(num_cols) + 1, InvalidMatrix,
                "CscMatrix: col_map has ", col_map_.extent(0),
                " entries, expected num_cols + 1 = ", static_cast<long long>(num_cols) + 1);
    SPK_REQUIRE(row_idx_.extent(0) == values_.extent(0), InvalidMatrix, "CscMatrix: row_idx has ",
                row_idx_.extent(0), " entries but values has ", values_.extent(0));
    checked_nnz(row_idx_.extent(0));
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  Offset nnz() const noexcept { return static_cast<Offset>(row_idx_.extent(0)); }
  const col_map_type& col_map() const noexcept { return col_map_; }
  const index_type& row_idx() const noexcept { return row_idx_; }
  const values_type& values() const noexcept { return values_; }

 private:
  static size_t checked_cols(Ordinal rows, Ordinal cols) {
    SPK_REQUIRE(rows >= 0 && cols >= 0, InvalidMatrix, "CscMatrix: negative size ", +rows, " x ",
                +cols);
    return static_cast<size_t>(cols);
  }
  template <class N>
  static size_t checked_nnz(N nnz) {
    SPK_REQUIRE(!Impl::is_negative(nnz) &&
                    static_cast<unsigned long long>(nnz) <=
                        static_cast<unsigned long long>(std::numeric_limits<Offset>::max()),
                Overflow, "CscMatrix: nnz = ", +nnz, " does not fit the offset type (max ",
                +std::numeric_limits<Offset>::max(), ")");
    return static_cast<size_t>(nnz);
  }

  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  col_map_type col_map_;
  index_type row_idx_;
  values_type values_;
};

}  // namespace spk
