// The parallel baselines behind spk::baseline (spk_reference_spgemm.hpp):
// CSR × CSC dot products and the dense-output product.
#pragma once

#include <cstdint>
#include <impl/spk_spgemm_common.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>

namespace spk {
namespace Impl {

/// Sparse dot product of row i of a CSR matrix and column j of a CSC matrix
/// (both sorted): whether any index meets, and the sum.
template <class ARm, class ACi, class AV, class BCm, class BRi, class BV>
struct SparseDot {
  ARm arm;
  ACi aci;
  AV av;
  BCm bcm;
  BRi bri;
  BV bv;
  template <class O, class S>
  KOKKOS_INLINE_FUNCTION bool operator()(O i, O j, S& sum) const {
    auto ka = arm(i), ea = arm(i + 1);
    auto kb = bcm(j), eb = bcm(j + 1);
    bool hit = false;
    sum = S(0);
    while (ka < ea && kb < eb) {
      const auto ca = aci(ka), rb = bri(kb);
      if (ca < rb) {
        ++ka;
      } else if (rb < ca) {
        ++kb;
      } else {
        sum += av(ka) * bv(kb);
        hit = true;
        ++ka;
        ++kb;
      }
    }
    return hit;
  }
};

/// C = A·B with B given in CSC: entry (i, j) is the sparse dot product of
/// row i of A and column j of B (both sorted), for every j.  Two passes
/// (count, then fill), parallel over rows; O(m·n·(row + column length)).
/// A's rows and B's columns must be sorted.
template <class ExecSpace, class S, class O, class F, class DA, class DB>
static CsrMatrix<S, O, F, device_t<ExecSpace>> baseline_spgemm_dot(
    const ExecSpace& space, const CsrMatrix<S, O, F, DA>& A, const CscMatrix<S, O, F, DB>& B) {
  require_product_shapes(A, B, "spk::baseline::spgemm_dot");
  using Result = CsrMatrix<S, O, F, device_t<ExecSpace>>;
  const O m = A.num_rows(), n = B.num_cols();
  auto arm = A.row_map();
  auto aci = A.col_idx();
  auto av = A.values();
  auto bcm = B.col_map();
  auto bri = B.row_idx();
  auto bv = B.values();
  const SparseDot<decltype(arm), decltype(aci), decltype(av), decltype(bcm), decltype(bri),
                  decltype(bv)>
      dot{arm, aci, av, bcm, bri, bv};
  Kokkos::View<std::int64_t*, device_t<ExecSpace>> counts("spk::spgemm_dot::counts",
                                                          static_cast<size_t>(m) + 1);
  Kokkos::parallel_for(
      "spk::spgemm_dot::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i) {
        std::int64_t c = 0;
        S s;
        for (O j = 0; j < n; ++j) c += dot(i, j, s) ? 1 : 0;
        counts(i + 1) = c;
      });
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "spk::spgemm_dot::scan", Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const O i, std::int64_t& sum, const bool final) {
        sum += counts(i);
        if (final) counts(i) = sum;
      },
      total);
  require_fits_offset<F>(static_cast<std::uint64_t>(total), 0, "spk::baseline::spgemm_dot");
  Result C("spgemm_dot", m, n, static_cast<F>(total));
  auto crm = C.row_map();
  auto cci = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::spgemm_dot::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const O i) {
        crm(i) = static_cast<F>(counts(i));
        if (i == m) return;
        F k = static_cast<F>(counts(i));
        S s;
        for (O j = 0; j < n; ++j)
          if (dot(i, j, s)) {
            cci(k) = j;
            cv(k) = s;
            ++k;
          }
      });
  space.fence();
  return C;
}

/// C = A·B through a dense m × n array: one thread per entry of C runs the
/// dot product of row i of A (CSR) and column j of B (CSC), then the array
/// is compressed.  Entries that sum to exactly zero are dropped (the dense
/// array cannot tell them from absent ones).  Throws spk::Error when the
/// dense array would exceed max_bytes.
template <class ExecSpace, class S, class O, class F, class DA, class DB>
static CsrMatrix<S, O, F, device_t<ExecSpace>> baseline_spgemm_dense_output(
    const ExecSpace& space, const CsrMatrix<S, O, F, DA>& A, const CscMatrix<S, O, F, DB>& B,
    std::size_t max_bytes) {
  require_product_shapes(A, B, "spk::baseline::spgemm_dense_output");
  using Result = CsrMatrix<S, O, F, device_t<ExecSpace>>;
  const O m = A.num_rows(), n = B.num_cols();
  const double bytes = double(m) * double(n) * sizeof(S);
  SPK_REQUIRE(bytes <= double(max_bytes), Error, "spk::baseline::spgemm_dense_output: a dense ", +m,
              " x ", +n, " result needs ", bytes, " bytes, more than the ", max_bytes, " allowed");
  Kokkos::View<S**, Kokkos::LayoutRight, device_t<ExecSpace>> D(
      Kokkos::ViewAllocateWithoutInitializing("spk::spgemm_dense_output::dense"), m, n);
  auto arm = A.row_map();
  auto aci = A.col_idx();
  auto av = A.values();
  auto bcm = B.col_map();
  auto bri = B.row_idx();
  auto bv = B.values();
  const SparseDot<decltype(arm), decltype(aci), decltype(av), decltype(bcm), decltype(bri),
                  decltype(bv)>
      dot{arm, aci, av, bcm, bri, bv};
  using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "spk::spgemm_dense_output::dots", MD(space, {0, 0}, {m, n}),
      KOKKOS_LAMBDA(const O i, const O j) {
        S sum;
        dot(i, j, sum);
        D(i, j) = sum;
      });
  Kokkos::View<std::int64_t*, device_t<ExecSpace>> counts("spk::spgemm_dense_output::counts",
                                                          static_cast<size_t>(m) + 1);
  Kokkos::parallel_for(
      "spk::spgemm_dense_output::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i) {
        std::int64_t c = 0;
        for (O j = 0; j < n; ++j) c += D(i, j) != S(0) ? 1 : 0;
        counts(i + 1) = c;
      });
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "spk::spgemm_dense_output::scan", Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const O i, std::int64_t& sum, const bool final) {
        sum += counts(i);
        if (final) counts(i) = sum;
      },
      total);
  require_fits_offset<F>(static_cast<std::uint64_t>(total), 0,
                         "spk::baseline::spgemm_dense_output");
  Result C("spgemm_dense_output", m, n, static_cast<F>(total));
  auto crm = C.row_map();
  auto cci = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::spgemm_dense_output::compress", Kokkos::RangePolicy<ExecSpace>(space, 0, m + 1),
      KOKKOS_LAMBDA(const O i) {
        crm(i) = static_cast<F>(counts(i));
        if (i == m) return;
        F k = static_cast<F>(counts(i));
        for (O j = 0; j < n; ++j)
          if (D(i, j) != S(0)) {
            cci(k) = j;
            cv(k) = D(i, j);
            ++k;
          }
      });
  space.fence();
  return C;
}

}  // namespace Impl
}  // namespace spk
