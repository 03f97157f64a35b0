// Kernels behind spk_spmv_sell.hpp, spk_spmv_ell.hpp and spk_spmv_hyb.hpp:
// the padded formats, whose padding slots hold column index -1 after a
// row's real entries.
#pragma once

#include <impl/spk_spmv_kernels.hpp>

namespace spk::Impl {

/// Slots a GPU thread loads ahead in the padded formats: the column indices
/// and values of `padded_unroll` slots are requested together, then their x
/// entries, so that a thread has that many loads in flight instead of one
/// dependent load per slot (a break at the first padding slot after each
/// load would serialise them).  Padding is trailing, so a chunk whose last
/// slot is padding ends the row.
inline constexpr int padded_unroll = 4;

/// Sum over the slots k in [0, w) of a padded row; col(k) and val(k) read
/// slot k's column index and value.
template <class D, class Col, class Val>
KOKKOS_FORCEINLINE_FUNCTION typename D::S padded_row_sum(const D& d, const long long w,
                                                         const Col& col, const Val& val,
                                                         const int j) {
  using S = typename D::S;
  using C = typename decltype(d.cols)::non_const_value_type;
  using V = typename decltype(d.vals)::non_const_value_type;
  S sum = 0;
  for (long long k0 = 0; k0 < w; k0 += padded_unroll) {
    C c[padded_unroll];
    V v[padded_unroll];
#pragma unroll
    for (int u = 0; u < padded_unroll; ++u) {
      const bool in = k0 + u < w;
      c[u] = in ? col(k0 + u) : C(-1);
      v[u] = in ? val(k0 + u) : V(0);
    }
#pragma unroll
    for (int u = 0; u < padded_unroll; ++u)
      if (c[u] >= 0) sum += spmv_value(d, v[u]) * spmv_x(d, c[u], j);
    if (c[padded_unroll - 1] < 0) break;
  }
  return sum;
}

template <class Perm, class Ptr, class Cols, class Vals, class X, class Y>
struct SpmvSellData {
  using YS = typename Y::non_const_value_type;
  using S =
      mixed_scalar_t<typename Vals::non_const_value_type, typename X::non_const_value_type, YS>;
  Perm perm;
  Ptr slice_ptr;
  Cols cols;
  Vals vals;
  X x;
  Y y;
  S alpha, beta;
  long long m;  // positions: the rows of the sliced part
  int C, nv;
  bool conj = false;  // Aᴴ: conjugate A's values
  // The spill: k rows in CSR form over their row numbers.
  Perm spill_rows;
  Ptr spill_ptr;
  Cols spill_cols;
  Vals spill_vals;
  long long k = 0;
};

/// GPUs: one thread per position of a slice; thread r of slice s reads slots
/// base + k·C + r, so a warp reads C consecutive slots per step.
template <class D>
struct SpmvSellRowFunctor {
  D d;
  KOKKOS_INLINE_FUNCTION void operator()(const long long p) const {
    const long long s = p / d.C, r = p % d.C;
    const long long base = d.slice_ptr(s);
    const long long w = (static_cast<long long>(d.slice_ptr(s + 1)) - base) / d.C;
    const long long row = d.perm(p);
    const long long first = base + r, stride = d.C;
    const auto col = [&](const long long k) { return d.cols(first + k * stride); };
    const auto val = [&](const long long k) { return d.vals(first + k * stride); };
    for (int j = 0; j < d.nv; ++j)
      axpby_store(vec_at(d.y, row, j), padded_row_sum(d, w, col, val, j), d.alpha, d.beta);
  }
};

/// Host spaces: one thread per slice, its rows summed side by side
/// (unit-stride loads across a slice's column).  CF > 0 fixes the slice
/// height at compile time: the loop over a slot column's CF rows unrolls, and
/// it runs over whole slices (the last slice's positions past the rows are
/// padding).  CF = 0 reads C from D and takes the rows in chunks of 16.
template <class D, int CF>
struct SpmvSellSliceFunctor {
  D d;
  static constexpr int chunk = CF > 0 ? CF : 16;
  void operator()(const long long s) const {
    using S = typename D::S;
    const long long C = CF > 0 ? CF : d.C;
    const long long base = d.slice_ptr(s);
    const long long w = (static_cast<long long>(d.slice_ptr(s + 1)) - base) / C;
    for (int j = 0; j < d.nv; ++j)
      for (long long r0 = 0; r0 < C && s * C + r0 < d.m; r0 += chunk) {
        const long long live = std::min<long long>({chunk, C - r0, d.m - s * C - r0});
        const long long rn = CF > 0 ? CF : live;
        S acc[chunk] = {};
        for (long long k = 0; k < w; ++k) {
          const long long at = base + k * C + r0;
          for (long long r = 0; r < rn; ++r) {
            const long long c = d.cols(at + r);
            if (c >= 0) acc[r] += spmv_value(d, d.vals(at + r)) * spmv_x(d, c, j);
          }
        }
        for (long long r = 0; r < live; ++r)
          axpby_store(vec_at(d.y, d.perm(s * C + r0 + r), j), acc[r], d.alpha, d.beta);
      }
  }
};

template <int CF, class ExecSpace, class D>
void spmv_sell_slices(const ExecSpace& space, const D& d) {
  const long long ns = (d.m + d.C - 1) / d.C;
  Kokkos::parallel_for("spk::spmv.sell", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
                       SpmvSellSliceFunctor<D, CF>{d});
}

template <class ExecSpace, class D>
void spmv_sell_normal(const ExecSpace& space, const D& d) {
  if constexpr (is_host_space_v<ExecSpace>) {
    // The host default height (8) and the GPU one (32) get unrolled kernels.
    if (d.C == 8)
      spmv_sell_slices<8>(space, d);
    else if (d.C == 32)
      spmv_sell_slices<32>(space, d);
    else
      spmv_sell_slices<0>(space, d);
  } else {
    Kokkos::parallel_for("spk::spmv.sell", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m),
                         SpmvSellRowFunctor<D>{d});
  }
}

