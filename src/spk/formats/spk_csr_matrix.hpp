// CsrMatrix: compressed sparse row storage in Kokkos Views.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>
#include <type_traits>

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
  /// CsrMatrix<const S, ...> is a read-only matrix: its three Views hold
  /// const data (as Kokkos Kernels' const CrsMatrix or the const Views a
  /// caller has); spk's operations accept it wherever they only read A.
  static constexpr bool is_const = std::is_const_v<Scalar>;
  using scalar_type = Scalar;
  using non_const_scalar_type = std::remove_const_t<Scalar>;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using row_map_type =
      Kokkos::View<std::conditional_t<is_const, const Offset, Offset>*, device_type>;
  using index_type =
      Kokkos::View<std::conditional_t<is_const, const Ordinal, Ordinal>*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;
  using const_type = CsrMatrix<const non_const_scalar_type, Ordinal, Offset, Device>;
  template <class OtherDevice>
  using rebind_device = CsrMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  static_assert(std::is_integral_v<Ordinal> && std::is_integral_v<Offset>,
                "CsrMatrix: Ordinal and Offset must be integer types");

  /// An empty 0 × 0 matrix that owns no memory (its row_map may be empty).
  CsrMatrix() = default;

  /// Allocates an uninitialised matrix with room for nnz entries; row_map is
  /// zero-filled.
  /// Allocates (a mutable matrix only): row_map zeroed, col_idx and values
  /// uninitialised.
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

  /// The read-only view of a mutable matrix (same Views, no copy).
  template <class Other, class = std::enable_if_t<is_const && std::is_same_v<const Other, Scalar>>>
  CsrMatrix(const CsrMatrix<Other, Ordinal, Offset, Device>& other)
      : num_rows_(other.num_rows()),
        num_cols_(other.num_cols()),
        row_map_(other.row_map()),
        col_idx_(other.col_idx()),
        values_(other.values()),
        keep_alive_(other.keep_alive()) {}

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  Offset nnz() const noexcept { return static_cast<Offset>(col_idx_.extent(0)); }
  const row_map_type& row_map() const noexcept { return row_map_; }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }

  /// Keeps an object alive as long as this matrix (used for zero-copy views of
  /// matrices owned by other libraries).
  void set_keep_alive(std::shared_ptr<const void> owner) { keep_alive_ = std::move(owner); }
  const std::shared_ptr<const void>& keep_alive() const noexcept { return keep_alive_; }

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

/// A CsrMatrix over a caller's row_map, col_idx and values Views (no
/// copy): num_rows is row_map's extent − 1, the types follow the Views',
/// and Views of const data (any of the three) give the read-only
/// CsrMatrix<const S, ...> that every operation reading A accepts.
template <class RowMap, class Cols, class Vals>
auto make_csr(long long num_cols, const RowMap& row_map, const Cols& col_idx, const Vals& values) {
  static_assert(Kokkos::is_view<RowMap>::value && Kokkos::is_view<Cols>::value &&
                    Kokkos::is_view<Vals>::value && RowMap::rank == 1 && Cols::rank == 1 &&
                    Vals::rank == 1,
                "spk::make_csr: row_map, col_idx and values must be rank-1 Kokkos::Views");
  using S = typename Vals::non_const_value_type;
  constexpr bool read_only = std::is_const_v<typename RowMap::value_type> ||
                             std::is_const_v<typename Cols::value_type> ||
                             std::is_const_v<typename Vals::value_type>;
  using M = CsrMatrix<std::conditional_t<read_only, const S, S>,
                      typename Cols::non_const_value_type, typename RowMap::non_const_value_type,
                      Kokkos::Device<typename Vals::execution_space, typename Vals::memory_space>>;
  SPK_REQUIRE(row_map.extent(0) >= 1, InvalidMatrix,
              "spk::make_csr: row_map is empty (it holds num_rows + 1 offsets)");
  SPK_REQUIRE(
      num_cols >= 0 &&
          num_cols <= static_cast<long long>(std::numeric_limits<typename M::ordinal_type>::max()),
      Overflow, "spk::make_csr: num_cols = ", num_cols,
      " does not fit the ordinal type of col_idx");
  return M(static_cast<typename M::ordinal_type>(row_map.extent(0) - 1),
           static_cast<typename M::ordinal_type>(num_cols), typename M::row_map_type(row_map),
           typename M::index_type(col_idx), typename M::values_type(values));
}

}  // namespace spk
