// Kernels behind spk_convert_ell.hpp and spk_convert_hyb.hpp.
#pragma once

#include <impl/spk_atomic.hpp>
#include <impl/spk_convert_impl.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_ell_matrix.hpp>
#include <spk_error.hpp>
#include <string>
#include <vector>

namespace spk::Impl {

template <class ExecSpace, class RowMap>
static long long longest_row(const ExecSpace& space, const RowMap& rm, long long m) {
  long long longest = 0;
  Kokkos::parallel_reduce(
      "spk::longest_row", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& l) {
        const long long len = static_cast<long long>(rm(i + 1)) - static_cast<long long>(rm(i));
        if (len > l) l = len;
      },
      Kokkos::Max<long long>(longest));
  return m > 0 ? longest : 0;
}

/// The first row longer than width (m when none).
template <class ExecSpace, class RowMap>
static long long first_row_longer_than(const ExecSpace& space, const RowMap& rm, long long m,
                                       long long width) {
  long long first = m;
  Kokkos::parallel_reduce(
      "spk::first_long_row", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& f) {
        if (static_cast<long long>(rm(i + 1) - rm(i)) > width && i < f) f = i;
      },
      Kokkos::Min<long long>(first));
  return first < m ? first : m;
}

/// Throws when m × width slots exceed max_fill × max(nnz, m) + allowance (no
/// cap when max_fill ≤ 0); `longest` says that width is A's longest row,
/// which the message then names.
template <class ExecSpace, class A_t>
void check_ell_padding(const ExecSpace& space, const A_t& A, const long long width,
                       const bool longest, const double max_fill, const long long allowance) {
  if (max_fill <= 0) return;
  using S = typename A_t::non_const_scalar_type;
  using Ord = typename A_t::ordinal_type;
  const long long m = A.num_rows();
  const double slots = static_cast<double>(m) * static_cast<double>(width);
  const double base = static_cast<double>(std::max<long long>(A.nnz(), m));
  if (slots <= max_fill * base + static_cast<double>(allowance)) return;
  std::string why;
  if (longest)
    why = concat(" (row ", first_row_longer_than(space, A.row_map(), m, width - 1), " has ", width,
                 " entries)");
  const double gib = slots * double(sizeof(S) + sizeof(Ord)) / double(1LL << 30);
  throw InvalidMatrix(concat("csr_to_ell: width ", width, why, " pads ", m, " rows to ", gib,
                             " GiB, ", slots / base, " times the ", A.nnz(),
                             " entries (EllOptions::max_fill is ", max_fill,
                             "); use HYB (csr_to_hyb) or SELL (csr_to_sell), which keep long "
                             "rows apart, or raise max_fill"));
}

/// hist[l] = rows of length l, for l <= longest (host vector).
template <class ExecSpace, class RowMap>
static std::vector<long long> row_length_histogram(const ExecSpace& space, const RowMap& rm,
                                                   long long m, long long longest) {
  // Most rows of a regular matrix share a length, so every thread adds to
  // the same few words: the hardware's atomic, not a CAS loop (on an H200
  // the CAS loop took 7.8 s for 4·10⁵ rows of nearly one length).
  Kokkos::View<unsigned long long*, typename RowMap::memory_space> h("spk::row_length_histogram",
                                                                     longest + 1);
  Kokkos::parallel_for(
      "spk::row_length_histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        atomic_update_counter(&h(static_cast<long long>(rm(i + 1) - rm(i))), 1, false);
      });
  auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h);
  return std::vector<long long>(hh.data(), hh.data() + hh.extent(0));
}

/// HYB's ELL width from the row-length histogram (the rule of CUSP, Bell &
/// Garland): the largest w such that at least max(4096, m/3) rows (all rows
/// when there are fewer) have w or more entries, i.e. an ELL column is kept
/// while it is at least a third full, where ELL's coalesced loads beat
/// COO's ~3x more expensive entries.
inline long long hyb_width_from_histogram(const std::vector<long long>& hist, long long m) {
  const long long needed = std::min(m, std::max<long long>(4096, m / 3));
  long long at_least = m;  // rows with length >= w
  long long w = 0;
  for (long long l = 0; l + 1 < static_cast<long long>(hist.size()); ++l) {
    at_least -= hist[l];  // rows with length >= l + 1
    if (at_least < needed || at_least == 0) break;
    w = l + 1;
  }
  return w;
}

