// The one seam between the distributed layer and the single-node kernels:
// every local product of spk::dist goes through local_spmv and
// local_spgemm_symbolic / local_spgemm_numeric.  They call spk::spmv and
// spk::spgemm_symbolic / spgemm_numeric when those headers exist (once they
// are merged), and otherwise the simple, correct Kokkos kernels of this
// file.  -DSPK_DIST_OWN_LOCAL_KERNELS keeps the kernels of this file.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_convert_impl.hpp>
#include <impl/spk_segmented_sort.hpp>
#include <memory>
#include <spk_csr_matrix.hpp>

#if !defined(SPK_DIST_OWN_LOCAL_KERNELS) && __has_include(<spk_spmv.hpp>)
#include <spk_spmv.hpp>
#define SPK_DIST_USES_SPK_SPMV 1
#else
#define SPK_DIST_USES_SPK_SPMV 0
#endif
#if !defined(SPK_DIST_OWN_LOCAL_KERNELS) && __has_include(<spk_spgemm.hpp>)
#include <spk_spgemm.hpp>
#define SPK_DIST_USES_SPK_SPGEMM 1
#else
#define SPK_DIST_USES_SPK_SPGEMM 0
#endif

namespace spk::dist::Impl {

/// Which local kernels this build uses (for reports).
inline const char* local_kernels() {
  return SPK_DIST_USES_SPK_SPMV
             ? (SPK_DIST_USES_SPK_SPGEMM ? "spk::spmv, spk::spgemm" : "spk::spmv, own spgemm")
             : (SPK_DIST_USES_SPK_SPGEMM ? "own spmv, spk::spgemm" : "own spmv, own spgemm");
}

/// y := alpha·A·x + beta·y (beta == 0 overwrites y, NaNs included).
template <class ExecSpace, class S, class O, class F, class D, class X, class Y>
void local_spmv(const ExecSpace& space, S alpha, const CsrMatrix<S, O, F, D>& A, const X& x, S beta,
                const Y& y) {
#if SPK_DIST_USES_SPK_SPMV
  spk::spmv(space, alpha, A, x, beta, y);
#else
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
#endif
}

/// What local_spgemm_symbolic leaves for local_spgemm_numeric.
template <class O, class F, class D>
struct LocalSpgemmHandle {
  long long nnz = 0;
  long long products = 0;
#if SPK_DIST_USES_SPK_SPGEMM
  std::shared_ptr<spk::SpgemmHandle<O, F, D>> handle;
#endif
};

/// C's pattern of A·B (columns sorted, distinct); C's values are left
/// unset.  Products are gathered per row, sorted, and made unique.
template <class ExecSpace, class S, class O, class F, class D>
CsrMatrix<S, O, F, D> local_spgemm_symbolic(const ExecSpace& space, LocalSpgemmHandle<O, F, D>& h,
                                            const CsrMatrix<S, O, F, D>& A,
                                            const CsrMatrix<S, O, F, D>& B) {
  SPK_REQUIRE(A.num_cols() == B.num_rows(), ShapeMismatch, "spk::dist::local_spgemm: A is ",
              +A.num_rows(), "x", +A.num_cols(), ", B is ", +B.num_rows(), "x", +B.num_cols());
#if SPK_DIST_USES_SPK_SPGEMM
  // spk::spgemm fills C's columns in numeric, and the distributed symbolic
  // needs them (to split C), so numeric runs once here.  Sorted rows keep
  // the column order the same in every numeric call.
  spk::SpgemmOptions opt;
  opt.sort = spk::SpgemmSort::Sorted;
  opt.validate_inputs = false;  // built by this layer; B_ext's rows are unsorted
  h.handle = std::make_shared<spk::SpgemmHandle<O, F, D>>(opt);
  CsrMatrix<S, O, F, D> C;
  spk::spgemm_symbolic(space, *h.handle, A, B, C);
  spk::spgemm_numeric(space, *h.handle, A, B, C);
  h.nnz = C.nnz();
  h.products = static_cast<long long>(h.handle->products());
  return C;
#else
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
#endif
}

/// C's values from A's and B's current values (patterns as in symbolic).
template <class ExecSpace, class S, class O, class F, class D>
void local_spgemm_numeric(const ExecSpace& space, const LocalSpgemmHandle<O, F, D>& h,
                          const CsrMatrix<S, O, F, D>& A, const CsrMatrix<S, O, F, D>& B,
                          const CsrMatrix<S, O, F, D>& C) {
#if SPK_DIST_USES_SPK_SPGEMM
  CsrMatrix<S, O, F, D> c = C;  // a handle: shares C's Views
  spk::spgemm_numeric(space, *h.handle, A, B, c);
#else
  (void)h;
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
#endif
}

}  // namespace spk::dist::Impl
