// Kernels behind spk::spmv.  Each works on "CSR-shaped" Views (row_map,
// col_idx, values), so that CSC in transpose mode and CSR in normal mode share
// them; x and y are rank-1 or rank-2 (one column per right-hand side).
#pragma once

#include <impl/spk_atomic.hpp>
#include <impl/spk_lane_sum.hpp>
#include <impl/spk_streaming_load.hpp>
#include <limits>
#include <spk_compat.hpp>
#include <spk_scalar_traits.hpp>
#include <spk_spmv_plan.hpp>

namespace spk::Impl {

/// The lanes and team shape of a format's GPU row kernel: options'
/// vector_length when set (rounded down to a power of two the backend
/// takes), else format_row_lanes; host spaces always one.
struct FormatLanes {
  int lanes = 1, rows_per_team = 1;
};
template <class ExecSpace>
FormatLanes format_lanes(const ExecSpace& space, const SpmvOptions& options, FormatKernel kind,
                         long long rows, double entries_per_row) {
  if constexpr (is_host_space_v<ExecSpace>) {
    (void)space, (void)options, (void)kind, (void)rows, (void)entries_per_row;
    return {};
  } else {
    const SpmvTuning t = format_lane_tuning(space, options);
    const int lanes = options.vector_length > 0 ? options.vector_length
                                                : format_row_lanes(t, kind, rows, entries_per_row,
                                                                   resident_threads(space));
    const int p = launch_lanes<ExecSpace>(lanes);
    return {p, std::max(1, t.format_team_threads / p)};
  }
}

/// The launch of a format's lanes kernel over n rows: teams of
/// L.rows_per_team rows, L.lanes vector lanes each; format_lanes_row is the
/// row of a team member.
template <class ExecSpace>
Kokkos::TeamPolicy<ExecSpace> format_lanes_policy(const ExecSpace& space, long long n,
                                                  const FormatLanes& L) {
  return Kokkos::TeamPolicy<ExecSpace>(space, (n + L.rows_per_team - 1) / L.rows_per_team,
                                       L.rows_per_team, L.lanes);
}
template <class Member>
KOKKOS_INLINE_FUNCTION long long format_lanes_row(const Member& t) {
  return static_cast<long long>(t.league_rank()) * t.team_size() + t.team_rank();
}

/// v(i) or v(i, j): rank-1 Views are one right-hand side.
template <class V, class I>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) vec_at(const V& v, I i, int j) {
  if constexpr (static_cast<int>(V::rank) == 1) {
    (void)j;
    return v(i);
  } else {
    return v(i, j);
  }
}

template <class V>
int num_vecs(const V& v) {
  if constexpr (static_cast<int>(V::rank) == 1) {
    (void)v;
    return 1;
  } else {
    return static_cast<int>(v.extent(1));
  }
}

/// Serial needs no atomics; everything else does.
template <class ExecSpace>
inline constexpr bool spmv_needs_atomics_v =
#if defined(KOKKOS_ENABLE_SERIAL)
    !std::is_same_v<ExecSpace, Kokkos::Serial>;
#else
    true;
#endif

/// dst += v (converted to dst's type), atomically when Atomic.
template <bool Atomic, class T, class V>
KOKKOS_FORCEINLINE_FUNCTION void add_to(T& dst, const V& v) {
  if constexpr (Atomic)
    atomic_add_scalar(&dst, scalar_cast<T>(v));
  else
    dst += scalar_cast<T>(v);
}

/// y := α·sum + β·y in the accumulation type S, rounded once to y's type;
/// β = 0 must not read y (it may hold NaN).
template <class YS, class S>
KOKKOS_FORCEINLINE_FUNCTION void axpby_store(YS& y, const S& sum, const S& alpha, const S& beta) {
  y = scalar_cast<YS>(beta == S(0) ? alpha * sum : alpha * sum + beta * scalar_cast<S>(y));
}

/// A value of A (from any of the formats' kernel data D) in D's
/// accumulation type, conjugated when D asks for it.
template <class D, class V>
KOKKOS_FORCEINLINE_FUNCTION typename D::S spmv_value(const D& d, const V& v) {
  return conj_if(scalar_cast<typename D::S>(v), d.conj);
}

/// x(c) (column j) in D's accumulation type.
template <class D>
KOKKOS_FORCEINLINE_FUNCTION typename D::S spmv_x(const D& d, long long c, int j) {
  return scalar_cast<typename D::S>(vec_at(d.x, c, j));
}

/// Common data of the row-oriented kernels.  S is the accumulation type
/// (mixed_scalar_t of A's, x's and y's values); `conj` conjugates A's values
/// (the conjugate transpose runs the row kernels on CSC-shaped data or the
/// scatter kernel on CSR-shaped data with conjugated values).
template <class RowMap, class Cols, class Vals, class X, class Y>
struct SpmvCsrData {
  using YS = typename Y::non_const_value_type;
  using S =
      mixed_scalar_t<typename Vals::non_const_value_type, typename X::non_const_value_type, YS>;
  using F = typename RowMap::non_const_value_type;
  using O = typename Cols::non_const_value_type;
  using x_type = X;
  using y_type = Y;
  static constexpr bool multi = static_cast<int>(Y::rank) == 2;
  RowMap row_map;
  Cols cols;
  Vals vals;
  X x;
  Y y;
  S alpha, beta;
  long long num_rows;
  int nv;  // right-hand sides (1 for rank-1)
  bool conj = false;
  // Rows of more entries than this are split (SpmvLongRows): the row kernels
  // write β·y there and the pieces kernel adds α·Σ.
  long long split_row_min = std::numeric_limits<long long>::max();

