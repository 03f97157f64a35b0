// Kernels behind spk_spmv_bsr.hpp: y := α·op(A)·x + β·y for BSR.
#pragma once

#include <impl/spk_spmv_kernels.hpp>
#include <spk_bsr_matrix.hpp>

namespace spk::Impl {

template <class RowMap, class Cols, class Vals, class X, class Y>
struct SpmvBsrData {
  using YS = typename Y::non_const_value_type;
  using S =
      mixed_scalar_t<typename Vals::non_const_value_type, typename X::non_const_value_type, YS>;
  RowMap row_map;
  Cols cols;
  Vals vals;
  X x;
  Y y;
  S alpha, beta;
  long long m, n, num_block_rows;
  int b, nv;
  bool conj = false;  // Aᴴ: conjugate A's values
};

/// Host: one thread per block row, the b row sums in registers.  B > 0 fixes
/// b at compile time (the block loops unroll), B = 0 reads it from D.
template <class D, int B>
struct SpmvBsrHostFunctor {
  D d;
  void operator()(const long long I) const {
    using S = typename D::S;
    const int b = B > 0 ? B : d.b;
    const long long bb = static_cast<long long>(b) * b;
    const int rows = I * b + b <= d.m ? b : static_cast<int>(d.m - I * b);
    const long long k0 = d.row_map(I), k1 = d.row_map(I + 1);
    for (int j = 0; j < d.nv; ++j) {
      S acc[bsr_max_block_size] = {};
      for (long long k = k0; k < k1; ++k) {
        const long long c0 = static_cast<long long>(d.cols(k)) * b;
        const auto* blk = &d.vals(k * bb);
        if (rows == b && c0 + b <= d.n) {  // a whole block: loops of b unroll
          for (int r = 0; r < b; ++r) {
            S s = 0;
            for (int c = 0; c < b; ++c) s += spmv_value(d, blk[r * b + c]) * spmv_x(d, c0 + c, j);
            acc[r] += s;
          }
        } else {  // cut by the matrix's last block row or column
          const int cols = c0 + b <= d.n ? b : static_cast<int>(d.n - c0);
          for (int r = 0; r < rows; ++r) {
            S s = 0;
            for (int c = 0; c < cols; ++c)
              s += spmv_value(d, blk[r * b + c]) * spmv_x(d, c0 + c, j);
            acc[r] += s;
          }
        }
      }
      for (int r = 0; r < rows; ++r)
        axpby_store(vec_at(d.y, I * b + r, j), acc[r], d.alpha, d.beta);
    }
  }
};

/// Row r of the blocks k0, k0 + stride, ... (< k1) of a block row times x.
template <int B, class D>
KOKKOS_FORCEINLINE_FUNCTION typename D::S bsr_row_sum(const D& d, const int r, const long long k0,
                                                      const long long k1, const int stride,
                                                      const int j) {
  using S = typename D::S;
  const int b = B > 0 ? B : d.b;
  const long long bb = static_cast<long long>(b) * b;
  S sum = 0;
#pragma unroll 2
  for (long long k = k0; k < k1; k += stride) {
    const long long c0 = static_cast<long long>(d.cols(k)) * b;
    const long long at = k * bb + static_cast<long long>(r) * b;
    if (c0 + b <= d.n) {
#pragma unroll
      for (int c = 0; c < b; ++c) sum += spmv_value(d, d.vals(at + c)) * spmv_x(d, c0 + c, j);
    } else {  // the last block column, cut by the matrix's edge
      for (int c = 0; c < d.n - c0; ++c)
        sum += spmv_value(d, d.vals(at + c)) * spmv_x(d, c0 + c, j);
    }
  }
  return sum;
}

/// GPUs: a thread per row of the matrix (row q = I·b + r of block row I).
/// It walks its block row's blocks, reading row r of each (b consecutive
/// values) and the block's b x entries.  The b threads of a block row are
/// neighbours in a warp, so together they read each block whole, and a
/// warp reads 32/b block rows side by side as a thread-per-row CSR kernel
/// reads rows; the column index is loaded once per block instead of once
/// per entry.  B > 0 fixes b at compile time (the loops over a block's
/// columns unroll and q / b needs no division instruction); B = 0 reads it
/// from D.
template <class D, int B>
struct SpmvBsrRowFunctor {
  D d;
  KOKKOS_INLINE_FUNCTION void operator()(const long long q) const {
    const int b = B > 0 ? B : d.b;
    const long long I = q / b;
    const int r = static_cast<int>(q - I * b);
    const long long k0 = d.row_map(I), k1 = d.row_map(I + 1);
    for (int j = 0; j < d.nv; ++j)
      axpby_store(vec_at(d.y, q, j), bsr_row_sum<B>(d, r, k0, k1, 1, j), d.alpha, d.beta);
  }
};

/// GPUs, lanes > 1 (format_lanes): SpmvBsrRowFunctor with `lanes` vector
/// lanes per row, lane l taking the block row's blocks l, l + lanes, ...;
/// the lanes of a row and the b rows of a block row are neighbours in a
/// warp, so together they still read whole blocks.
template <class D, int B, class Member>
struct SpmvBsrLanesFunctor {
  D d;
  int lanes;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    using S = typename D::S;
    // Rows past the end sum no blocks, so a warp's groups meet at each lane
    // sum.
    const long long q = format_lanes_row(t);
    const bool in = q < d.m;
    const int b = B > 0 ? B : d.b;
    const long long I = in ? q / b : 0;
    const int r = static_cast<int>(in ? q - I * b : 0);
    const long long k0 = in ? d.row_map(I) : 0, k1 = in ? d.row_map(I + 1) : 0;
    for (int j = 0; j < d.nv; ++j) {
      const S sum = lane_group_sum<S>(
          t, lanes, [&](const int l) { return bsr_row_sum<B>(d, r, k0 + l, k1, lanes, j); });
      if (in) first_lane_do(t, [&] { axpby_store(vec_at(d.y, q, j), sum, d.alpha, d.beta); });
    }
  }
};

