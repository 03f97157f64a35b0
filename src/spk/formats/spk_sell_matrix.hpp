// SellMatrix: sliced ELLPACK with row sorting (SELL-C-σ, Kreutzer et al.
// 2014) in Kokkos Views.
#pragma once

#include <impl/spk_format_checks.hpp>
#include <limits>
#include <spk_compat.hpp>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <string>

namespace spk {

/// The slice height a SELL-C-σ matrix gets by default on ExecSpace: a warp
/// on GPUs (a thread per row, consecutive threads read consecutive slots), a
/// few SIMD lanes' worth on host spaces.
template <class ExecSpace>
constexpr int sell_default_slice_height() {
  return Impl::is_host_space_v<ExecSpace> ? 8 : 32;
}

/// Rows sorted together by length by default (a multiple of C).  Measured
/// (perf_spmv --formats sell:32:256,sell:32:4096,sell:32:65536 on an H200,
/// 15 matrices: power-law, R-MAT, arrow, five SuiteSparse graphs, FEM and
/// stencils; docs/formats.md): σ = 256 leaves power-law rows of unequal
/// length in a slice (1.6-2.0 slots per entry), 4096 stores 1.04-1.08 and ran
/// as fast or faster on 13 of them (power-law 1.1-1.26× faster); 65536 was
/// within 4 % of 4096 except on the smallest power-law matrix (1.13×).
/// Conversion times were within 15 % of each other.  On stencil and FEM rows
/// (nearly equal lengths, ties keep row order) σ changes nothing.
inline constexpr int sell_default_sigma = 4096;

/// A num_rows × num_cols matrix in SELL-C-σ form, with a spill for long rows.
///
/// The sliced part: rows are sorted by decreasing length within windows of
/// σ consecutive positions; position p holds row perm(p).  Positions are cut
/// into slices of C (slice_height) consecutive positions; slice s stores its
/// C rows side by side, column-major, padded to its longest row: slot
/// (r, k), the k-th entry of position s·C + r, is col_idx / values at
/// slice_ptr(s) + k·C + r.  Padding slots (a row's tail, and the positions
/// past the last one in the last slice) hold column index -1 and value 0; a
/// row's real entries come first.
///
/// The spill: rows far longer than the others (a power-law matrix's hubs),
/// which would pad their slice to their length and leave one thread summing
/// them, are kept out of the slices in CSR form: spill row i is row
/// spill_rows(i), its entries spill_col_idx / spill_values over
/// [spill_ptr(i), spill_ptr(i + 1)).  Every row is either a position of the
/// sliced part or a spill row, never both.  Ordinal must be signed.
template <class Scalar, class Ordinal = int, class Offset = int, class Device = DefaultDevice>
class SellMatrix {
 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using device_type = device_t<Device>;
  using execution_space = typename device_type::execution_space;
  using memory_space = typename device_type::memory_space;
  using slice_ptr_type = Kokkos::View<Offset*, device_type>;
  using index_type = Kokkos::View<Ordinal*, device_type>;
  using values_type = Kokkos::View<Scalar*, device_type>;
  template <class OtherDevice>
  using rebind_device = SellMatrix<Scalar, Ordinal, Offset, OtherDevice>;

  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal> &&
                    std::is_integral_v<Offset>,
                "SellMatrix: Ordinal must be a signed integer type (-1 marks padding) and "
                "Offset an integer type");

  SellMatrix() = default;

  /// Wraps existing Views (no copy), no spill; nnz is the number of real
  /// entries.  Checks the sizes, not the contents: call spk::validate() for
  /// that.
  SellMatrix(Ordinal num_rows, Ordinal num_cols, int slice_height, int sigma, Offset nnz,
             index_type perm, slice_ptr_type slice_ptr, index_type col_idx, values_type values)
      : SellMatrix(num_rows, num_cols, slice_height, sigma, nnz, perm, slice_ptr, col_idx, values,
                   index_type("sell.spill_rows", 0), slice_ptr_type("sell.spill_ptr", 1),
                   index_type("sell.spill_col_idx", 0), values_type("sell.spill_values", 0)) {}

  /// The same with a spill: perm lists num_rows - spill_rows.extent(0)
  /// positions, nnz counts the real entries of both parts.
  SellMatrix(Ordinal num_rows, Ordinal num_cols, int slice_height, int sigma, Offset nnz,
             index_type perm, slice_ptr_type slice_ptr, index_type col_idx, values_type values,
             index_type spill_rows, slice_ptr_type spill_ptr, index_type spill_col_idx,
             values_type spill_values)
      : num_rows_(num_rows),
        num_cols_(num_cols),
        slice_height_(slice_height),
        sigma_(sigma),
        nnz_(nnz),
        perm_(perm),
        slice_ptr_(slice_ptr),
        col_idx_(col_idx),
        values_(values),
        spill_rows_(spill_rows),
        spill_ptr_(spill_ptr),
        spill_col_idx_(spill_col_idx),
        spill_values_(spill_values) {
    SPK_REQUIRE(num_rows >= 0 && num_cols >= 0, InvalidMatrix, "SellMatrix: negative size ",
                +num_rows, " x ", +num_cols);
    SPK_REQUIRE(slice_height >= 1 && sigma >= 1, InvalidMatrix, "SellMatrix: slice height ",
                slice_height, " and sigma ", sigma, " must be at least 1");
    SPK_REQUIRE(perm_.extent(0) + spill_rows_.extent(0) == static_cast<size_t>(num_rows),
                InvalidMatrix, "SellMatrix: perm has ", perm_.extent(0), " entries and the spill ",
                spill_rows_.extent(0), " rows, expected ", +num_rows, " in all");
    SPK_REQUIRE(spill_ptr_.extent(0) == spill_rows_.extent(0) + 1 &&
                    spill_col_idx_.extent(0) == spill_values_.extent(0),
                InvalidMatrix, "SellMatrix: the spill has ", spill_rows_.extent(0), " rows, ",
                spill_ptr_.extent(0), " row pointers, ", spill_col_idx_.extent(0),
                " column indices and ", spill_values_.extent(0), " values");
    SPK_REQUIRE(slice_ptr_.extent(0) == static_cast<size_t>(num_slices()) + 1, InvalidMatrix,
                "SellMatrix: slice_ptr has ", slice_ptr_.extent(0), " entries, expected ",
                static_cast<long long>(num_slices()) + 1, " (slices + 1)");
    SPK_REQUIRE(col_idx_.extent(0) == values_.extent(0), InvalidMatrix, "SellMatrix: col_idx has ",
                col_idx_.extent(0), " slots but values has ", values_.extent(0));
  }