  KOKKOS_FORCEINLINE_FUNCTION int vecs() const { return multi ? nv : 1; }
  /// The end of the entries [k0, k1) of a row that the row kernels sum: k0
  /// (none) for a split row, k1 for the others.
  KOKKOS_FORCEINLINE_FUNCTION F kept_end(F k0, F k1) const {
    return static_cast<long long>(k1 - k0) > split_row_min ? k0 : k1;
  }
  // Streaming: A's entry read with streaming_load (evict first), so that A's
  // lines leave L2 before x's.  Only where each load instruction of a warp
  // takes whole 32-byte sectors: the team-wide staging of stream and
  // merge_path and the split pieces.  A thread or a narrow lane group per
  // row reads the rest of a sector on its next step, from L1, and
  // evict-first lines were gone by then.  Measured on an H200 (perf_spmv,
  // fp64): stream 0.358 -> 0.314 ms on random:4000000 (x 32 MB; cuSPARSE
  // ALG1 0.322), 0.322 -> 0.299 on powerlaw:4000000, 0.165 -> 0.146 on
  // stencil27:106, 9-12 % on rmat:20, the FEM and 64-block matrices;
  // merge_path 2-8 %.  Every kernel streaming: scalar 1.5-2.2x slower on
  // poisson2d:2530, poisson3d:166 and banded:2461538, vector with 2-4 lanes
  // up to 2x; vector with 8+ lanes (whole sectors) 8 % faster in fp64 but
  // 20 % slower in fp32 on the FEM and 64-block matrices.
  /// A's entry k in the accumulation type, conjugated when asked.
  template <bool Streaming = false>
  KOKKOS_FORCEINLINE_FUNCTION S value(F k) const {
    if constexpr (Streaming)
      return conj_if(scalar_cast<S>(streaming_load(vals, k)), conj);
    else
      return conj_if(scalar_cast<S>(vals(k)), conj);
  }
  /// A's column k.
  template <bool Streaming = false>
  KOKKOS_FORCEINLINE_FUNCTION O col(F k) const {
    if constexpr (Streaming)
      return streaming_load(cols, k);
    else
      return cols(k);
  }
  KOKKOS_FORCEINLINE_FUNCTION S x_at(long long c, int j) const {
    return scalar_cast<S>(vec_at(x, c, j));
  }
  template <bool Streaming = false>
  KOKKOS_FORCEINLINE_FUNCTION S product(F k, int j) const {
    return value<Streaming>(k) * x_at(col<Streaming>(k), j);
  }
  KOKKOS_FORCEINLINE_FUNCTION S dot(F k0, F k1, int j) const {
    S sum = S(0);
    for (F k = k0; k < k1; ++k) sum += product(k, j);
    return sum;
  }
};

/// scalar: one thread per row.
template <class D>
struct SpmvScalarFunctor {
  D d;
  KOKKOS_INLINE_FUNCTION void operator()(const long long i) const {
    const auto k0 = d.row_map(i), k1 = d.kept_end(k0, d.row_map(i + 1));
    for (int j = 0; j < d.vecs(); ++j)
      axpby_store(vec_at(d.y, i, j), d.dot(k0, k1, j), d.alpha, d.beta);
  }
};

/// scalar on host spaces: thread t of `blocks` takes the whole rows
/// [start(t), start(t + 1)), cut at equal shares of rows + nonzeros
/// (row_block_start; from the plan, or searched here), so no row is split
/// and nothing is carried.  One block per thread under a static schedule keeps
/// each thread on the same part of A and y from call to call.  Rank-1
/// contiguous x and y run a plain pointer loop (no View indexing, restrict
/// pointers, β = 0 hoisted out of the loop, four partial sums on rows of 12
/// or more entries).
template <class D, class Starts>
struct SpmvHostRowBlockFunctor {
  using S = typename D::S;
  using YS = typename D::YS;
  using F = typename D::F;
  using O = typename D::O;
  D d;
  Starts starts;  // blocks + 1 first rows (empty: search here)
  long long nnz, blocks;

  static constexpr bool contiguous =
      !D::multi && !std::is_same_v<typename D::x_type::array_layout, Kokkos::LayoutStride> &&
      !std::is_same_v<typename D::y_type::array_layout, Kokkos::LayoutStride>;

  long long start(long long t) const {
    return starts.extent(0) > 0 ? static_cast<long long>(starts(t))
                                : row_block_start(d.row_map, d.num_rows, nnz, t, blocks);
  }

  template <bool Beta0>
  void rows_raw(const long long i0, const long long i1) const {
    const F* KOKKOS_RESTRICT rp = d.row_map.data();
    const O* KOKKOS_RESTRICT ci = d.cols.data();
    const auto* KOKKOS_RESTRICT va = d.vals.data();
    const auto* KOKKOS_RESTRICT xp = d.x.data();
    YS* KOKKOS_RESTRICT yp = d.y.data();
    const S alpha = d.alpha, beta = d.beta;
    const bool conj = d.conj;
    const long long split_row_min = d.split_row_min;
    // A's value times x in S (a no-op conversion when all three types agree).
    auto p = [&](F q) { return conj_if(scalar_cast<S>(va[q]), conj) * scalar_cast<S>(xp[ci[q]]); };
    F k = rp[i0];
    for (long long i = i0; i < i1; ++i) {
      const F end = rp[i + 1];
      if (static_cast<long long>(end - k) > split_row_min) k = end;  // a split row: β·y only
      S sum = 0;
      if (end - k >= 12) {
        // Four partial sums: one running sum is a chain of dependent adds,
        // which bounds long rows in cache; short rows keep the simple loop
        // (fewer branches to mispredict).
        S s1 = 0, s2 = 0, s3 = 0;
        for (; end - k > 3; k += 4) {
          sum += p(k);
          s1 += p(k + 1);
          s2 += p(k + 2);
          s3 += p(k + 3);
        }
        for (; k < end; ++k) sum += p(k);
        sum = (sum + s1) + (s2 + s3);
      } else {
        for (; k < end; ++k) sum += p(k);
      }
      if constexpr (Beta0)
        yp[i] = scalar_cast<YS>(alpha * sum);
      else
        yp[i] = scalar_cast<YS>(alpha * sum + beta * scalar_cast<S>(yp[i]));
    }
  }

