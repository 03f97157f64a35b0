// Kernels behind spk_spmv_bsr.hpp: y := α·op(A)·x + β·y for BSR.
#pragma once

#include <impl/spk_spmv_kernels.hpp>
#include <spk_bsr_matrix.hpp>
#include <spk_spmv_tuning.hpp>

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

/// Host: one thread per block row, the b row sums in registers.
template <class D>
struct SpmvBsrHostFunctor {
  D d;
  void operator()(const long long I) const {
    using S = typename D::S;
    const int b = d.b;
    const long long bb = static_cast<long long>(b) * b;
    const int rows = I * b + b <= d.m ? b : static_cast<int>(d.m - I * b);
    const long long k0 = d.row_map(I), k1 = d.row_map(I + 1);
    for (int j = 0; j < d.nv; ++j) {
      S acc[bsr_max_block_size] = {};
      for (long long k = k0; k < k1; ++k) {
        const long long c0 = static_cast<long long>(d.cols(k)) * b;
        const int cols = c0 + b <= d.n ? b : static_cast<int>(d.n - c0);
        const auto* blk = &d.vals(k * bb);
        for (int r = 0; r < rows; ++r) {
          S s = 0;
          for (int c = 0; c < cols; ++c) s += spmv_value(d, blk[r * b + c]) * spmv_x(d, c0 + c, j);
          acc[r] += s;
        }
      }
      for (int r = 0; r < rows; ++r)
        axpby_store(vec_at(d.y, I * b + r, j), acc[r], d.alpha, d.beta);
    }
  }
};

/// GPUs: a lane group per row of the matrix (row q = I·b + r of block row
/// I).  The group's lanes walk the row's (block, column) pairs, lane l
/// taking pairs l, l + lanes, ...; the b groups of a block row are
/// neighbours in a warp, so together they read each block's b·b values
/// and its b x entries at once.  Block and column advance by additions
/// (no 64-bit division per entry).
template <class D, class Member>
struct SpmvBsrRowFunctor {
  D d;
  int lanes;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    using S = typename D::S;
    const long long q = static_cast<long long>(t.league_rank()) * t.team_size() + t.team_rank();
    if (q >= d.m) return;
    const int b = d.b;
    const long long I = q / b;
    const int r = static_cast<int>(q - I * b);
    const long long bb = static_cast<long long>(b) * b;
    const long long k0 = d.row_map(I);
    const long long pairs = (static_cast<long long>(d.row_map(I + 1)) - k0) * b;
    const long long dk = lanes / b;
    const int dc = lanes % b;
    for (int j = 0; j < d.nv; ++j) {
      S sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(t, lanes),
          [&](const int lane, S& s) {
            long long k = k0 + lane / b;
            int c = lane % b;
#pragma unroll 4
            for (long long p = lane; p < pairs; p += lanes) {
              const long long col = static_cast<long long>(d.cols(k)) * b + c;
              if (col < d.n) s += spmv_value(d, d.vals(k * bb + r * b + c)) * spmv_x(d, col, j);
              k += dk;
              c += dc;
              if (c >= b) {
                c -= b;
                ++k;
              }
            }
          },
          sum);
      Kokkos::single(Kokkos::PerThread(t),
                     [&]() { axpby_store(vec_at(d.y, q, j), sum, d.alpha, d.beta); });
    }
  }
};

template <class ExecSpace, class D>
void spmv_bsr_normal(const ExecSpace& space, const D& d, double mean_blocks_per_row) {
  if constexpr (is_host_space_v<ExecSpace>) {
    (void)mean_blocks_per_row;
    Kokkos::parallel_for("spk::spmv.bsr",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, d.num_block_rows),
                         SpmvBsrHostFunctor<D>{d});
  } else {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const SpmvTuning tuning = spmv_tuning(space);
    const int lanes = std::min(static_cast<int>(Policy::vector_length_max()),
                               bsr_lanes_per_row(tuning, d.b, mean_blocks_per_row));
    const int ts = std::max(1, tuning.vector_team_threads / lanes);
    const long long league = (d.m + ts - 1) / ts;
    Kokkos::parallel_for("spk::spmv.bsr", Policy(space, league, ts, lanes),
                         SpmvBsrRowFunctor<D, typename Policy::member_type>{d, lanes});
  }
}

/// y += α·Aᵀx (call spmv_scale first): block (I, J) adds its columns'
/// products with x's block I to y's block J.
template <class ExecSpace, class D>
void spmv_bsr_transpose(const ExecSpace& space, const D& d) {
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
