// The one seam between the distributed layer and the single-node kernels:
// every local product of spk::dist goes through local_spmv and
// local_spgemm_symbolic / local_spgemm_numeric.  Until spk::spmv and
// spk::spgemm are on main these are simple, correct Kokkos kernels of this
// file; switching means changing only the bodies below.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_segmented_sort.hpp>
#include <spk_csr_matrix.hpp>

namespace spk::dist::Impl {

/// y := alpha·A·x + beta·y (beta == 0 overwrites y, NaNs included).
template <class ExecSpace, class S, class O, class F, class D, class X, class Y>
void local_spmv(const ExecSpace& space, S alpha, const CsrMatrix<S, O, F, D>& A, const X& x, S beta,
                const Y& y) {
  const O n = A.num_rows();
  if (n == 0) return;
  auto rm = A.row_map();
  auto ci = A.col_idx();
  auto va = A.values();
  if constexpr (spk::Impl::is_host_space_v<ExecSpace>) {
    Kokkos::parallel_for(
        "spk::dist::local_spmv", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(const O i) {
          S sum = 0;
          for (F k = rm(i); k < rm(i + 1); ++k) sum += va(k) * x(ci(k));
          y(i) = beta == S(0) ? alpha * sum : beta * y(i) + alpha * sum;
        });
  } else {
    // One row per vector group of 8 lanes, 16 rows per team of 128 threads.
    constexpr int vec = 8, rows_per_team = 16;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int teams = static_cast<int>((n + rows_per_team - 1) / rows_per_team);
    Kokkos::parallel_for(
        "spk::dist::local_spmv", Policy(space, teams, rows_per_team, vec),
        KOKKOS_LAMBDA(const typename Policy::member_type& t) {
          const O i = static_cast<O>(t.league_rank()) * rows_per_team + t.team_rank();
          if (i >= n) return;
          S sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(t, rm(i + 1) - rm(i)),
              [&](const F k, S& s) { s += va(rm(i) + k) * x(ci(rm(i) + k)); }, sum);
          Kokkos::single(Kokkos::PerThread(t),
                         [&] { y(i) = beta == S(0) ? alpha * sum : beta * y(i) + alpha * sum; });
        });
  }
}

/// What local_spgemm_symbolic leaves for local_spgemm_numeric.
template <class F, class D>
struct LocalSpgemmHandle {
  long long nnz = 0;
  long long products = 0;
};

/// C's pattern of A·B (columns sorted, distinct); C's values are left
/// unset.  Products are gathered per row, sorted, and made unique.
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> local_spgemm_symbolic(const ExecSpace& space, LocalSpgemmHandle<F, D>& h,
                                            const CsrMatrix<S, O, F, D>& A,
                                            const CsrMatrix<S, O, F, D>& B) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::local_spgemm: A is ",
              +A.num_rows(), "x", +A.num_cols(), ", B is ", +B.num_rows(), "x", +B.num_cols());
  const O m = A.num_rows();
  using RM = Kokkos::View<long long*, D>;
  RM ub("spk::dist::spgemm::ub", m + 1);
  auto arm = A.row_map();
  auto aci = A.col_idx();
  auto brm = B.row_map();
  auto bci = B.col_idx();
  Kokkos::parallel_scan(
      "spk::dist::spgemm::count", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i, long long& upd, const bool final) {
        long long c = 0;
        for (F k = arm(i); k < arm(i + 1); ++k) c += brm(aci(k) + 1) - brm(aci(k));
        if (final) ub(i + 1) = upd + c;
        upd += c;
      },
      h.products);
  Kokkos::View<O*, D> tmp(Kokkos::ViewAllocateWithoutInitializing("spk::dist::spgemm::tmp"),
                          h.products);
  Kokkos::View<long long*, D> perm(Kokkos::ViewAllocateWithoutInitializing("spk::dist::spgemm::p"),
                                   h.products);
  Kokkos::parallel_for(
      "spk::dist::spgemm::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i) {
        long long p = ub(i);
        for (F k = arm(i); k < arm(i + 1); ++k)
          for (F l = brm(aci(k)); l < brm(aci(k) + 1); ++l) {
            tmp(p) = bci(l);
            perm(p) = p;
            ++p;
          }
      });
  spk::Impl::segmented_sort(space, ub, m, perm, spk::Impl::KeyThenIndexLess<decltype(tmp)>{tmp});
  typename CsrMatrix<S, O, F, D>::row_map_type rm("spk::dist::spgemm::row_map", m + 1);
  long long nnz = 0;
  Kokkos::parallel_scan(
      "spk::dist::spgemm::unique", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i, long long& upd, const bool final) {
        long long c = 0;
        for (long long p = ub(i); p < ub(i + 1); ++p)
          c += p == ub(i) || tmp(perm(p)) != tmp(perm(p - 1));
        if (final) rm(i + 1) = static_cast<F>(upd + c);
        upd += c;
      },
      nnz);
  SPK_REQUIRE(nnz <= static_cast<long long>(std::numeric_limits<F>::max()), Overflow,
              "spk::dist::local_spgemm: nnz(C) = ", nnz, " does not fit the offset type");
  h.nnz = nnz;
  CsrMatrix<S, O, F, D> C(
      m, B.num_cols(), rm,
      Kokkos::View<O*, D>(Kokkos::ViewAllocateWithoutInitializing("C.col_idx"), nnz),
      Kokkos::View<S*, D>(Kokkos::ViewAllocateWithoutInitializing("C.values"), nnz));
  auto cci = C.col_idx();
  Kokkos::parallel_for(
      "spk::dist::spgemm::write", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i) {
        F q = rm(i);
        for (long long p = ub(i); p < ub(i + 1); ++p)
          if (p == ub(i) || tmp(perm(p)) != tmp(perm(p - 1))) cci(q++) = tmp(perm(p));
      });
  space.fence();
  return C;
}

/// C's values from A's and B's current values (patterns as in symbolic).
template <class ExecSpace, class S, class O, class F, class D>
void local_spgemm_numeric(const ExecSpace& space, const LocalSpgemmHandle<F, D>&,
                          const CsrMatrix<S, O, F, D>& A, const CsrMatrix<S, O, F, D>& B,
                          const CsrMatrix<S, O, F, D>& C) {
  const O m = A.num_rows();
  auto arm = A.row_map();
  auto aci = A.col_idx();
  auto ava = A.values();
  auto brm = B.row_map();
  auto bci = B.col_idx();
  auto bva = B.values();
  auto crm = C.row_map();
  auto cci = C.col_idx();
  auto cva = C.values();
  Kokkos::parallel_for(
      "spk::dist::spgemm::numeric", Kokkos::RangePolicy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const O i) {
        const F b = crm(i), e = crm(i + 1);
        for (F q = b; q < e; ++q) cva(q) = S(0);
        for (F k = arm(i); k < arm(i + 1); ++k) {
          const S a = ava(k);
          for (F l = brm(aci(k)); l < brm(aci(k) + 1); ++l) {
            const O c = bci(l);
            F lo = b, hi = e;  // C's row is sorted: binary search
            while (lo < hi) {
              const F mid = lo + (hi - lo) / 2;
              if (cci(mid) < c)
                lo = mid + 1;
              else
                hi = mid;
            }
            cva(lo) += a * bva(l);
          }
        }
      });
  space.fence();
}

}  // namespace spk::dist::Impl