  void operator()(const long long t) const {
    const long long i0 = start(t), i1 = start(t + 1);
    if constexpr (contiguous) {
      if (d.beta == S(0))
        rows_raw<true>(i0, i1);
      else
        rows_raw<false>(i0, i1);
    } else {
      const SpmvScalarFunctor<D> row{d};
      for (long long i = i0; i < i1; ++i) row(i);
    }
  }
};

/// Sum of the products of entries k, k + step, k + 2·step, ... before end
/// (right-hand side j).  Each step loads four entries whatever the row's
/// length: a slot past the end re-reads the row's last entry and a select
/// drops its product.  Guarded loads let the compiler start each product's
/// gather of x only after the previous product's (ncu, H200); unconditional
/// ones issue the four column loads, then the four gathers, back to back.
template <bool Streaming, class D, class F = typename D::F>
KOKKOS_FORCEINLINE_FUNCTION typename D::S spmv_strided_sum(const D& d, F k, const F end,
                                                           const F step, int j) {
  using S = typename D::S;
  using O = typename D::O;
  S s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; k < end; k += 4 * step) {
    const F last = end - 1;
    const F k1 = k + step, k2 = k + 2 * step, k3 = k + 3 * step;
    const F q1 = k1 < end ? k1 : last, q2 = k2 < end ? k2 : last, q3 = k3 < end ? k3 : last;
    const O c0 = d.template col<Streaming>(k), c1 = d.template col<Streaming>(q1);
    const O c2 = d.template col<Streaming>(q2), c3 = d.template col<Streaming>(q3);
    const S p0 = d.template value<Streaming>(k) * d.x_at(c0, j);
    const S p1 = d.template value<Streaming>(q1) * d.x_at(c1, j);
    const S p2 = d.template value<Streaming>(q2) * d.x_at(c2, j);
    const S p3 = d.template value<Streaming>(q3) * d.x_at(c3, j);
    s0 += p0;
    s1 += k1 < end ? p1 : S(0);
    s2 += k2 < end ? p2 : S(0);
    s3 += k3 < end ? p3 : S(0);
  }
  return (s0 + s1) + (s2 + s3);
}

/// vector (CSR-vector with the lane count from the row statistics): a group
/// of `lanes` lanes per row, team_size groups per team.  A team takes
/// team_size · rows_per_thread consecutive rows, team_size neighbouring rows
/// at a time, so a warp holds 32 / lanes neighbouring rows and its loads
/// stay within a contiguous stretch of col_idx and values.  Lane l sums the
/// entries k0 + l, k0 + l + lanes, ... four per step (lane_sum), the group
/// sums its lanes (lane_group_sum: shuffles over the warp on CUDA) and its
/// first lane writes y.  Every group runs all rows_per_thread steps, rows
/// past the matrix's end empty, so a warp's groups reach each shuffle
/// together.
template <class D, class Member>
struct SpmvVectorFunctor {
  using S = typename D::S;
  using F = typename D::F;
  using O = typename D::O;
  D d;
  int lanes;            // the launched vector length
  int rows_per_thread;  // rows per lane group

  KOKKOS_FORCEINLINE_FUNCTION S lane_sum(F k, const F end, int j) const {
    return spmv_strided_sum<false>(d, k, end, static_cast<F>(lanes), j);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const long long groups = m.team_size();
    long long i =
        static_cast<long long>(m.league_rank()) * groups * rows_per_thread + m.team_rank();
    for (int r = 0; r < rows_per_thread; ++r, i += groups) {
      const bool in = i < d.num_rows;
      const F k0 = in ? d.row_map(i) : F(0), k1 = in ? d.kept_end(k0, d.row_map(i + 1)) : F(0);
      for (int j = 0; j < d.vecs(); ++j) {
        const S sum = lane_group_sum<S>(
            m, lanes, [&](const int l) { return lane_sum(k0 + static_cast<F>(l), k1, j); });
        if (in) first_lane_do(m, [&]() { axpby_store(vec_at(d.y, i, j), sum, d.alpha, d.beta); });
      }
    }
  }
};

/// Launches SpmvVectorFunctor with L's lanes, lane groups and rows per group
/// (GPU spaces run `vector` this way; host spaces run row blocks, but the
/// kernel is correct there too, lanes taken one after another).
template <class ExecSpace, class D>
void spmv_vector_launch(const ExecSpace& space, const SpmvLaunch& L, const D& d) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int vl = launch_lanes<ExecSpace>(L.vector_length);
  const int rpt = std::max(1, L.rows_per_thread);
  SpmvVectorFunctor<D, Member> f{d, vl, rpt};
  const int ts_max = Policy(space, 1, 1, vl).team_size_max(f, Kokkos::ParallelForTag());
  const int ts = std::max(1, std::min(L.team_size, ts_max));
  const long long per_team = static_cast<long long>(ts) * rpt;
  const long long league = (d.num_rows + per_team - 1) / per_team;
  Kokkos::parallel_for("spk::spmv.vector", Policy(space, league, ts, vl), f);
}

/// merge_path (Merrill & Garland, SC'16): thread `seg` consumes items
/// [seg·n, (seg+1)·n) of the merge of the row ends with the nonzeros, found by
/// a binary search on its diagonal.  Rows that end inside the segment are
/// written (β applied once, there); the unfinished last row's partial sum is
/// carried out and added by SpmvMergeFixup (a second, small launch).
template <class D, class CarryRows, class CarryVals>
struct SpmvMergePathFunctor {
  D d;
  CarryRows carry_rows;
  CarryVals carry_vals;
  CarryRows segment_rows;  // from the plan (empty: search here)
  long long nnz, items;

