// Kernels behind spk_convert_sell.hpp.
#pragma once

#include <impl/spk_convert_bsr_impl.hpp>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_segmented_sort.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_sell_matrix.hpp>

namespace spk::Impl {

/// Orders row numbers by decreasing length, ties by row number (a stable
/// sort, so σ = 1 and equal lengths keep the original order).
template <class RowMap>
struct LongerRowFirst {
  RowMap rm;
  template <class I>
  KOKKOS_INLINE_FUNCTION bool operator()(const I a, const I b) const {
    const auto la = rm(a + 1) - rm(a), lb = rm(b + 1) - rm(b);
    return la > lb || (la == lb && a < b);
  }
};

template <class ExecSpace, class S, class O, class F, class D>
static SellMatrix<S, O, F, D> csr_to_sell(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                          int C, int sigma) {
  using Sell = SellMatrix<S, O, F, D>;
  const long long m = A.num_rows();
  const long long ns = (m + C - 1) / C;
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();

  // perm: rows sorted by length within each window of σ rows.
  typename Sell::index_type perm(Kokkos::ViewAllocateWithoutInitializing("sell.perm"), m);
  Kokkos::parallel_for(
      "spk::csr_to_sell::identity", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) { perm(i) = static_cast<O>(i); });
  if (sigma > 1 && m > 1) {
    const long long nw = (m + sigma - 1) / sigma;
    Kokkos::View<long long*, D> windows(Kokkos::ViewAllocateWithoutInitializing("sell.windows"),
                                        nw + 1);
    Kokkos::parallel_for(
        "spk::csr_to_sell::windows", Kokkos::RangePolicy<ExecSpace>(space, 0, nw + 1),
        KOKKOS_LAMBDA(const long long w) { windows(w) = w * sigma < m ? w * sigma : m; });
    segmented_sort(space, windows, nw, perm, LongerRowFirst<decltype(rm)>{rm});
  }

  // Slice widths (longest row of each slice), then their slot offsets.
  Kokkos::View<long long*, D> ptr("spk::csr_to_sell::ptr", ns + 1);
  Kokkos::parallel_for(
      "spk::csr_to_sell::widths", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(const long long s) {
        long long w = 0;
        for (long long p = s * C; p < s * C + C && p < m; ++p) {
          const long long len = rm(perm(p) + 1) - rm(perm(p));
          w = len > w ? len : w;
        }
        ptr(s) = w * C;
      });
  const long long slots = exclusive_scan(space, ptr, ns);
  SPK_REQUIRE(fits_offset<F>(slots), Overflow, "csr_to_sell: ", slots,
              " slots (padding included) do not fit the offset type");
  typename Sell::slice_ptr_type slice_ptr(Kokkos::ViewAllocateWithoutInitializing("sell.slice_ptr"),
                                          ns + 1);
  Kokkos::parallel_for(
      "spk::csr_to_sell::slice_ptr", Kokkos::RangePolicy<ExecSpace>(space, 0, ns + 1),
      KOKKOS_LAMBDA(const long long s) { slice_ptr(s) = static_cast<F>(ptr(s)); });

  typename Sell::index_type cols(Kokkos::ViewAllocateWithoutInitializing("sell.col_idx"), slots);
  typename Sell::values_type vals(Kokkos::ViewAllocateWithoutInitializing("sell.values"), slots);
  // One thread per position: consecutive threads write consecutive slots.
  Kokkos::parallel_for(
      "spk::csr_to_sell::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, ns * C),
      KOKKOS_LAMBDA(const long long p) {
        const long long s = p / C, r = p % C;
        const long long base = ptr(s), w = (ptr(s + 1) - base) / C;
        long long k = 0;
        if (p < m) {
          const long long row = perm(p);
          for (auto q = rm(row); q < rm(row + 1); ++q, ++k) {
            cols(base + k * C + r) = ci(q);
            vals(base + k * C + r) = va(q);
          }
        }
        for (; k < w; ++k) {
          cols(base + k * C + r) = O(-1);
          vals(base + k * C + r) = S(0);
        }
      });
  return Sell(A.num_rows(), A.num_cols(), C, sigma, A.nnz(), perm, slice_ptr, cols, vals);
}

template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> sell_to_csr(const ExecSpace& space, const SellMatrix<S, O, F, D>& A) {
  using Csr = CsrMatrix<S, O, F, D>;
  const long long m = A.num_rows();
  const long long C = A.slice_height();
  auto perm = A.perm();
  auto sp = A.slice_ptr();
  auto sc = A.col_idx();
  auto sv = A.values();
  typename Csr::row_map_type row_map("spk::sell_to_csr::row_map", m + 1);
  Kokkos::parallel_for(
      "spk::sell_to_csr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long p) {
        const long long s = p / C, r = p % C;
        const long long base = sp(s), w = (static_cast<long long>(sp(s + 1)) - base) / C;
        long long len = 0;
        while (len < w && sc(base + len * C + r) >= 0) ++len;
        row_map(perm(p)) = static_cast<F>(len);
      });
  const long long total = exclusive_scan(space, row_map, m);
  Csr B(A.num_rows(), A.num_cols(), row_map,
        typename Csr::index_type(Kokkos::ViewAllocateWithoutInitializing("csr.col_idx"), total),
        typename Csr::values_type(Kokkos::ViewAllocateWithoutInitializing("csr.values"), total));
  auto cc = B.col_idx();
  auto cv = B.values();
  Kokkos::parallel_for(
      "spk::sell_to_csr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long p) {
        const long long s = p / C, r = p % C;
        const long long base = sp(s);
        const long long row = perm(p);
        long long k = 0;
        for (auto q = row_map(row); q < row_map(row + 1); ++q, ++k) {
          cc(q) = sc(base + k * C + r);
          cv(q) = sv(base + k * C + r);
        }
      });
  return B;
}

}  // namespace spk::Impl
