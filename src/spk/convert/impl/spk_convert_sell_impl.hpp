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

/// Copies k runs of (column, value) entries, a team per run (the spill's
/// rows: few, and long): run(j) gives {from, to, length}, the run's start in
/// (src_cols, src_vals) and in (dst_cols, dst_vals), and its length.
template <class ExecSpace, class Run, class SC, class SV, class DC, class DV>
static void copy_runs(const ExecSpace& space, const long long k, const Run& run, const SC& src_cols,
                      const SV& src_vals, const DC& dst_cols, const DV& dst_vals) {
  if (k == 0) return;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "spk::sell::copy_runs", Team(space, k, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        const Kokkos::Array<long long, 3> r = run(t.league_rank());
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, r[2]), [&](const long long q) {
          dst_cols(r[1] + q) = src_cols(r[0] + q);
          dst_vals(r[1] + q) = src_vals(r[0] + q);
        });
      });
}

/// The spill of a SELL matrix: rows longer than `spill_over` of A, in CSR
/// form over their row numbers, and the other rows (the positions of the
/// sliced part) in their original order.
template <class Sell>
struct SellSplit {
  typename Sell::index_type positions, spill_rows, spill_col_idx;
  typename Sell::slice_ptr_type spill_ptr;
  typename Sell::values_type spill_values;
};

template <class Sell, class ExecSpace, class S, class O, class F, class D>
static SellSplit<Sell> split_long_rows(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                       const long long spill_over) {
  const long long m = A.num_rows();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  // kept(i): how many rows before i stay in the slices.
  Kokkos::View<long long*, D> kept("spk::csr_to_sell::kept", m + 1);
  Kokkos::parallel_for(
      "spk::csr_to_sell::keep", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        kept(i) = static_cast<long long>(rm(i + 1) - rm(i)) <= spill_over;
      });
  const long long positions = exclusive_scan(space, kept, m), k = m - positions;
  SellSplit<Sell> out;
  out.positions =
      typename Sell::index_type(Kokkos::ViewAllocateWithoutInitializing("sell.perm"), positions);
  out.spill_rows =
      typename Sell::index_type(Kokkos::ViewAllocateWithoutInitializing("sell.spill_rows"), k);
  out.spill_ptr = typename Sell::slice_ptr_type("sell.spill_ptr", k + 1);
  auto pos = out.positions;
  auto rows = out.spill_rows;
  auto sptr = out.spill_ptr;
  Kokkos::parallel_for(
      "spk::csr_to_sell::split", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        if (kept(i + 1) > kept(i)) {
          pos(kept(i)) = static_cast<O>(i);
        } else {
          rows(i - kept(i)) = static_cast<O>(i);
          sptr(i - kept(i)) = static_cast<F>(rm(i + 1) - rm(i));
        }
      });
  const long long entries = exclusive_scan(space, sptr, k);
  out.spill_col_idx = typename Sell::index_type(
      Kokkos::ViewAllocateWithoutInitializing("sell.spill_col_idx"), entries);
  out.spill_values = typename Sell::values_type(
      Kokkos::ViewAllocateWithoutInitializing("sell.spill_values"), entries);
  auto sc = out.spill_col_idx;
  auto sv = out.spill_values;
  copy_runs(
      space, k,
      KOKKOS_LAMBDA(const long long j) {
        return Kokkos::Array<long long, 3>{static_cast<long long>(rm(rows(j))),
                                           static_cast<long long>(sptr(j)),
                                           static_cast<long long>(sptr(j + 1) - sptr(j))};
      },
      ci, va, sc, sv);
  return out;
}

template <class ExecSpace, class S, class O, class F, class D>
static SellMatrix<S, O, F, D> csr_to_sell(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                          int C, int sigma, long long spill_over) {
  using Sell = SellMatrix<S, O, F, D>;
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();

  // perm: the rows that stay (all but the spill), sorted by length within
  // each window of σ positions.
  auto split = split_long_rows<Sell>(space, A, spill_over);
  auto perm = split.positions;
  const long long np = perm.extent(0);  // positions
  const long long ns = (np + C - 1) / C;
  if (sigma > 1 && np > 1) {
    const long long nw = (np + sigma - 1) / sigma;
    Kokkos::View<long long*, D> windows(Kokkos::ViewAllocateWithoutInitializing("sell.windows"),
                                        nw + 1);
    Kokkos::parallel_for(
        "spk::csr_to_sell::windows", Kokkos::RangePolicy<ExecSpace>(space, 0, nw + 1),
        KOKKOS_LAMBDA(const long long w) { windows(w) = w * sigma < np ? w * sigma : np; });
    segmented_sort(space, windows, nw, perm, LongerRowFirst<decltype(rm)>{rm});
  }

  // Slice widths (longest row of each slice), then their slot offsets.
  Kokkos::View<long long*, D> ptr("spk::csr_to_sell::ptr", ns + 1);
  Kokkos::parallel_for(
      "spk::csr_to_sell::widths", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(const long long s) {
        long long w = 0;
        for (long long p = s * C; p < s * C + C && p < np; ++p) {
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
        if (p < np) {
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
  return Sell(A.num_rows(), A.num_cols(), C, sigma, A.nnz(), perm, slice_ptr, cols, vals,
              split.spill_rows, split.spill_ptr, split.spill_col_idx, split.spill_values);
}

template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> sell_to_csr(const ExecSpace& space, const SellMatrix<S, O, F, D>& A) {
  using Csr = CsrMatrix<S, O, F, D>;
  const long long m = A.num_rows(), positions = A.num_positions(), k = A.num_spilled();
  const long long C = A.slice_height();
  auto perm = A.perm();
  auto sp = A.slice_ptr();
  auto sc = A.col_idx();
  auto sv = A.values();
  auto rows = A.spill_rows();
  auto xp = A.spill_ptr();
  auto xc = A.spill_col_idx();
  auto xv = A.spill_values();
  typename Csr::row_map_type row_map("spk::sell_to_csr::row_map", m + 1);
  Kokkos::parallel_for(
      "spk::sell_to_csr::count_spill", Kokkos::RangePolicy<ExecSpace>(space, 0, k),
      KOKKOS_LAMBDA(const long long j) { row_map(rows(j)) = xp(j + 1) - xp(j); });
  Kokkos::parallel_for(
      "spk::sell_to_csr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, positions),
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
  copy_runs(
      space, k,
      KOKKOS_LAMBDA(const long long j) {
        return Kokkos::Array<long long, 3>{static_cast<long long>(xp(j)),
                                           static_cast<long long>(row_map(rows(j))),
                                           static_cast<long long>(xp(j + 1) - xp(j))};
      },
      xc, xv, cc, cv);
  Kokkos::parallel_for(
      "spk::sell_to_csr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, positions),
      KOKKOS_LAMBDA(const long long p) {
        const long long s = p / C, r = p % C;
        const long long base = sp(s);
        const long long row = perm(p);
        long long slot = 0;
        for (auto q = row_map(row); q < row_map(row + 1); ++q, ++slot) {
          cc(q) = sc(base + slot * C + r);
          cv(q) = sv(base + slot * C + r);
        }
      });
  return B;
}

}  // namespace spk::Impl