  KOKKOS_INLINE_FUNCTION void search(long long seg, long long diag, long long& i,
                                     long long& k) const {
    i = segment_rows.extent(0) > 0 ? static_cast<long long>(segment_rows(seg))
                                   : merge_path_search(d.row_map, d.num_rows, nnz, diag);
    k = diag - i;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const long long seg) const {
    using S = typename D::S;
    using F = typename D::F;
    const long long total = d.num_rows + nnz;
    const long long d0 = seg * items;
    const long long d1 = d0 + items < total ? d0 + items : total;
    long long i0, k0, i1, k1;
    search(seg, d0, i0, k0);
    search(seg + 1, d1, i1, k1);
    for (int j = 0; j < d.vecs(); ++j) {
      F k = static_cast<F>(k0);
      S sum = 0;
      for (long long i = i0; i < i1; ++i) {
        const F end = d.row_map(i + 1);
        for (; k < end; ++k) sum += d.product(k, j);
        axpby_store(vec_at(d.y, i, j), sum, d.alpha, d.beta);
        sum = 0;
      }
      for (; k < static_cast<F>(k1); ++k) sum += d.product(k, j);
      carry_vals(seg, j) = sum;
    }
    carry_rows(seg) = static_cast<typename CarryRows::non_const_value_type>(i1);
  }
};

/// merge_path on GPUs: team `seg` takes a tile of the merge path (team_size ×
/// items), stages its products a_k·x(col_k) and its rows' starts in team
/// scratch with coalesced loads, then sums the tile's rows from scratch and
/// hands the unfinished last row's partial sum to SpmvMergeFixup.
///
/// On CUDA devices the rows are summed by a second merge path inside the
/// tile: each thread walks an equal share of the tile's row ends and
/// products in registers, and a segmented scan over the team (shuffles, then
/// one value per warp in scratch) joins the pieces of rows that span
/// threads.  A thread per row, as elsewhere, leaves a tile's long row on one
/// thread while the others wait: on power-law rows (Pareto lengths, a few
/// rows of hundreds of entries among rows of 1-8) that held merge_path at
/// 0.70× cuSPARSE CSR ALG1 (powerlaw:250000, H100).
template <class D, class CarryRows, class CarryVals, class Member>
struct SpmvMergeTileFunctor {
  using S = typename D::S;
  using F = typename D::F;
  using Scratch = typename Member::execution_space::scratch_memory_space;
  using Products = Kokkos::View<S*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Starts = Kokkos::View<F*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using WarpKeys = Kokkos::View<int*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int max_warps = 32;  // 1,024 threads
  D d;
  CarryRows carry_rows;
  CarryVals carry_vals;
  CarryRows segment_rows;  // from the plan (empty: search here)
  long long nnz, items;

  static size_t scratch_bytes(long long items) {
    // The per-warp values first: the scratch's start is aligned for any S.
    return Products::shmem_size(max_warps) + 2 * WarpKeys::shmem_size(max_warps) +
           Products::shmem_size(items) + Starts::shmem_size(items + 1);
  }

  KOKKOS_INLINE_FUNCTION long long split(const Member& m, long long seg, long long diag) const {
    if (segment_rows.extent(0) > 0) return segment_rows(seg);
    long long i = 0;
    Kokkos::single(
        Kokkos::PerTeam(m),
        [&](long long& v) { v = merge_path_search(d.row_map, d.num_rows, nnz, diag); }, i);
    return i;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const long long seg = m.league_rank();
    const long long total = d.num_rows + nnz;
    const long long d0 = seg * items;
    const long long d1 = d0 + items < total ? d0 + items : total;
    const long long i0 = split(m, seg, d0), i1 = split(m, seg + 1, d1);
    const F k0 = static_cast<F>(d0 - i0), k1 = static_cast<F>(d1 - i1);
    const long long nrows = i1 - i0;
    Products warp_vals(m.team_scratch(0), max_warps);
    WarpKeys warp_last(m.team_scratch(0), max_warps), warp_first(m.team_scratch(0), max_warps);
    Products prod(m.team_scratch(0), items);
    Starts start(m.team_scratch(0), items + 1);
    // start(r) = where row i0 + r begins, clamped to the tile.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nrows + 1), [&](const long long r) {
      const F b = d.row_map(i0 + r);
      start(r) = b > k0 ? b : k0;
    });
    for (int j = 0; j < d.vecs(); ++j) {
      if (j > 0) m.team_barrier();  // the previous column's sums are done
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, k1 - k0),
                           [&](const F l) { prod(l) = d.template product<true>(k0 + l, j); });
      m.team_barrier();
#if defined(__CUDA_ARCH__)
      const S carry = walk_rows(m, prod, start, warp_vals, warp_last, warp_first, i0,
                                static_cast<int>(nrows), static_cast<int>(k1 - k0), j);
      if (m.team_rank() == m.team_size() - 1) carry_vals(seg, j) = carry;
#else
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nrows), [&](const long long r) {
        S sum = 0;
        for (F l = start(r); l < start(r + 1); ++l) sum += prod(l - k0);
        axpby_store(vec_at(d.y, i0 + r, j), sum, d.alpha, d.beta);
      });
      S carry = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, start(nrows) - k0, k1 - k0),
          [&](const F l, S& acc) { acc += prod(l); }, carry);
      Kokkos::single(Kokkos::PerTeam(m), [&]() { carry_vals(seg, j) = carry; });
#endif
    }
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      carry_rows(seg) = static_cast<typename CarryRows::non_const_value_type>(i1);
    });
  }

