// Moving matrices between memory spaces.
#pragma once

#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>

namespace spk {

/// A copy of A whose Views live in Space (an execution space, memory space or
/// Kokkos::Device), like Kokkos::create_mirror_view_and_copy: when A is
/// already in Space's memory the Views are shared, not copied.
template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const CsrMatrix<S, O, F, D>& A) {
  using Result = CsrMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(A.num_rows(), A.num_cols(), Kokkos::create_mirror_view_and_copy(MS(), A.row_map()),
                Kokkos::create_mirror_view_and_copy(MS(), A.col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.values()));
}

template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const CscMatrix<S, O, F, D>& A) {
  using Result = CscMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(A.num_rows(), A.num_cols(), Kokkos::create_mirror_view_and_copy(MS(), A.col_map()),
                Kokkos::create_mirror_view_and_copy(MS(), A.row_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.values()));
}

template <class Space, class S, class O, class F, class D>
auto create_mirror_view_and_copy(const Space&, const CooMatrix<S, O, F, D>& A) {
  using Result = CooMatrix<S, O, F, device_t<Space>>;
  using MS = typename Result::memory_space;
  return Result(A.num_rows(), A.num_cols(), Kokkos::create_mirror_view_and_copy(MS(), A.row_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.col_idx()),
                Kokkos::create_mirror_view_and_copy(MS(), A.values()));
}

/// create_mirror_view_and_copy into host memory (HostDevice).
template <class Matrix>
auto create_mirror_view_and_copy_host(const Matrix& A) {
  return create_mirror_view_and_copy(HostDevice(), A);
}

/// A deep copy of A in Space, never sharing Views with A.
template <class Space, class S, class O, class F, class D>
auto clone(const Space&, const CsrMatrix<S, O, F, D>& A) {
  using Result = CsrMatrix<S, O, F, device_t<Space>>;
  Result B("clone", A.num_rows(), A.num_cols(), A.nnz());
  if (A.row_map().extent(0) == B.row_map().extent(0)) Kokkos::deep_copy(B.row_map(), A.row_map());
  Kokkos::deep_copy(B.col_idx(), A.col_idx());
  Kokkos::deep_copy(B.values(), A.values());
  return B;
}

/// Copies src's contents into dst, which must have the same shape and nnz.
template <class S, class O, class F, class D1, class D2>
void deep_copy(const CsrMatrix<S, O, F, D1>& dst, const CsrMatrix<S, O, F, D2>& src) {
  SPK_REQUIRE(dst.num_rows() == src.num_rows() && dst.num_cols() == src.num_cols() &&
                  dst.nnz() == src.nnz(),
              ShapeMismatch, "spk::deep_copy: destination is ", +dst.num_rows(), "x",
              +dst.num_cols(), " with ", +dst.nnz(), " entries, source is ", +src.num_rows(), "x",
              +src.num_cols(), " with ", +src.nnz());
  Kokkos::deep_copy(dst.row_map(), src.row_map());
  Kokkos::deep_copy(dst.col_idx(), src.col_idx());
  Kokkos::deep_copy(dst.values(), src.values());
}

}  // namespace spk