/// The ELL part of A: the first min(len, width) entries of every row.
template <class ExecSpace, class S, class O, class F, class D>
static EllMatrix<S, O, F, D> csr_to_ell(const ExecSpace& space, const CsrMatrix<S, O, F, D>& A,
                                        long long width) {
  using Ell = EllMatrix<S, O, F, D>;
  const long long m = A.num_rows();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  typename Ell::index_type cols(Kokkos::ViewAllocateWithoutInitializing("ell.col_idx"), m, width);
  typename Ell::values_type vals(Kokkos::ViewAllocateWithoutInitializing("ell.values"), m, width);
  long long kept = 0;
  Kokkos::parallel_reduce(
      "spk::csr_to_ell::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i, long long& count) {
        const long long b = rm(i), len = static_cast<long long>(rm(i + 1)) - b;
        const long long stop = len < width ? len : width;
        for (long long k = 0; k < stop; ++k) {
          cols(i, k) = ci(b + k);
          vals(i, k) = va(b + k);
        }
        for (long long k = stop; k < width; ++k) {
          cols(i, k) = O(-1);
          vals(i, k) = S(0);
        }
        count += stop;
      },
      kept);
  return Ell(A.num_rows(), A.num_cols(), static_cast<F>(kept), cols, vals);
}

/// The COO spill of A past `width` entries per row, in row order.
template <class ExecSpace, class S, class O, class F, class D>
static CooMatrix<S, O, F, D> csr_spill_to_coo(const ExecSpace& space,
                                              const CsrMatrix<S, O, F, D>& A, long long width) {
  using Coo = CooMatrix<S, O, F, D>;
  const long long m = A.num_rows();
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  Kokkos::View<F*, D> start("spk::csr_to_hyb::spill", m + 1);
  Kokkos::parallel_for(
      "spk::csr_to_hyb::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        const long long len = static_cast<long long>(rm(i + 1) - rm(i));
        start(i) = static_cast<F>(len > width ? len - width : 0);
      });
  const long long spill = exclusive_scan(space, start, m);
  Coo B("hyb.coo", A.num_rows(), A.num_cols(), static_cast<F>(spill));
  auto br = B.row_idx();
  auto bc = B.col_idx();
  auto bv = B.values();
  Kokkos::parallel_for(
      "spk::csr_to_hyb::spill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        F o = start(i);
        for (auto k = rm(i) + static_cast<F>(width); k < rm(i + 1); ++k, ++o) {
          br(o) = static_cast<O>(i);
          bc(o) = ci(k);
          bv(o) = va(k);
        }
      });
  return B;
}

/// The real entries of an ELL matrix as CSR (row order kept).
template <class ExecSpace, class S, class O, class F, class D>
static CsrMatrix<S, O, F, D> ell_to_csr(const ExecSpace& space, const EllMatrix<S, O, F, D>& A) {
  using Csr = CsrMatrix<S, O, F, D>;
  const long long m = A.num_rows(), w = A.width();
  auto ec = A.col_idx();
  auto ev = A.values();
  typename Csr::row_map_type row_map("spk::ell_to_csr::row_map", m + 1);
  Kokkos::parallel_for(
      "spk::ell_to_csr::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        long long len = 0;
        while (len < w && ec(i, len) >= 0) ++len;
        row_map(i) = static_cast<F>(len);
      });
  const long long total = exclusive_scan(space, row_map, m);
  Csr B(A.num_rows(), A.num_cols(), row_map,
        typename Csr::index_type(Kokkos::ViewAllocateWithoutInitializing("csr.col_idx"), total),
        typename Csr::values_type(Kokkos::ViewAllocateWithoutInitializing("csr.values"), total));
  auto cc = B.col_idx();
  auto cv = B.values();
  Kokkos::parallel_for(
      "spk::ell_to_csr::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        long long k = 0;
        for (auto q = row_map(i); q < row_map(i + 1); ++q, ++k) {
          cc(q) = ec(i, k);
          cv(q) = ev(i, k);
        }
      });
  return B;
}

/// ELL part and COO spill as one COO matrix (then sorted by coo_to_csr).
template <class ExecSpace, class S, class O, class F, class D>
static CooMatrix<S, O, F, D> ell_and_coo_to_coo(const ExecSpace& space,
                                                const EllMatrix<S, O, F, D>& E,
                                                const CooMatrix<S, O, F, D>& spill) {
  using Coo = CooMatrix<S, O, F, D>;
  const auto e = Impl::ell_to_csr(space, E);
  const long long ne = e.nnz(), ns = spill.nnz(), m = E.num_rows();
  Coo B("hyb.all", E.num_rows(), E.num_cols(), static_cast<F>(ne + ns));
  auto br = B.row_idx();
  auto bc = B.col_idx();
  auto bv = B.values();
  auto rm = e.row_map();
  auto ec = e.col_idx();
  auto ev = e.values();
  Kokkos::parallel_for(
      "spk::hyb_to_csr::ell", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const long long i) {
        for (auto k = rm(i); k < rm(i + 1); ++k) {
          br(k) = static_cast<O>(i);
          bc(k) = ec(k);
          bv(k) = ev(k);
        }
      });
  Kokkos::deep_copy(space, Kokkos::subview(br, std::make_pair(ne, ne + ns)), spill.row_idx());
  Kokkos::deep_copy(space, Kokkos::subview(bc, std::make_pair(ne, ne + ns)), spill.col_idx());
  Kokkos::deep_copy(space, Kokkos::subview(bv, std::make_pair(ne, ne + ns)), spill.values());
  return B;
}

}  // namespace spk::Impl
