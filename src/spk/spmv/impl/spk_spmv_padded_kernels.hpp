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
template <class D, class I, class Col, class Val>
KOKKOS_FORCEINLINE_FUNCTION typename D::S padded_row_sum(const D& d, const I w, const Col& col,
                                                         const Val& val, const int j) {
  using S = typename D::S;
  using C = typename decltype(d.cols)::non_const_value_type;
  using V = typename decltype(d.vals)::non_const_value_type;
  S sum = 0;
  for (I k0 = 0; k0 < w; k0 += padded_unroll) {
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

/// padded_row_sum with `lanes` vector lanes on one row: lane l takes slots
/// l, l + lanes, l + 2·lanes, ... (padding is trailing, so each lane's own
/// slots still end at its first padding slot) and the lanes' sums are
/// reduced (lane_group_sum: every lane group of a warp must call it, a row
/// past the end with w = 0).  Each lane calls col / val with slot numbers of
/// the row.
template <class Member, class D, class I, class Col, class Val>
KOKKOS_FORCEINLINE_FUNCTION typename D::S padded_row_sum_lanes(const Member& t, const D& d,
                                                               const I w, const int lanes,
                                                               const Col& col, const Val& val,
                                                               const int j) {
  using S = typename D::S;
  return lane_group_sum<S>(t, lanes, [&](const int l) {
    const I wl = w > l ? (w - l + lanes - 1) / lanes : I(0);
    const auto lcol = [&](const I k) { return col(l + k * lanes); };
    const auto lval = [&](const I k) { return val(l + k * lanes); };
    return padded_row_sum(d, wl, lcol, lval, j);
  });
}

template <class Perm, class Ptr, class Cols, class Vals, class X, class Y>
struct SpmvSellData {
  using YS = typename Y::non_const_value_type;
  using ordinal_type = typename Perm::non_const_value_type;
  using offset_type = typename Ptr::non_const_value_type;
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
  long long chunk = 1;  // spill entries per piece (sell_spill_piece)
  int spill_lanes = 1;  // GPUs: vector lanes a piece ...
  int spill_team = 1;   // ... and threads a team
};

/// Where a GPU thread finds position p of a slice: its row, its first slot
/// and the slice's width; slot k is first + k·C.  Positions and slot
/// offsets are 32-bit (I = int) when the ordinal and offset types are
/// (every slot offset then fits: the conversion checks it), which saves
/// registers.
template <class D>
using SellIndex = std::conditional_t<sizeof(typename D::ordinal_type) <= 4 &&
                                         sizeof(typename D::offset_type) <= 4 &&
                                         std::is_signed_v<typename D::offset_type>,
                                     int, long long>;
template <class I>
struct SellPosition {
  I row, first, width;
};
template <class D, class I = SellIndex<D>>
KOKKOS_FORCEINLINE_FUNCTION SellPosition<I> sell_position(const D& d, const long long pl) {
  const I p = static_cast<I>(pl), C = d.C;
  const I s = p / C, r = p - s * C;
  const I base = d.slice_ptr(s);
  return {static_cast<I>(d.perm(p)), base + r, (static_cast<I>(d.slice_ptr(s + 1)) - base) / C};
}

/// GPUs: one thread per position of a slice; thread r of slice s reads slots
/// base + k·C + r, so a warp reads C consecutive slots per step.
template <class D>
struct SpmvSellRowFunctor {
  D d;
  using I = SellIndex<D>;
  KOKKOS_INLINE_FUNCTION void operator()(const long long pl) const {
    if (pl >= d.m) return sell_spill_prescale(d, pl - d.m);
    const SellPosition<I> q = sell_position(d, pl);
    const I C = d.C;
    const auto col = [&](const I k) { return d.cols(q.first + k * C); };
    const auto val = [&](const I k) { return d.vals(q.first + k * C); };
    for (int j = 0; j < d.nv; ++j)
      axpby_store(vec_at(d.y, q.row, j), padded_row_sum(d, q.width, col, val, j), d.alpha, d.beta);
  }
};

/// GPUs, lanes > 1 (format_lanes): SpmvSellRowFunctor with `lanes` vector
/// lanes per position (padded_row_sum_lanes), rows_per_team positions a
/// team.
template <class D, class Member>
struct SpmvSellLanesFunctor {
  D d;
  int lanes;
  using I = SellIndex<D>;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    // Every lane group sums (positions past the rows with no slots), so the
    // groups of a warp meet at each lane sum.
    const long long pl = format_lanes_row(t);
    const bool row = pl < d.m;
    const SellPosition<I> q = row ? sell_position(d, pl) : SellPosition<I>{0, 0, 0};
    const I C = d.C;
    const auto col = [&](const I k) { return d.cols(q.first + k * C); };
    const auto val = [&](const I k) { return d.vals(q.first + k * C); };
    for (int j = 0; j < d.nv; ++j) {
      const typename D::S sum = padded_row_sum_lanes(t, d, q.width, lanes, col, val, j);
      if (row) first_lane_do(t, [&] { axpby_store(vec_at(d.y, q.row, j), sum, d.alpha, d.beta); });
    }
    if (!row && pl < d.m + d.k) first_lane_do(t, [&] { sell_spill_prescale(d, pl - d.m); });
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
    const long long ns = (d.m + C - 1) / C;
    if (s >= ns) return sell_spill_prescale(d, s - ns);
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
  Kokkos::parallel_for("spk::spmv.sell", Kokkos::RangePolicy<ExecSpace>(space, 0, ns + d.k),
                       SpmvSellSliceFunctor<D, CF>{d});
}

template <class ExecSpace, class D>
void spmv_sell_normal(const ExecSpace& space, const D& d, const FormatLanes& L) {
  if constexpr (is_host_space_v<ExecSpace>) {
    (void)L;
    // The host default height (8) and the GPU one (32) get unrolled kernels.
    if (d.C == 8)
      spmv_sell_slices<8>(space, d);
    else if (d.C == 32)
      spmv_sell_slices<32>(space, d);
    else
      spmv_sell_slices<0>(space, d);
  } else if (L.lanes > 1) {
    using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
    Kokkos::parallel_for("spk::spmv.sell_lanes", format_lanes_policy(space, d.m + d.k, L),
                         SpmvSellLanesFunctor<D, Member>{d, L.lanes});
  } else {
    Kokkos::parallel_for("spk::spmv.sell", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m + d.k),
                         SpmvSellRowFunctor<D>{d});
  }
}

/// The spill's rows are cut into pieces at the multiples of d.chunk in the
/// spill's entry numbering, so that a hub row of 10⁴+ entries is summed by
/// many teams instead of one.  Spill row i owns the pieces numbered from
/// g(i) = i + ⌊spill_ptr(i) / chunk⌋ to g(i + 1) - 1 (at least one; the
/// last can be empty), so nothing is stored: a team finds its row by
/// bisection over g.  A row of one piece is summed and stored as the sliced
/// rows are; the pieces of a split row add to y atomically after y was
/// scaled by β (sell_spill_prescale).
struct SellSpillPiece {
  long long row, begin, end;
  bool whole;  // the row's only piece
  bool idle;   // a team past the last piece
};

template <class D>
KOKKOS_INLINE_FUNCTION long long sell_spill_first_piece(const D& d, const long long i) {
  return i + static_cast<long long>(d.spill_ptr(i)) / d.chunk;
}

/// Lane groups for the spill's pieces, from the host: g(k) when the
/// spill's entry arrays hold exactly its entries (as conversions make them),
/// more when they are longer; sell_spill_piece marks the groups past g(k)
/// idle.
template <class D>
long long sell_spill_teams(const D& d) {
  return d.k + static_cast<long long>(d.spill_cols.extent(0)) / d.chunk;
}

/// The spill's launch: a group of `lanes` vector lanes per piece, `groups`
/// pieces a team (host spaces: one lane, one piece a team).
struct SellSpillLaunch {
  int lanes = 1, groups = 1;
};
template <class ExecSpace, class D>
SellSpillLaunch sell_spill_launch(const D& d) {
  if (is_host_space_v<ExecSpace>) return {};
  const int lanes = launch_lanes<ExecSpace>(d.spill_lanes);
  return {lanes, std::max(1, d.spill_team / lanes)};
}

/// Whether spill row i has more than one piece.
template <class D>
KOKKOS_INLINE_FUNCTION bool sell_spill_split(const D& d, const long long i) {
  return sell_spill_first_piece(d, i + 1) - sell_spill_first_piece(d, i) > 1;
}

template <class D>
KOKKOS_INLINE_FUNCTION SellSpillPiece sell_spill_piece(const D& d, const long long t) {
  if (t >= sell_spill_first_piece(d, d.k)) return {0, 0, 0, false, true};
  long long lo = 0, hi = d.k - 1;  // the last row whose first piece is ≤ t
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (sell_spill_first_piece(d, mid) <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  const long long b = d.spill_ptr(lo), e = d.spill_ptr(lo + 1);
  const long long first = lo + b / d.chunk, next = lo + 1 + e / d.chunk;  // g(lo), g(lo + 1)
  const long long j = t - first;
  const long long c = b / d.chunk + j;  // the chunk of the entry numbering this piece lies in
  return {static_cast<long long>(d.spill_rows(lo)), j == 0 ? b : c * d.chunk,
          c + 1 > e / d.chunk ? e : (c + 1) * d.chunk, next - first == 1, false};
}

/// Before the spill's pieces add to y (normal mode): y(row) := β·y(row) for
/// the split spill row i.  The slice kernels run it for indices past their
/// own, which saves a launch.
template <class D>
KOKKOS_INLINE_FUNCTION void sell_spill_prescale(const D& d, const long long i) {
  if (!sell_spill_split(d, i)) return;
  using S = typename D::S;
  using YS = typename D::YS;
  const long long row = d.spill_rows(i);
  for (int j = 0; j < d.nv; ++j) {
    auto& v = vec_at(d.y, row, j);
    v = d.beta == S(0) ? YS(0) : scalar_cast<YS>(d.beta * scalar_cast<S>(v));
  }
}

/// The spill rows of y := α·A·x + β·y: a lane group per piece sums its
/// entries; a whole row stores, a split row's pieces add atomically.
template <class ExecSpace, class D>
static void spmv_sell_spill_normal(const ExecSpace& space, const D& d) {
  if (d.k == 0) return;
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  const SellSpillLaunch L = sell_spill_launch<ExecSpace>(d);
  const long long pieces = sell_spill_teams(d);
  const int lanes = L.lanes;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.sell_spill", Team(space, (pieces + L.groups - 1) / L.groups, L.groups, L.lanes),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        using S = typename D::S;
        // Groups past the last piece get an idle one and still sum (nothing),
        // so the groups of a warp meet at each lane sum.
        const long long g = static_cast<long long>(t.league_rank()) * t.team_size() + t.team_rank();
        const SellSpillPiece r = sell_spill_piece(d, g);
        for (int j = 0; j < d.nv; ++j) {
          const S sum = lane_group_sum<S>(t, lanes, [&](const int l) {
            S acc = 0;
            if (!r.idle)
              for (long long q = r.begin + l; q < r.end; q += lanes)
                acc += spmv_value(d, d.spill_vals(q)) * spmv_x(d, d.spill_cols(q), j);
            return acc;
          });
          if (!r.idle)
            first_lane_do(t, [&] {
              if (r.whole)
                axpby_store(vec_at(d.y, r.row, j), sum, d.alpha, d.beta);
              else
                add_to<atomic>(vec_at(d.y, r.row, j), d.alpha * sum);
            });
        }
      });
}