/// Spill row i of a SELL matrix: its row number and its entries' range.
struct SellSpillRow {
  long long row, begin, end;
};
template <class D>
KOKKOS_INLINE_FUNCTION SellSpillRow sell_spill_row(const D& d, const long long i) {
  return {static_cast<long long>(d.spill_rows(i)), static_cast<long long>(d.spill_ptr(i)),
          static_cast<long long>(d.spill_ptr(i + 1))};
}

/// The spill rows of y := α·A·x + β·y: a team per row (few rows, each far
/// longer than the mean), its entries summed by the team.
template <class ExecSpace, class D>
static void spmv_sell_spill_normal(const ExecSpace& space, const D& d) {
  if (d.k == 0) return;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.sell_spill", Team(space, d.k, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        using S = typename D::S;
        const SellSpillRow r = sell_spill_row(d, t.league_rank());
        for (int j = 0; j < d.nv; ++j) {
          S sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(t, r.begin, r.end),
              [&](const long long q, S& acc) {
                acc += spmv_value(d, d.spill_vals(q)) * spmv_x(d, d.spill_cols(q), j);
              },
              sum);
          Kokkos::single(Kokkos::PerTeam(t),
                         [&] { axpby_store(vec_at(d.y, r.row, j), sum, d.alpha, d.beta); });
        }
      });
}

/// The spill rows of y += α·Aᵀx (after spmv_scale): a team per row scatters
/// its entries.
template <class ExecSpace, class D>
static void spmv_sell_spill_transpose(const ExecSpace& space, const D& d) {
  if (d.k == 0) return;
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.sell_spill_transpose", Team(space, d.k, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        using S = typename D::S;
        const SellSpillRow r = sell_spill_row(d, t.league_rank());
        for (int j = 0; j < d.nv; ++j) {
          const S xr = d.alpha * spmv_x(d, r.row, j);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, r.begin, r.end), [&](const long long q) {
            add_to<atomic>(vec_at(d.y, d.spill_cols(q), j), spmv_value(d, d.spill_vals(q)) * xr);
          });
        }
      });
}

/// y += α·Aᵀx (call spmv_scale first).
template <class ExecSpace, class D>
static void spmv_sell_transpose(const ExecSpace& space, const D& d) {
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.sell_transpose", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m),
      KOKKOS_LAMBDA(const long long p) {
        using S = typename D::S;
        const long long s = p / d.C, r = p % d.C;
        const long long base = d.slice_ptr(s);
        const long long w = (static_cast<long long>(d.slice_ptr(s + 1)) - base) / d.C;
        const long long row = d.perm(p);
        for (int j = 0; j < d.nv; ++j) {
          const S xr = d.alpha * spmv_x(d, row, j);
          for (long long k = 0; k < w; ++k) {
            const long long c = d.cols(base + k * d.C + r);
            if (c < 0) break;
            add_to<atomic>(vec_at(d.y, c, j), spmv_value(d, d.vals(base + k * d.C + r)) * xr);
          }
        }
      });
}