#if defined(__CUDA_ARCH__)
  /// The tile's merge path of `nrows` row ends and `n` staged products,
  /// split evenly over the team's threads (a team of vector length 1: the
  /// team rank is the thread's place in its block).  Writes y for every row
  /// that ends in the tile and returns, in the team's last thread, the
  /// partial sum of the row the tile leaves unfinished.
  __device__ S walk_rows(const Member& m, const Products& prod, const Starts& start,
                         const Products& warp_vals, const WarpKeys& warp_last,
                         const WarpKeys& warp_first, long long i0, int nrows, int n, int j) const {
    const int t = m.team_rank(), T = m.team_size();
    const int len = nrows + n, per = (len + T - 1) / T;
    const int dg = t * per < len ? t * per : len, dg_end = dg + per < len ? dg + per : len;
    // Where this thread's diagonal crosses the tile's merge path: row ends
    // before products (a product l belongs to row r while l < end(r)).
    const F base = start(0);  // k0: row i0 begins at or before the tile
    int lo = dg - n > 0 ? dg - n : 0, hi = dg < nrows ? dg : nrows;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (static_cast<int>(start(mid + 1) - base) <= dg - mid - 1)
        lo = mid + 1;
      else
        hi = mid;
    }
    int r = lo, l = dg - lo;
    auto end_of = [&](int row) {
      return row < nrows ? static_cast<int>(start(row + 1) - base) : n;
    };
    int end = end_of(r);
    S sum = S(0), first_sum = S(0);
    int first_row = -1;
    for (int s = dg; s < dg_end; ++s) {
      if (l < end) {
        sum += prod(l);
        ++l;
      } else {  // row r ends here
        if (first_row < 0) {
          first_row = r;  // its earlier part may lie in the threads before
          first_sum = sum;
        } else {
          axpby_store(vec_at(d.y, i0 + r, j), sum, d.alpha, d.beta);
        }
        sum = S(0);
        end = end_of(++r);
      }
    }
    // Segmented inclusive scan of (row r, sum) over the team; rows rise with t.
    const unsigned mask = warp_threads_mask();
    const int lane = t & 31, warp = t >> 5;
    S v = sum;
    for (int o = 1; o < 32; o <<= 1) {
      const S vo = shfl_up_any(v, o, mask);
      const int ro = __shfl_up_sync(mask, r, o);
      if (lane >= o && ro == r) v += vo;
    }
    const int r_lane0 = __shfl_sync(mask, r, 0);
    if (lane == 31 || t == T - 1) {
      warp_vals(warp) = v;
      warp_last(warp) = r;
    }
    if (lane == 0) warp_first(warp) = r;
    m.team_barrier();
    // What the warps before add to the row the thread's segment reaches back for.
    auto before = [&](int row) {
      S p = S(0);
      for (int w = warp - 1; w >= 0 && warp_last(w) == row; --w) {
        p += warp_vals(w);
        if (warp_first(w) != row) break;
      }
      return p;
    };
    if (r == r_lane0) v += before(r);
    // The row this thread starts in: its earlier part is the scan at t - 1.
    S carry_in = shfl_up_any(v, 1, mask);
    if (lane == 0) carry_in = warp > 0 ? before(warp_last(warp - 1)) : S(0);
    if (first_row >= 0)
      axpby_store(vec_at(d.y, i0 + first_row, j), carry_in + first_sum, d.alpha, d.beta);
    return v;
  }
#endif
};

/// Launches SpmvMergeTileFunctor: L.num_segments tiles of L.merge_path_items
/// items, L.team_size threads each (GPUs run merge_path this way; the kernel
/// is correct on host spaces too, teams there of the threads they have).
template <class ExecSpace, class D, class CR, class CV>
void spmv_merge_tile_launch(const ExecSpace& space, const SpmvLaunch& L, const D& d, long long nnz,
                            const CR& rows, const CV& vals, const CR& starts) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Fn = SpmvMergeTileFunctor<D, CR, CV, typename Policy::member_type>;
  const Fn f{d, rows, vals, starts, nnz, L.merge_path_items};
  const auto scratch = Kokkos::PerTeam(Fn::scratch_bytes(L.merge_path_items));
  const int most = Policy(space, 1, 1, 1)
                       .set_scratch_size(0, scratch)
                       .team_size_max(f, Kokkos::ParallelForTag());
  const int ts = std::max(1, std::min(std::max(1, L.team_size), most));
  Kokkos::parallel_for("spk::spmv.merge_path",
                       Policy(space, L.num_segments, ts, 1).set_scratch_size(0, scratch), f);
}

/// stream (CSR-Stream, Greathouse & Daga, SC'14): team b takes the whole
/// rows [blocks(b), blocks(b + 1)), cut by spmv_stream_blocks so that their
/// entries fit scratch.  The team's threads and lanes read the block's
/// entries as one contiguous stretch (thread t: entries t, t + T, ...; fully
/// coalesced, whatever the row lengths), store a_k·x(col_k) in scratch, and
/// after a barrier each lane group sums one row's products from scratch
/// (lanes stride through the row, shuffles reduce) and writes y.  A block
/// holding more entries than scratch is one long row: the team reduces it
/// straight from global memory.
template <class D, class Blocks, class Member>
struct SpmvStreamFunctor {
  using S = typename D::S;
  using F = typename D::F;
  using Scratch = typename Member::execution_space::scratch_memory_space;
  using Products = Kokkos::View<S*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  D d;
  Blocks blocks;
  long long capacity;  // products a team's scratch holds
  int lanes;           // the launched vector length

  static size_t scratch_bytes(long long capacity) { return Products::shmem_size(capacity); }

  // The team reads a block's entries as one run: whole sectors (Streaming).
  KOKKOS_FORCEINLINE_FUNCTION S product(F k, int j) const { return d.template product<true>(k, j); }

