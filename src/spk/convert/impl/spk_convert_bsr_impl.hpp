// Kernels behind spk_convert_bsr.hpp.
#pragma once

#include <impl/spk_convert_impl.hpp>
#include <spk_bsr_matrix.hpp>
#include <spk_csr_matrix.hpp>

namespace spk::Impl {

/// Whether a non-negative 64-bit count fits the offset type F (signed or not).
template <class F>
bool fits_offset(long long count) {
  return fits_integer<F>(count);
}

/// Walks the (sorted) rows of block row I together, block column by block
/// column: a b-way merge of the rows' column indices divided by b.  Calls
/// visit(J) once per distinct block column J, then entry(r, k) for every CSR
/// entry k of row I·b + r that falls in block column J.
template <class RowMap, class Cols, class Visit, class Entry>
KOKKOS_INLINE_FUNCTION void bsr_merge_block_row(const RowMap& rm, const Cols& ci, long long I,
                                                long long m, int b, const Visit& visit,
                                                const Entry& entry) {
  using F = typename RowMap::non_const_value_type;
  F pos[bsr_max_block_size], end[bsr_max_block_size];
  const int rows = I * b + b <= m ? b : static_cast<int>(m - I * b);
  for (int r = 0; r < rows; ++r) {
    pos[r] = rm(I * b + r);
    end[r] = rm(I * b + r + 1);
  }
  while (true) {
    long long J = -1;
    for (int r = 0; r < rows; ++r)
      if (pos[r] < end[r]) {
        const long long j = static_cast<long long>(ci(pos[r])) / b;
        if (J < 0 || j < J) J = j;
      }
    if (J < 0) return;
    visit(J);
    for (int r = 0; r < rows; ++r)
      for (; pos[r] < end[r] && static_cast<long long>(ci(pos[r])) / b == J; ++pos[r])
        entry(r, pos[r]);
  }
}

// (No deduced return types around KOKKOS_LAMBDA: nvcc forbids them.)
template <class ExecSpace, class S, class O, class F, class D>
static BsrMatrix<S, O, F, D> csr_to_bsr(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                        int b) {
  using Bsr = BsrMatrix<S, O, F, D>;
  const long long m = A.num_rows();
  const long long nbr = (m + b - 1) / b;
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  typename Bsr::row_map_type row_map("spk::csr_to_bsr::row_map", nbr + 1);
  Kokkos::parallel_for(
      "spk::csr_to_bsr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, nbr),
      KOKKOS_LAMBDA(const long long I) {
        F count = 0;
        bsr_merge_block_row(
            rm, ci, I, m, b, [&](long long) { ++count; }, [&](int, F) {});
        row_map(I) = count;
      });
  // The number of blocks may exceed F where the entries did not: scan in 64 bits.
  long long total = 0;
  Kokkos::parallel_reduce(
      "spk::csr_to_bsr::total", Kokkos::RangePolicy<ExecSpace>(space, 0, nbr),
      KOKKOS_LAMBDA(const long long I, long long& s) { s += static_cast<long long>(row_map(I)); },
      total);
  SPK_REQUIRE(fits_offset<F>(total), Overflow, "csr_to_bsr: ", total,
              " blocks do not fit the offset type");
  exclusive_scan(space, row_map, nbr);
  const size_t bb = static_cast<size_t>(b) * b;
  typename Bsr::index_type bcols(Kokkos::ViewAllocateWithoutInitializing("bsr.col_idx"), total);
  typename Bsr::values_type bvals("bsr.values", total * bb);  // zeros: fill and padding
  Kokkos::parallel_for(
      "spk::csr_to_bsr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, nbr),
      KOKKOS_LAMBDA(const long long I) {
        long long k = static_cast<long long>(row_map(I)) - 1;
        bsr_merge_block_row(
            rm, ci, I, m, b, [&](long long J) { bcols(++k) = static_cast<O>(J); },
            [&](int r, F p) {
              // += : duplicate CSR entries are summed.
              bvals(k * bb + r * b + static_cast<long long>(ci(p)) % b) += va(p);
            });
      });
  return Bsr(A.num_rows(), A.num_cols(), b, row_map, bcols, bvals);
}

template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> bsr_to_csr(const ExecSpace& space, const BsrMatrix<S, O, F, D>& A,
                                        bool drop_zeros) {
  using Csr = CsrMatrix<S, O, F, D>;
  const long long m = A.num_rows(), n = A.num_cols();
  const int b = A.block_size();
  const long long bb = static_cast<long long>(b) * b;
  auto brm = A.row_map();
  auto bci = A.col_idx();
  auto bva = A.values();
  typename Csr::row_map_type row_map("spk::bsr_to_csr::row_map", m + 1);
  Kokkos::parallel_for(
      "spk::bsr_to_csr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        const long long I = i / b, r = i % b;
        long long count = 0;
        for (long long k = brm(I); k < static_cast<long long>(brm(I + 1)); ++k)
          for (int c = 0; c < b; ++c)
            count += static_cast<long long>(bci(k)) * b + c < n &&
                     !(drop_zeros && bva(k * bb + r * b + c) == S(0));
        row_map(i) = static_cast<F>(count);
      });
  long long total = 0;
  Kokkos::parallel_reduce(
      "spk::bsr_to_csr::total", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& s) { s += static_cast<long long>(row_map(i)); },
      total);
  SPK_REQUIRE(fits_offset<F>(total), Overflow, "bsr_to_csr: ", total,
              " entries do not fit the offset type");
  exclusive_scan(space, row_map, m);
  Csr C(m, n, row_map,
        typename Csr::index_type(Kokkos::ViewAllocateWithoutInitializing("csr.col_idx"), total),
        typename Csr::values_type(Kokkos::ViewAllocateWithoutInitializing("csr.values"), total));
  auto cc = C.col_idx();
  auto cv = C.values();
  Kokkos::parallel_for(
      "spk::bsr_to_csr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        const long long I = i / b, r = i % b;
        F o = row_map(i);
        for (long long k = brm(I); k < static_cast<long long>(brm(I + 1)); ++k)
          for (int c = 0; c < b; ++c) {
            const long long col = static_cast<long long>(bci(k)) * b + c;
            const S v = bva(k * bb + r * b + c);
            if (col >= n || (drop_zeros && v == S(0))) continue;
            cc(o) = static_cast<O>(col);
            cv(o) = v;
            ++o;
          }
      });
  return C;
}

}  // namespace spk::Impl
