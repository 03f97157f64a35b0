// BsrMatrix: block compressed sparse row storage (square b × b blocks) in
// Kokkos Views.
#pragma once

#include <impl/spk_format_checks.hpp>
#include <limits>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// Largest block size BsrMatrix accepts (blocks are summed in registers).
inline constexpr int bsr_max_block_size = 16;

/// A num_rows × num_cols matrix stored as dense b × b blocks.
///
/// Block row I covers rows [I·b, I·b + b); its blocks are col_idx(k) (block
/// column numbers, strictly increasing within a block row), values for
/// k in [row_map(I), row_map(I + 1)).  Block k's entry (r, c) is
/// values(k·b² + r·b + c) (row-major blocks) and stands for A(I·b + r,
/// col_idx(k)·b + c).  When b does not divide num_rows or num_cols, the last
/// block row / column is padded: entries outside the matrix are stored as
/// zeros and never read by the kernels.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class BsrMatrix {
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
  using rebind_device = BsrMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  static_assert(std::is_integral_v<Ordinal> && std::is_integral_v<Offset>,
                "BsrMatrix: Ordinal and Offset must be integer types");

  BsrMatrix() = default;

  /// Wraps existing Views (no copy).  Checks the sizes, not the contents:
  /// call spk::validate() for that.
  BsrMatrix(Ordinal num_rows, Ordinal num_cols, int block_size, row_map_type row_map,
            index_type col_idx, values_type values)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        block_size_(block_size),
        row_map_(row_map),
        col_idx_(col_idx),
        values_(values) {
    SPK_REQUIRE(num_rows >= 0 && num_cols >= 0, InvalidMatrix, "BsrMatrix: negative size ",
                +num_rows, " x ", +num_cols);
    SPK_REQUIRE(block_size >= 1 && block_size <= bsr_max_block_size, InvalidMatrix,
                "BsrMatrix: block size ", block_size, " is outside [1, ", bsr_max_block_size, "]");
    SPK_REQUIRE(row_map_.extent(0) == static_cast<size_t>(num_block_rows()) + 1, InvalidMatrix,
                "BsrMatrix: row_map has ", row_map_.extent(0), " entries, expected ",
                static_cast<long long>(num_block_rows()) + 1, " (block rows + 1)");
    const size_t bb = static_cast<size_t>(block_size) * block_size;
    SPK_REQUIRE(values_.extent(0) == col_idx_.extent(0) * bb, InvalidMatrix,
                "BsrMatrix: ", col_idx_.extent(0), " blocks of ", block_size, " x ", block_size,
                " need ", col_idx_.extent(0) * bb, " values, got ", values_.extent(0));
    SPK_REQUIRE(col_idx_.extent(0) <= static_cast<size_t>(std::numeric_limits<Offset>::max()),
                Overflow, "BsrMatrix: ", col_idx_.extent(0), " blocks do not fit the offset type");
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  int block_size() const noexcept { return block_size_; }
  Ordinal num_block_rows() const noexcept { return blocks_in(num_rows_); }
  Ordinal num_block_cols() const noexcept { return blocks_in(num_cols_); }
  /// Stored blocks.
  Offset num_blocks() const noexcept { return static_cast<Offset>(col_idx_.extent(0)); }
  /// Stored scalars, padding and explicit zeros included (num_blocks · b²).
  size_t num_stored() const noexcept { return values_.extent(0); }
  const row_map_type& row_map() const noexcept { return row_map_; }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }

 private:
  Ordinal blocks_in(Ordinal n) const noexcept {
    return block_size_ > 0 ? static_cast<Ordinal>((n + block_size_ - 1) / block_size_) : 0;
  }

  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  int block_size_ = 1;
  row_map_type row_map_;
  index_type col_idx_;
  values_type values_;
};

/// Throws spk::InvalidMatrix naming the first bad block row when the block
/// pointers do not rise from 0 to num_blocks, a block column is out of range
/// or not strictly increasing within its block row, or a padded entry
/// (outside the num_rows × num_cols matrix) is not zero.
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const BsrMatrix<S, O, F, D>& A) {
  const long long nbr = A.num_block_rows(), nbc = A.num_block_cols(), nb = A.num_blocks();
  const long long m = A.num_rows(), n = A.num_cols();
  const int b = A.block_size();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  const long long first = Impl::first_bad_bsr_block_row(space, rm, ci, va, nbr, nbc, nb, m, n, b);
  if (first >= nbr) return;
  const auto hrm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rm);
  const auto hci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ci);
  const auto hva = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), va);
  const int why = Impl::bsr_row_defect(hrm, hci, hva, first, nbr, nbc, nb, m, n, b);
  static const char* reasons[] = {
      "is inconsistent", "has bad block pointers (they must rise from 0 to the number of blocks)",
      "has a block column outside [0, block columns)",
      "has block columns that are not strictly increasing (unsorted or duplicate blocks)",
      "has a non-zero entry in the padding outside the matrix"};
  throw InvalidMatrix(Impl::concat("BsrMatrix (", +A.num_rows(), " x ", +A.num_cols(),
                                   ", block size ", b, "): block row ", first, " ",
                                   reasons[why >= 0 && why <= 4 ? why : 0]));
}

/// A copy of B whose Views live in Space (shared when already there).
template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const BsrMatrix<S, O, F, D>& B) {
  using Result = BsrMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(B.num_rows(), B.num_cols(), B.block_size(),
                Kokkos::create_mirror_view_and_copy(MS(), B.row_map()),
                Kokkos::create_mirror_view_and_copy(MS(), B.col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), B.values()));
}

}  // namespace spk