template <class Cols, class Vals, class X, class Y>
struct SpmvEllData {
  using YS = typename Y::non_const_value_type;
  using S =
      mixed_scalar_t<typename Vals::non_const_value_type, typename X::non_const_value_type, YS>;
  Cols cols;  // m × width, LayoutLeft
  Vals vals;
  X x;
  Y y;
  S alpha, beta;
  long long m, width;
  int nv;
  bool conj = false;  // Aᴴ: conjugate A's values
};

/// Host spaces: a thread takes FormatHostTuning::ell_rows_per_task
/// consecutive rows and walks the slots column by column, summing the rows
/// side by side (unit-stride loads, as on a GPU warp).  Four slot columns go
/// together, so that a row's accumulator is loaded and stored once per four
/// products instead of once per product; their padding slots are selected
/// away rather than branched around (x(0) stands in for their column).
template <class D>
struct SpmvEllHostFunctor {
  D d;
  static constexpr int chunk = FormatHostTuning::ell_rows_per_task;
  using S = typename D::S;
  template <class C, class V>
  S slot(const C c, const V v, const int j) const {
    const S p = spmv_value(d, v) * spmv_x(d, c < 0 ? C(0) : c, j);
    return c >= 0 ? p : S(0);
  }
  void operator()(const long long t) const {
    const long long i0 = t * chunk;
    const long long rn = std::min<long long>(chunk, d.m - i0);
    // With no column, x has no entry to stand in for padding.
    const long long grouped = d.x.extent(0) > 0 ? d.width / 4 * 4 : 0;
    for (int j = 0; j < d.nv; ++j) {
      S acc[chunk] = {};
      for (long long k = 0; k < grouped; k += 4) {
        const auto *c0 = &d.cols(i0, k), *c1 = &d.cols(i0, k + 1), *c2 = &d.cols(i0, k + 2),
                   *c3 = &d.cols(i0, k + 3);
        const auto *v0 = &d.vals(i0, k), *v1 = &d.vals(i0, k + 1), *v2 = &d.vals(i0, k + 2),
                   *v3 = &d.vals(i0, k + 3);
        for (long long r = 0; r < rn; ++r)
          acc[r] += (slot(c0[r], v0[r], j) + slot(c1[r], v1[r], j)) +
                    (slot(c2[r], v2[r], j) + slot(c3[r], v3[r], j));
      }
      for (long long k = grouped; k < d.width; ++k) {
        const auto* c = &d.cols(i0, k);
        const auto* v = &d.vals(i0, k);
        for (long long r = 0; r < rn; ++r)
          if (c[r] >= 0) acc[r] += spmv_value(d, v[r]) * spmv_x(d, c[r], j);
      }
      for (long long r = 0; r < rn; ++r)
        axpby_store(vec_at(d.y, i0 + r, j), acc[r], d.alpha, d.beta);
    }
  }
};

/// One thread per row: consecutive threads read consecutive slots of each
/// column of the m × width arrays.
template <class ExecSpace, class D>
static void spmv_ell_normal(const ExecSpace& space, const D& d) {
  if constexpr (is_host_space_v<ExecSpace>) {
    using H = SpmvEllHostFunctor<D>;
    Kokkos::parallel_for("spk::spmv.ell",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, (d.m + H::chunk - 1) / H::chunk),
                         H{d});
    return;
  }
  Kokkos::parallel_for(
      "spk::spmv.ell", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m),
      KOKKOS_LAMBDA(const long long i) {
        const auto col = [&](const long long k) { return d.cols(i, k); };
        const auto val = [&](const long long k) { return d.vals(i, k); };
        for (int j = 0; j < d.nv; ++j)
          axpby_store(vec_at(d.y, i, j), padded_row_sum(d, d.width, col, val, j), d.alpha, d.beta);
      });
}

/// y += α·Aᵀx (call spmv_scale first).
template <class ExecSpace, class D>
static void spmv_ell_transpose(const ExecSpace& space, const D& d) {
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.ell_transpose", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m),
      KOKKOS_LAMBDA(const long long i) {
        using S = typename D::S;
        for (int j = 0; j < d.nv; ++j) {
          const S xi = d.alpha * spmv_x(d, i, j);
          for (long long k = 0; k < d.width; ++k) {
            const long long c = d.cols(i, k);
            if (c < 0) break;
            add_to<atomic>(vec_at(d.y, c, j), spmv_value(d, d.vals(i, k)) * xi);
          }
        }
      });
}

}  // namespace spk::Impl