/// The spill rows of y += α·Aᵀx (after spmv_scale): a lane group per piece
/// scatters its entries.
template <class ExecSpace, class D>
static void spmv_sell_spill_transpose(const ExecSpace& space, const D& d) {
  if (d.k == 0) return;
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  const SellSpillLaunch L = sell_spill_launch<ExecSpace>(d);
  const long long pieces = sell_spill_teams(d);
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.sell_spill_transpose",
      Team(space, (pieces + L.groups - 1) / L.groups, L.groups, L.lanes),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        using S = typename D::S;
        const long long g = static_cast<long long>(t.league_rank()) * t.team_size() + t.team_rank();
        if (g >= pieces) return;
        const SellSpillPiece r = sell_spill_piece(d, g);
        if (r.idle) return;
        for (int j = 0; j < d.nv; ++j) {
          const S xr = d.alpha * spmv_x(d, r.row, j);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, r.begin, r.end),
                               [&](const long long q) {
                                 add_to<atomic>(vec_at(d.y, d.spill_cols(q), j),
                                                spmv_value(d, d.spill_vals(q)) * xr);
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
/// side by side (unit-stride loads, as on a GPU warp).  `group` slot columns
/// go together, so that a row's accumulator is loaded and stored once per
/// `group` products instead of once per product.  Padding sits at the end of
/// a row, so a group whose last column holds a real entry in every row of
/// the task is all real entries and takes the plain sums (the stencil and
/// FEM rows' groups but the last); past that, padding slots are selected
/// away rather than branched around (x(0) stands in for their column).
template <class D>
struct SpmvEllHostFunctor {
  D d;
  static constexpr int chunk = FormatHostTuning::ell_rows_per_task;
  static constexpr int group = FormatHostTuning::ell_columns_per_pass;
  using S = typename D::S;
  template <class C, class V>
  S slot(const C c, const V v, const int j) const {
    const S p = spmv_value(d, v) * spmv_x(d, c < 0 ? C(0) : c, j);
    return c >= 0 ? p : S(0);
  }
  /// Whether slot column k holds a real entry in each of rows [i0, i0 + rn).
  bool column_full(const long long i0, const long long rn, const long long k) const {
    const auto* c = &d.cols(i0, k);
    bool padded = false;
    for (long long r = 0; r < rn; ++r) padded |= c[r] < 0;
    return !padded;
  }
  /// Adds slot columns [k, k + G) of rows [i0, i0 + rn) to acc; Full: no
  /// padding among them.
  template <bool Full, int G>
  void add_group(S* acc, const long long i0, const long long rn, const long long k,
                 const int j) const {
    const std::remove_reference_t<decltype(d.cols(0, 0))>* c[G];
    const std::remove_reference_t<decltype(d.vals(0, 0))>* v[G];
    for (int g = 0; g < G; ++g) {
      c[g] = &d.cols(i0, k + g);
      v[g] = &d.vals(i0, k + g);
    }
    for (long long r = 0; r < rn; ++r) {
      S s = 0;
      for (int g = 0; g < G; ++g) {
        if constexpr (Full)
          s += spmv_value(d, v[g][r]) * spmv_x(d, c[g][r], j);
        else
          s += slot(c[g][r], v[g][r], j);
      }
      acc[r] += s;
    }
  }
  /// The group of G columns at k, plain while every row's entries reach
  /// past it (`full`, cleared at the first group with padding).
  template <int G>
  void add_group(S* acc, const long long i0, const long long rn, const long long k, const int j,
                 bool& full) const {
    full = full && column_full(i0, rn, k + G - 1);
    if (full)
      add_group<true, G>(acc, i0, rn, k, j);
    else
      add_group<false, G>(acc, i0, rn, k, j);
  }
  void operator()(const long long t) const {
    const long long i0 = t * chunk;
    const long long rn = std::min<long long>(chunk, d.m - i0);
    // With no column, x has no entry to stand in for padding: no groups.
    const long long w = d.x.extent(0) > 0 ? d.width : 0;
    for (int j = 0; j < d.nv; ++j) {
      S acc[chunk] = {};
      bool full = true;
      long long k = 0;
      for (; k + group <= w; k += group) add_group<group>(acc, i0, rn, k, j, full);
      // The last columns in groups of four (a 7-point stencil's 7 slots: 4
      // together, then 3 one by one).
      for (; k + 4 <= w; k += 4) add_group<4>(acc, i0, rn, k, j, full);
      for (; k < d.width; ++k) {
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

/// GPUs, lanes > 1 (format_lanes): `lanes` vector lanes per row
/// (padded_row_sum_lanes); a warp reads 32 / lanes rows' slots side by side.
template <class ExecSpace, class D>
static void spmv_ell_lanes(const ExecSpace& space, const D& d, const FormatLanes& L) {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const int lanes = L.lanes;
  Kokkos::parallel_for(
      "spk::spmv.ell_lanes", format_lanes_policy(space, d.m, L), KOKKOS_LAMBDA(const Member& t) {
        // Rows past the end sum no slots, so a warp's groups meet at each
        // lane sum.
        const long long i = format_lanes_row(t);
        const bool in = i < d.m;
        const auto col = [&](const long long k) { return d.cols(i, k); };
        const auto val = [&](const long long k) { return d.vals(i, k); };
        for (int j = 0; j < d.nv; ++j) {
          const typename D::S sum =
              padded_row_sum_lanes(t, d, in ? d.width : decltype(d.width)(0), lanes, col, val, j);
          if (in) first_lane_do(t, [&] { axpby_store(vec_at(d.y, i, j), sum, d.alpha, d.beta); });
        }
      });
}

/// One thread per row: consecutive threads read consecutive slots of each
/// column of the m × width arrays.
template <class ExecSpace, class D>
static void spmv_ell_normal(const ExecSpace& space, const D& d, const FormatLanes& L) {
  if constexpr (is_host_space_v<ExecSpace>) {
    (void)L;
    using H = SpmvEllHostFunctor<D>;
    Kokkos::parallel_for("spk::spmv.ell",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, (d.m + H::chunk - 1) / H::chunk),
                         H{d});
    return;
  } else if (L.lanes > 1) {
    return spmv_ell_lanes(space, d, L);
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