  Ordinal num_rows() const noexcept { return num_rows_; }
  Ordinal num_cols() const noexcept { return num_cols_; }
  int slice_height() const noexcept { return slice_height_; }
  int sigma() const noexcept { return sigma_; }
  /// Rows in the sliced part (the spill holds the others).
  Ordinal num_positions() const noexcept { return static_cast<Ordinal>(perm_.extent(0)); }
  Ordinal num_slices() const noexcept {
    return static_cast<Ordinal>((num_positions() + slice_height_ - 1) / slice_height_);
  }
  /// Real entries of both parts (not counting padding).
  Offset nnz() const noexcept { return nnz_; }
  /// Slots, padding included, plus the spill's entries.
  size_t num_stored() const noexcept { return values_.extent(0) + spill_values_.extent(0); }
  /// Rows in the spill.
  Ordinal num_spilled() const noexcept { return static_cast<Ordinal>(spill_rows_.extent(0)); }
  const index_type& perm() const noexcept { return perm_; }
  const slice_ptr_type& slice_ptr() const noexcept { return slice_ptr_; }
  const index_type& col_idx() const noexcept { return col_idx_; }
  const values_type& values() const noexcept { return values_; }
  const index_type& spill_rows() const noexcept { return spill_rows_; }
  const slice_ptr_type& spill_ptr() const noexcept { return spill_ptr_; }
  const index_type& spill_col_idx() const noexcept { return spill_col_idx_; }
  const values_type& spill_values() const noexcept { return spill_values_; }

 private:
  Ordinal num_rows_ = 0;
  Ordinal num_cols_ = 0;
  int slice_height_ = 1;
  int sigma_ = 1;
  Offset nnz_ = 0;
  index_type perm_;
  slice_ptr_type slice_ptr_;
  index_type col_idx_;
  values_type values_;
  index_type spill_rows_;
  slice_ptr_type spill_ptr_;
  index_type spill_col_idx_;
  values_type spill_values_;
};

/// Throws spk::InvalidMatrix naming the first bad slice or spill row: slice
/// pointers not rising from 0 to the number of slots in multiples of C, a
/// column index outside [-1, num_cols), a real entry after padding, spill
/// pointers not rising from 0 to the spill's entries, a spill column
/// outside [0, num_cols), or a row listed twice (in perm, in the spill, or
/// in both).
template <class ExecSpace, class S, class O, class F, class D>
void validate(const ExecSpace& space, const SellMatrix<S, O, F, D>& A) {
  const long long ns = A.num_slices(), m = A.num_rows(), n = A.num_cols();
  const long long C = A.slice_height(), slots = A.values().extent(0);
  Kokkos::View<int*, typename SellMatrix<S, O, F, D>::memory_space> seen("spk::validate_sell", m);
  const long long first = Impl::first_bad_sell_slice(space, ns, A.num_positions(), m, n, C, slots,
                                                     A.slice_ptr(), A.col_idx(), A.perm(), seen);
  SPK_REQUIRE(first >= ns, InvalidMatrix, "SellMatrix (", m, " x ", n, ", C = ", C, "): slice ",
              first,
              " is bad (slice pointers, a column index outside [-1, num_cols), an entry after "
              "padding, or a row that perm lists twice)");
  const long long k = A.num_spilled();
  const long long bad = Impl::first_bad_sell_spill(space, k, m, n, A.spill_rows(), A.spill_ptr(),
                                                   A.spill_col_idx(), seen);
  SPK_REQUIRE(bad >= k, InvalidMatrix, "SellMatrix (", m, " x ", n, "): spill row ", bad,
              " is bad (spill pointers, a row outside [0, num_rows) or listed twice, or a "
              "column index outside [0, num_cols))");
}

/// A copy of A whose Views live in Space (shared when already there).
template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const SellMatrix<S, O, F, D>& A) {
  using Result = SellMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(A.num_rows(), A.num_cols(), A.slice_height(), A.sigma(), A.nnz(),
                Kokkos::create_mirror_view_and_copy(MS(), A.perm()),
                Kokkos::create_mirror_view_and_copy(MS(), A.slice_ptr()),
                Kokkos::create_mirror_view_and_copy(MS(), A.col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.values()),
                Kokkos::create_mirror_view_and_copy(MS(), A.spill_rows()),
                Kokkos::create_mirror_view_and_copy(MS(), A.spill_ptr()),
                Kokkos::create_mirror_view_and_copy(MS(), A.spill_col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.spill_values()));
}

}  // namespace spk