  /// Rows of more entries than scratch holds, one after another, each
  /// reduced by the whole team from global memory.
  KOKKOS_INLINE_FUNCTION void long_rows(const Member& m, long long i0, long long i1) const {
    for (long long i = i0; i < i1; ++i) {
      const F k0 = d.row_map(i), k1 = d.kept_end(k0, d.row_map(i + 1));
      for (int j = 0; j < d.vecs(); ++j) {
        S sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(m, k0, k1), [&](const F k, S& acc) { acc += product(k, j); },
            sum);
        Kokkos::single(Kokkos::PerTeam(m),
                       [&]() { axpby_store(vec_at(d.y, i, j), sum, d.alpha, d.beta); });
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const long long b = m.league_rank();
    const long long i0 = blocks(b), i1 = blocks(b + 1);
    const F k0 = d.row_map(i0), n = d.row_map(i1) - k0;
    if (n > capacity) {
      long_rows(m, i0, i1);
      return;
    }
    Products prod(m.team_scratch(0), capacity);
    for (int j = 0; j < d.vecs(); ++j) {
      if (j > 0) m.team_barrier();  // the previous column's sums are done
      Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n),
                           [&](const F l) { prod(l) = product(k0 + l, j); });
      m.team_barrier();
      // Every lane group of the team runs the same number of steps (rows
      // past the block's end empty), so a warp's groups meet at each of
      // lane_group_sum's shuffles.
      const long long rows = i1 - i0, groups = m.team_size();
      for (long long r0 = 0; r0 < rows; r0 += groups) {
        const long long r = r0 + m.team_rank();
        const bool in = r < rows;
        const F a = in ? d.row_map(i0 + r) - k0 : F(0);
        const F e = in ? d.kept_end(a + k0, d.row_map(i0 + r + 1)) - k0 : F(0);
        const S sum = lane_group_sum<S>(m, lanes, [&](const int l) {
          S acc = 0;
          for (F q = a + l; q < e; q += lanes) acc += prod(q);
          return acc;
        });
        if (in)
          first_lane_do(m, [&]() { axpby_store(vec_at(d.y, i0 + r, j), sum, d.alpha, d.beta); });
      }
    }
  }
};

/// Launches SpmvStreamFunctor: a team of L.team_size lane groups of
/// L.vector_length lanes per row block; `blocks` from the plan, or cut here.
template <class ExecSpace, class D, class Blocks>
void spmv_stream_launch(const ExecSpace& space, const SpmvLaunch& L, const D& d, Blocks blocks) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using O = typename Blocks::non_const_value_type;
  // The plan has lowered the chunk already; plan-less calls lower it here.
  const long long h = spmv_stream_chunk<ExecSpace, typename D::S>(L.stream_block_nnz);
  if (blocks.extent(0) == 0)
    blocks = spmv_stream_blocks<O, ExecSpace>(space, d.row_map, d.num_rows, h);
  const long long league = static_cast<long long>(blocks.extent(0)) - 1;
  if (league <= 0) return;
  const int vl = launch_lanes<ExecSpace>(L.vector_length);
  // Blocks of short rows hold fewer than 2h entries.
  const long long capacity = 2 * h;
  using Fn = SpmvStreamFunctor<D, Blocks, Member>;
  const Fn f{d, blocks, capacity, vl};
  const auto scratch = Kokkos::PerTeam(Fn::scratch_bytes(capacity));
  const int ts_max = Policy(space, 1, 1, vl)
                         .set_scratch_size(0, scratch)
                         .team_size_max(f, Kokkos::ParallelForTag());
  const int ts = std::max(1, std::min(L.team_size, ts_max));
  Kokkos::parallel_for("spk::spmv.stream",
                       Policy(space, league, ts, vl).set_scratch_size(0, scratch), f);
}

/// The long-row split's pieces: team p takes piece p of the split rows
/// (rows(r) is split row r, its pieces piece_starts(r) ..
/// piece_starts(r + 1) - 1, each of `piece` entries but the last), sums it
/// with all its threads (each an equal stride of the piece, four loads in
/// flight) and adds α·Σ to y with an atomic.  The row kernels have written
/// β·y on these rows before (kept_end).
template <bool Atomic, class D, class Rows, class Starts, class Member>
struct SpmvSplitPiecesFunctor {
  using S = typename D::S;
  using F = typename D::F;
  D d;
  Rows rows;
  Starts piece_starts;
  long long num_rows;  // split rows
  long long piece;     // entries a piece

  /// The split row holding piece p: the last r with piece_starts(r) <= p.
  KOKKOS_INLINE_FUNCTION long long row_of(long long p) const {
    long long lo = 0, hi = num_rows;
    while (hi - lo > 1) {
      const long long mid = lo + (hi - lo) / 2;
      if (static_cast<long long>(piece_starts(mid)) <= p)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const long long p = m.league_rank();
    const long long r = row_of(p);
    const long long i = rows(r);
    const F end = d.row_map(i + 1);
    const F k0 =
        d.row_map(i) + static_cast<F>((p - static_cast<long long>(piece_starts(r))) * piece);
    const F k1 = end - k0 > static_cast<F>(piece) ? k0 + static_cast<F>(piece) : end;
    const int threads = m.team_size();
    for (int j = 0; j < d.vecs(); ++j) {
      S sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, threads),
          [&](const int t, S& acc) {
            acc +=
                spmv_strided_sum<true>(d, k0 + static_cast<F>(t), k1, static_cast<F>(threads), j);
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(m),
                     [&]() { add_to<Atomic>(vec_at(d.y, i, j), d.alpha * sum); });
    }
  }
};

