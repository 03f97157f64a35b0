// CsrMatrix: compressed sparse row storage in Kokkos Views.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// A num_rows × num_cols matrix in CSR form.
///
/// Row i's entries are col_idx(k), values(k) for k in [row_map(i), row_map(i+1)).
/// row_map has num_rows + 1 entries of type Offset, so Offset bounds nnz
/// (int: up to 2^31 - 1 entries; int64_t or size_t for larger matrices).
/// The object is a cheap host-side handle: copies share the Views.  Kernels
/// capture the Views, never the matrix object.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class CsrMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using row_map_type = Kokkos::View<Offset*, device_type>;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;
  template <class OtherDevice>
  using rebind_device = CsrMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  static_assert(std::is_integral_v<Ordinal> && std::is_integral_v<Offset>,
                "CsrMatrix: Ordinal and Offset must be integer types");

  /// An empty 0 × 0 matrix that owns no memory (its row_map may be empty).
  CsrMatrix() = default;

  /// Allocates an uninitialised matrix with room for nnz entries; row_map is
  /// zero-filled.
  CsrMatrix(const std::string& label, Ordinal num_rows, Ordinal num_cols, Offset nnz)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        row_map_(label + ".row_map", checked_extent(num_rows, num_cols) + 1),
        col_idx_(Kokkos::ViewAllocateWithoutInitializing(label + ".col_idx"), checked_nnz(nnz)),
        values_(Kokkos::ViewAllocateWithoutInitializing(label + ".values"), checked_nnz(nnz)) {}

  /// Wraps existing Views (no copy).  Checks the extents, not the contents:
  /// call spk::validate() for that.
  CsrMatrix(Ordinal num_rows, Ordinal num_cols, row_map_type row_map, index_type col_idx,
            values_type values)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        row_map_(row_map),
        col_idx_(col_idx),
        values_(values) {
    checked_extent(num_rows, num_cols);
    SPK_REQUIRE(row_map_.extent(0) == static_cast<size_t>(num_rows) + 1, InvalidMatrix,
                "CsrMatrix: row_map has ", row_map_.extent(0),
                " entries, expected num_rows + 1 = ", static_cast<long long>(num_rows) + 1);
    SPK_REQUIRE(col_idx_.extent(0) == values_.extent(0), InvalidMatrix, "CsrMatrix: col_idx has ",
                col_idx_.extent(0), " entries but values has ", values_.extent(0));
    checked_nnz(col_idx_.extent(0));
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  Offset nnz() const noexcept { return static_cast<Offset>(col_idx_.extent(0)); }
  const row_map_type& row_map() const noexcept { return row_map_; }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }

  /// Keeps an object alive as long as this matrix (used for zero-copy views of
  /// matrices owned by other libraries).
  void set_keep_alive(std::shared_ptr<const void> owner) { keep_alive_ = std::move(owner); }

 private:
  static size_t checked_extent(Ordinal rows, Ordinal cols) {
    SPK_REQUIRE(rows >= 0 && cols >= 0, InvalidMatrix, "CsrMatrix: negative size ", +rows, " x ",
                +cols);
    return static_cast<size_t>(rows);
  }
  template <class N>
  static size_t checked_nnz(N nnz) {
    SPK_REQUIRE(!Impl::is_negative(nnz) &&
                    static_cast<unsigned long long>(nnz) <=
                        static_cast<unsigned long long>(std::numeric_limits<Offset>::max()),
                Overflow, "CsrMatrix: nnz = ", +nnz, " does not fit the offset type (max ",
                +std::numeric_limits<Offset>::max(), ")");
    return static_cast<size_t>(nnz);
  }

  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  row_map_type row_map_;
  index_type col_idx_;
  values_type values_;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace spk