/// Host spaces: a thread per block row; GPUs: a thread (or L.lanes lanes)
/// per row.
template <int B, class ExecSpace, class D>
void spmv_bsr_rows(const ExecSpace& space, const D& d, const FormatLanes& L) {
  if constexpr (is_host_space_v<ExecSpace>) {
    (void)L;
    Kokkos::parallel_for("spk::spmv.bsr",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, d.num_block_rows),
                         SpmvBsrHostFunctor<D, B>{d});
  } else if (L.lanes > 1) {
    using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
    Kokkos::parallel_for("spk::spmv.bsr_lanes", format_lanes_policy(space, d.m, L),
                         SpmvBsrLanesFunctor<D, B, Member>{d, L.lanes});
  } else {
    Kokkos::parallel_for("spk::spmv.bsr", Kokkos::RangePolicy<ExecSpace>(space, 0, d.m),
                         SpmvBsrRowFunctor<D, B>{d});
  }
}

template <class ExecSpace, class D>
void spmv_bsr_normal(const ExecSpace& space, const D& d, const FormatLanes& L) {
  // The block sizes of 2-4 dofs a node (elasticity, shells, Navier-Stokes
  // in 3-D) get unrolled kernels; others read b at run time.
  switch (d.b) {
    case 2:
      spmv_bsr_rows<2>(space, d, L);
      break;
    case 3:
      spmv_bsr_rows<3>(space, d, L);
      break;
    case 4:
      spmv_bsr_rows<4>(space, d, L);
      break;
    default:
      spmv_bsr_rows<0>(space, d, L);
      break;
  }
}

/// y += α·Aᵀx (call spmv_scale first): block (I, J) adds its columns'
/// products with x's block I to y's block J.
template <class ExecSpace, class D>
static void spmv_bsr_transpose(const ExecSpace& space, const D& d) {
  constexpr bool atomic = spmv_needs_atomics_v<ExecSpace>;
  Kokkos::parallel_for(
      "spk::spmv.bsr_transpose", Kokkos::RangePolicy<ExecSpace>(space, 0, d.num_block_rows),
      KOKKOS_LAMBDA(const long long I) {
        using S = typename D::S;
        const int b = d.b;
        const long long bb = static_cast<long long>(b) * b;
        const int rows = I * b + b <= d.m ? b : static_cast<int>(d.m - I * b);
        for (int j = 0; j < d.nv; ++j)
          for (long long k = d.row_map(I); k < static_cast<long long>(d.row_map(I + 1)); ++k) {
            const long long c0 = static_cast<long long>(d.cols(k)) * b;
            const int cols = c0 + b <= d.n ? b : static_cast<int>(d.n - c0);
            for (int c = 0; c < cols; ++c) {
              S s = 0;
              for (int r = 0; r < rows; ++r)
                s += spmv_value(d, d.vals(k * bb + r * b + c)) * spmv_x(d, I * b + r, j);
              add_to<atomic>(vec_at(d.y, c0 + c, j), d.alpha * s);
            }
          }
      });
}

}  // namespace spk::Impl