/// Launches the split rows' pieces (L.split_*) after a row kernel that
/// skipped them (d.split_row_min = L.split_row_min).
template <class ExecSpace, class D, class Rows, class Starts>
void spmv_split_pieces_launch(const ExecSpace& space, const SpmvLaunch& L, const D& d,
                              const Rows& rows, const Starts& piece_starts) {
  if (L.split_rows <= 0 || L.split_pieces <= 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Fn = SpmvSplitPiecesFunctor<spmv_needs_atomics_v<ExecSpace>, D, Rows, Starts,
                                    typename Policy::member_type>;
  const Fn f{d, rows, piece_starts, L.split_rows, std::max(1LL, L.split_piece_nnz)};
  const int ts_max = Policy(space, 1, 1, 1).team_size_max(f, Kokkos::ParallelForTag());
  const int ts = std::max(1, std::min(L.split_team_size, ts_max));
  Kokkos::parallel_for("spk::spmv.split_pieces", Policy(space, L.split_pieces, ts, 1), f);
}

template <bool Atomic, class D, class CarryRows, class CarryVals>
struct SpmvMergeFixup {
  D d;
  CarryRows carry_rows;
  CarryVals carry_vals;
  KOKKOS_INLINE_FUNCTION void operator()(const long long seg) const {
    using S = typename D::S;
    const long long r = carry_rows(seg);
    if (r >= d.num_rows) return;
    for (int j = 0; j < d.vecs(); ++j) {
      const S c = carry_vals(seg, j);
      if (c != S(0)) add_to<Atomic>(vec_at(d.y, r, j), d.alpha * c);
    }
  }
};

/// Dynamic (LightSpMV, Liu & Schmidt 2015): each team draws `chunk` rows
/// per lane group at a time from an atomic counter until the rows run out,
/// so a team that meets short rows takes more of them; each row is reduced
/// across its group's vector lanes.  One draw per team rather than per lane
/// group: all lane groups of the GPU draw at the same moment, and the
/// counter serves the draws one after the other.
template <class D, class Counter, class Member>
struct SpmvDynamicFunctor {
  D d;
  Counter next;
  long long chunk;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    using S = typename D::S;
    using F = typename D::F;
    const long long per_team = chunk * t.team_size();
    while (true) {
      long long team_first = 0;
      Kokkos::single(
          Kokkos::PerTeam(t),
          [&](long long& v) {
            v = static_cast<long long>(
                atomic_fetch_add_integer(&next(0), static_cast<unsigned long long>(per_team)));
          },
          team_first);
      if (team_first >= d.num_rows) return;
      const long long first = team_first + t.team_rank() * chunk;
      const long long last = first + chunk < d.num_rows ? first + chunk : d.num_rows;
      for (long long i = first; i < last; ++i) {
        const F k0 = d.row_map(i), len = d.row_map(i + 1) - k0;
        for (int j = 0; j < d.vecs(); ++j) {
          S sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(t, len),
              [&](const F l, S& s) { s += d.product(k0 + l, j); }, sum);
          Kokkos::single(Kokkos::PerThread(t),
                         [&]() { axpby_store(vec_at(d.y, i, j), sum, d.alpha, d.beta); });
        }
      }
    }
  }
};

/// Runs the dynamic algorithm with a one-entry counter (reset here, on
/// `space`): as many lane groups as the space runs at once.
template <class ExecSpace, class D, class Counter>
void spmv_csr_dynamic(const ExecSpace& space, const SpmvLaunch& L, const D& d,
                      const Counter& counter) {
  if (d.num_rows == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Functor = SpmvDynamicFunctor<D, Counter, typename Policy::member_type>;
  Kokkos::deep_copy(space, counter, 0ULL);
  const int vl =
      std::max(1, std::min(L.vector_length, static_cast<int>(Policy::vector_length_max())));
  const long long chunk = std::max(1, L.rows_per_thread);
  const Functor f{d, counter, chunk};
  const int ts = std::max(
      1, std::min(L.team_size, Policy(space, 1, 1, vl).team_size_max(f, Kokkos::ParallelForTag())));
  const long long resident = std::max(1LL, static_cast<long long>(concurrency(space)) / (ts * vl));
  const long long needed = (d.num_rows + chunk * ts - 1) / (chunk * ts);
  Kokkos::parallel_for("spk::spmv.dynamic", Policy(space, std::min(resident, needed), ts, vl), f);
}

/// y := β·y (β = 0 writes zeros, ignoring NaN in y).
template <class ExecSpace, class Y, class S>
static void spmv_scale(const ExecSpace& space, const Y& y, const S beta) {
  const int nv = num_vecs(y);
  Kokkos::parallel_for(
      "spk::spmv.scale", Kokkos::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(const long long i) {
        for (int j = 0; j < (static_cast<int>(Y::rank) == 1 ? 1 : nv); ++j) {
          auto& v = vec_at(y, i, j);
          v = beta == S(0) ? S(0) : beta * v;
        }
      });
}

/// Scatter form, y += α·Aᵀx for CSR-shaped A (also CSC in normal mode):
/// row i of A adds α·a_ik·x_i to y(col_k).  Call spmv_scale first.
template <class ExecSpace, class D>
static void spmv_csr_scatter(const ExecSpace& space, const D& d) {
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.csr_transpose", Kokkos::RangePolicy<ExecSpace>(space, 0, d.num_rows),
      KOKKOS_LAMBDA(const long long i) {
        using S = typename D::S;
        for (int j = 0; j < d.vecs(); ++j) {
          const S xi = d.alpha * d.x_at(i, j);
          for (auto k = d.row_map(i); k < d.row_map(i + 1); ++k)
            add_to<atomic>(vec_at(d.y, d.cols(k), j), d.value(k) * xi);
        }
      });
}

/// COO: y(row_k) += α·a_k·x(col_k) with atomics (a_k conjugated when
/// `conj`), summed in mixed_scalar_t.  Call spmv_scale first.
template <class ExecSpace, class Rows, class Cols, class Vals, class X, class Y, class YS>
static void spmv_coo(const ExecSpace& space, const Rows& rows, const Cols& cols, const Vals& vals,
                     const X& x, const Y& y, const YS alpha_in, const bool conj) {
  using S = mixed_scalar_t<typename Vals::non_const_value_type, typename X::non_const_value_type,
                           typename Y::non_const_value_type>;
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  const int nv = num_vecs(y);
  const S alpha = scalar_cast<S>(alpha_in);
  Kokkos::parallel_for(
      "spk::spmv.coo", Kokkos::RangePolicy<ExecSpace>(space, 0, vals.extent(0)),
      KOKKOS_LAMBDA(const long long k) {
        const S a = alpha * conj_if(scalar_cast<S>(vals(k)), conj);
        for (int j = 0; j < (static_cast<int>(Y::rank) == 1 ? 1 : nv); ++j)
          add_to<atomic>(vec_at(y, rows(k), j), a * scalar_cast<S>(vec_at(x, cols(k), j)));
      });
}

/// Whether a product into y of value type YS must sum in a temporary:
/// the scatter kernels add each term into y, so when y's type is narrower
/// than the accumulation type S (a double matrix with float vectors) the
/// terms go into a View of S first and y is rounded once.
template <class S, class YS>
inline constexpr bool spmv_scatter_needs_accumulator_v = !std::is_same_v<S, YS>;

/// y := w + β·y, rounded once to y's type (w: the accumulation type).
template <class ExecSpace, class W, class Y, class S>
static void spmv_accumulator_store(const ExecSpace& space, const W& w, const S beta, const Y& y) {
  using YS = typename Y::non_const_value_type;
  const int nv = num_vecs(y);
  Kokkos::parallel_for(
      "spk::spmv.accumulator_store", Kokkos::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(const long long i) {
        for (int j = 0; j < nv; ++j) {
          YS& v = vec_at(y, i, j);
          v = scalar_cast<YS>(beta == S(0) ? w(i, j) : w(i, j) + beta * scalar_cast<S>(v));
        }
      });
}

/// y := α·op(A)·x + β·y through a temporary of the accumulation type S:
/// `product(alpha, w)` must compute w := α·op(A)·x (w zeroed); then
/// y := w + β·y, rounded once.  (The store is a function of its own: CUDA
/// lambdas may not sit in a function templated on a local lambda type.)
template <class S, class ExecSpace, class Y, class Product>
void spmv_through_accumulator(const ExecSpace& space, typename Y::non_const_value_type alpha,
                              typename Y::non_const_value_type beta, const Y& y,
                              Product&& product) {
  using W = Kokkos::View<S**, Kokkos::LayoutLeft, typename Y::memory_space>;
  W w(Kokkos::ViewAllocateWithoutInitializing("spk::spmv.accumulator"), y.extent(0), num_vecs(y));
  if constexpr (static_cast<int>(Y::rank) == 1)
    product(scalar_cast<S>(alpha), Kokkos::subview(w, Kokkos::ALL, 0));
  else
    product(scalar_cast<S>(alpha), w);
  spmv_accumulator_store(space, w, scalar_cast<S>(beta), y);
}

/// Runs a row-oriented CSR product with the resolved launch L.  carry_* are
/// merge-path scratch of at least L.num_segments rows (allocated here when
/// empty).
template <class ExecSpace, class D, class CarryRows, class CarryVals>
void spmv_csr_launch(const ExecSpace& space, const SpmvLaunch& L, const D& d, long long nnz,
                     CarryRows carry_rows, CarryVals carry_vals, CarryRows segment_rows) {
  if (d.num_rows == 0) return;
  switch (L.algorithm) {
    case SpmvAlgorithm::Stream: {
      using CR = Kokkos::View<typename D::O*, typename CarryVals::memory_space>;
      spmv_stream_launch(space, L, d, CR(segment_rows));
      break;
    }
    case SpmvAlgorithm::Auto:  // resolved before; treat as scalar
    case SpmvAlgorithm::Scalar:
    case SpmvAlgorithm::Vector: {
      if constexpr (is_host_space_v<ExecSpace>) {
        // A thread per block of whole rows; the row loop's partial sums are
        // the CPU's lanes.
        using CR = Kokkos::View<typename D::O*, typename CarryVals::memory_space>;
        const long long blocks = std::max(1LL, L.row_blocks);
        const CR starts =
            segment_rows.extent(0) == static_cast<size_t>(blocks + 1) ? CR(segment_rows) : CR();
        Kokkos::parallel_for("spk::spmv.row_blocks",
                             Kokkos::RangePolicy<ExecSpace>(space, 0, blocks),
                             SpmvHostRowBlockFunctor<D, CR>{d, starts, nnz, blocks});
      } else if (L.algorithm == SpmvAlgorithm::Vector) {
        spmv_vector_launch(space, L, d);
      } else {
        Kokkos::parallel_for("spk::spmv.scalar",
                             Kokkos::RangePolicy<ExecSpace>(space, 0, d.num_rows),
                             SpmvScalarFunctor<D>{d});
      }
      break;
    }
    case SpmvAlgorithm::Dynamic: {
      using Counter = Kokkos::View<unsigned long long*, typename CarryVals::memory_space>;
      spmv_csr_dynamic(space, L, d, Counter("spk::spmv.dynamic_counter", 1));
      break;
    }
    case SpmvAlgorithm::MergePath: {
      const long long segs = L.num_segments;
      if (segs == 0) return;
      using CR = Kokkos::View<typename D::O*, typename CarryVals::memory_space>;
      CR rows = carry_rows;
      CarryVals vals = carry_vals;
      if (rows.extent(0) < static_cast<size_t>(segs) ||
          vals.extent(0) < static_cast<size_t>(segs) ||
          vals.extent(1) < static_cast<size_t>(d.vecs())) {
        rows = CR(Kokkos::ViewAllocateWithoutInitializing("spk::spmv.carry_rows"), segs);
        vals = CarryVals(Kokkos::ViewAllocateWithoutInitializing("spk::spmv.carry_values"), segs,
                         d.vecs());
      }
      const CR starts =
          segment_rows.extent(0) == static_cast<size_t>(segs + 1) ? CR(segment_rows) : CR();
      if constexpr (is_host_space_v<ExecSpace>) {
        Kokkos::parallel_for(
            "spk::spmv.merge_path", Kokkos::RangePolicy<ExecSpace>(space, 0, segs),
            SpmvMergePathFunctor<D, CR, CarryVals>{d, rows, vals, starts, nnz, L.merge_path_items});
      } else {
        spmv_merge_tile_launch(space, L, d, nnz, rows, vals, starts);
      }
      if constexpr (is_host_space_v<ExecSpace>) {
        // A few dozen carries: adding them on this thread is cheaper than
        // another fork/join.
        space.fence();
        const SpmvMergeFixup<false, D, CR, CarryVals> fix{d, rows, vals};
        for (long long s = 0; s < segs; ++s) fix(s);
      } else {
        Kokkos::parallel_for("spk::spmv.merge_path_fixup",
                             Kokkos::RangePolicy<ExecSpace>(space, 0, segs),
                             SpmvMergeFixup<true, D, CR, CarryVals>{d, rows, vals});
      }
      break;
    }
  }
}

}  // namespace spk::Impl
