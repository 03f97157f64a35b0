// Sparse matrix × dense vector(s): y := α·op(A)·x + β·y.
//
//   spk::spmv(space, alpha, A, x, beta, y, options)   // the full form
//   spk::spmv(space, plan, alpha, A, x, beta, y)      // repeated products, see SpmvPlan
//   spk::spmv(alpha, A, x, beta, y, options)          // A's execution space
//   spk::spmv(A, x, y, options)                       // α = 1, β = 0
//
// A is a CsrMatrix, CscMatrix or CooMatrix; op(A) is A, Aᵀ or Aᴴ
// (options.mode).  Scalars: A, x and y may hold different precisions, and a
// real A may multiply complex vectors; the product is summed in
// mixed_scalar_t (the widest precision, complex if any is) and rounded once
// into y, which must be complex when A or x is (spk_scalar_traits.hpp).
// x and y are rank-1 Views, or rank-2 Views with one column per right-hand
// side.  β = 0 overwrites y without reading it (NaN in y is ignored); α = 0
// only scales y.  CSR products pick an algorithm (SpmvAlgorithm); transposed
// CSR, CSC and COO products scatter with atomics, where algorithm is unused.
// `Dynamic` hands rows out through an atomic counter (LightSpMV); a plan keeps
// the counter.  Without a plan, `Auto` sees only the mean row length (no extra pass);
// with one it also knows the longest row and the spread.  The rule and its
// per-backend constants are in spk_spmv_tuning.hpp (options.tuning overrides).
#pragma once

#include <impl/spk_spmv_kernels.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_error.hpp>
#include <spk_spmv_plan.hpp>
#include <type_traits>
#include <vector>

namespace spk {
namespace Impl {

template <class T>
inline constexpr bool is_csr_v = false;
template <class S, class O, class F, class D>
inline constexpr bool is_csr_v<CsrMatrix<S, O, F, D>> = true;
template <class T>
inline constexpr bool is_csc_v = false;
template <class S, class O, class F, class D>
inline constexpr bool is_csc_v<CscMatrix<S, O, F, D>> = true;

template <class T>
struct is_spmv_matrix : std::false_type {};
template <class S, class O, class F, class D>
struct is_spmv_matrix<CsrMatrix<S, O, F, D>> : std::true_type {};
template <class S, class O, class F, class D>
struct is_spmv_matrix<CscMatrix<S, O, F, D>> : std::true_type {};
template <class S, class O, class F, class D>
struct is_spmv_matrix<CooMatrix<S, O, F, D>> : std::true_type {};

template <class ExecSpace, class Matrix, class X, class Y>
void spmv_check(const Matrix& A, const X& x, const Y& y, Mode mode) {
  static_assert(Kokkos::is_view<X>::value && Kokkos::is_view<Y>::value,
                "spk::spmv: x and y must be Kokkos::Views");
  static_assert(static_cast<int>(X::rank) == static_cast<int>(Y::rank) &&
                    (static_cast<int>(X::rank) == 1 || static_cast<int>(X::rank) == 2),
                "spk::spmv: x and y must both be rank-1 or both rank-2 Views");
  static_assert(std::is_same_v<typename Y::value_type, typename Y::non_const_value_type>,
                "spk::spmv: y must be a View of non-const values");
  static_assert(
      is_complex_v<typename Y::value_type> ||
          !(is_complex_v<typename Matrix::scalar_type> || is_complex_v<typename X::value_type>),
      "spk::spmv: y must hold complex values when A or x does");
  static_assert(is_accessible_v<ExecSpace, typename Matrix::memory_space>,
                "spk::spmv: the execution space cannot access the matrix's memory space "
                "(copy it with spk::create_mirror_view_and_copy(space, A))");
  static_assert(is_accessible_v<ExecSpace, typename X::memory_space>,
                "spk::spmv: the execution space cannot access x's memory space "
                "(copy it with Kokkos::create_mirror_view_and_copy)");
  static_assert(is_accessible_v<ExecSpace, typename Y::memory_space>,
                "spk::spmv: the execution space cannot access y's memory space "
                "(copy it with Kokkos::create_mirror_view_and_copy)");
  const bool t = is_transposed(mode);
  const long long in = t ? A.num_rows() : A.num_cols();
  const long long out = t ? A.num_cols() : A.num_rows();
  const char* op = mode == Mode::ConjugateTranspose ? "A^H" : t ? "A^T" : "A";
  SPK_REQUIRE(static_cast<long long>(x.extent(0)) == in, ShapeMismatch, "spk::spmv: ", op, " is ",
              out, " x ", in, " (A is ", +A.num_rows(), " x ", +A.num_cols(), ") but x ",
              x.label().empty() ? "" : "'", x.label(), x.label().empty() ? "" : "' ", "has ",
              x.extent(0), " rows");
  SPK_REQUIRE(static_cast<long long>(y.extent(0)) == out, ShapeMismatch, "spk::spmv: ", op, " is ",
              out, " x ", in, " (A is ", +A.num_rows(), " x ", +A.num_cols(), ") but y ",
              y.label().empty() ? "" : "'", y.label(), y.label().empty() ? "" : "' ", "has ",
              y.extent(0), " rows");
  if constexpr (static_cast<int>(X::rank) == 2) {
    SPK_REQUIRE(x.extent(1) == y.extent(1), ShapeMismatch, "spk::spmv: x has ", x.extent(1),
                " columns (right-hand sides) but y has ", y.extent(1));
  }
}

/// x with read-only random access (texture-cache loads on CUDA).
template <class X>
auto spmv_random_access(const X& x) {
  using RA =
      Kokkos::View<typename X::const_data_type, typename X::array_layout, typename X::device_type,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  return RA(x);
}

template <class RowMap, class Cols, class Vals, class X, class Y>
auto spmv_data(const RowMap& rm, const Cols& c, const Vals& v, const X& x, const Y& y,
               typename Y::non_const_value_type alpha, typename Y::non_const_value_type beta,
               long long num_rows, bool conj = false) {
  auto xr = spmv_random_access(x);
  using D = SpmvCsrData<RowMap, Cols, Vals, decltype(xr), Y>;
  using S = typename D::S;
  return D{rm,       c,           v,   xr, y, scalar_cast<S>(alpha), scalar_cast<S>(beta),
           num_rows, num_vecs(y), conj};
}

/// The launch of a product without a plan.  On GPUs `automatic` reads the
/// longest row first (one reduction and a synchronisation, about 10 us):
/// on the mean alone, the per-row kernel took an arrow matrix's dense rows
/// one thread each (arrow:2909091:4 ran 0.24 s on an H200, merge path
/// 0.32 ms).  The rows' spread stays unknown (taken as regular); a plan
/// measures it.
template <class ExecSpace, class RowMap>
SpmvLaunch spmv_choose_without_plan(const ExecSpace& space, const SpmvOptions& opt,
                                    const SpmvRowStats& cheap, const RowMap& rm,
                                    long long num_rows) {
  if constexpr (!is_host_space_v<ExecSpace>) {
    if (opt.algorithm == SpmvAlgorithm::Auto && num_rows > 0) {
      SpmvRowStats s = cheap;
      s.max_length = spmv_max_row_length(space, rm, num_rows);
      s.stddev = 0;
      return spmv_choose(space, opt, s, true);
    }
  }
  return spmv_choose(space, opt, cheap, false);
}

/// The CSR-shaped product, normal or scatter (transpose) form; `conj`
/// conjugates A's values.
template <class ExecSpace, class RowMap, class Cols, class Vals, class X, class Y, class Plan>
void spmv_csr_shaped(const ExecSpace& space, Plan* plan, const SpmvOptions& opt,
                     const SpmvRowStats& cheap, bool scatter, bool conj, long long nnz,
                     typename Y::non_const_value_type alpha, const RowMap& rm, const Cols& c,
                     const Vals& v, const X& x, typename Y::non_const_value_type beta, const Y& y,
                     long long num_rows) {
  using S = typename Y::non_const_value_type;
  if (y.extent(0) == 0 || num_vecs(y) == 0) return;
  if (alpha == S(0) || nnz == 0) {
    spmv_scale(space, y, beta);
    return;
  }
  auto d = spmv_data(rm, c, v, x, y, alpha, beta, num_rows, conj);
  if (scatter) {
    spmv_scale(space, y, beta);
    spmv_csr_scatter(space, d);
    return;
  }
  // Merge-path carries hold partial sums, in the accumulation type.
  using CV = Kokkos::View<typename decltype(d)::S**, Kokkos::LayoutLeft, typename Y::memory_space>;
  using CR = Kokkos::View<typename Cols::non_const_value_type*, typename Y::memory_space>;
  if constexpr (!std::is_same_v<Plan, void>) {
    if (plan != nullptr) {
      CV vals;
      CR rows;
      if (plan->algorithm() == SpmvAlgorithm::Dynamic) {
        spmv_csr_dynamic(space, plan->launch(), d, plan->dynamic_counter());
        return;
      }
      if (plan->algorithm() == SpmvAlgorithm::MergePath) {
        // The plan keeps carries of A's scalar type; products that sum in
        // another type (mixed precision) allocate theirs per call.
        if constexpr (std::is_same_v<typename Plan::scalar_type, typename CV::value_type>)
          vals = plan->carry_values(num_vecs(y));
        rows = plan->carry_rows();
      }
      // Split rows' pieces add into y with atomics: where y is narrower than
      // the sum (double A, float y) the row kernel keeps them whole, so that
      // y is still rounded once.
      using D = decltype(d);
      constexpr bool y_holds_sums = std::is_same_v<typename D::YS, typename D::S>;
      const SpmvLaunch& L = plan->launch();
      if (y_holds_sums && L.split_rows > 0) d.split_row_min = L.split_row_min;
      spmv_csr_launch(space, L, d, nnz, rows, vals, CR(plan->segment_rows()));
      if constexpr (y_holds_sums)
        spmv_split_pieces_launch(space, L, d, plan->split_rows(), plan->split_piece_starts());
      return;
    }
  }
  if (opt.long_rows == SpmvLongRows::Split)
    throw Error(
        "spmv: long_rows = split needs an SpmvPlan (the plan keeps the list of split rows)");
  SpmvLaunch L = spmv_choose_without_plan(space, opt, cheap, rm, num_rows);
  if constexpr (is_host_space_v<ExecSpace>) {
    if (opt.algorithm == SpmvAlgorithm::Auto) {
      // No statistics, but the row blocks cost a few binary searches here:
      // take them when they are balanced (as SpmvPlan does).
      std::vector<typename Cols::non_const_value_type> blocks(L.row_blocks + 1);
      const CR starts(blocks.data(), blocks.size());
      space.fence();
      if (spmv_host_row_blocks(rm, num_rows, nnz, L.row_blocks, starts) <=
          spmv_tuning_for(space, opt).host_block_imbalance_max) {
        L.algorithm = SpmvAlgorithm::Scalar;
        spmv_csr_launch(space, L, d, nnz, CR(), CV(), starts);
        return;
      }
    }
  }
  spmv_csr_launch(space, L, d, nnz, CR(), CV(), CR());
}

/// When `scatters` and y is narrower than the accumulation type, runs the
/// product through a temporary of that type (spmv_through_accumulator) and
/// returns true; otherwise returns false and the caller runs it in y.
template <class ExecSpace, class Matrix, class X, class Y>
bool spmv_scatter_via_accumulator(const ExecSpace& space, typename Y::non_const_value_type alpha,
                                  const Matrix& A, const X& x,
                                  typename Y::non_const_value_type beta, const Y& y,
                                  const SpmvOptions& options, bool scatters) {
  using YS = typename Y::non_const_value_type;
  using S = mixed_scalar_t<typename Matrix::scalar_type, typename X::non_const_value_type, YS>;
  if constexpr (spmv_scatter_needs_accumulator_v<S, YS>) {
    if (scatters && y.extent(0) > 0) {
      spmv_through_accumulator<S>(space, alpha, beta, y, [&](S a, const auto& w) {
        spmv(space, a, A, x, S(0), w, options);
      });
      return true;
    }
  }
  return false;
}

}  // namespace Impl

/// y := α·op(A)·x + β·y on `space` (see the top of this file).
template <class ExecSpace, class Matrix, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Impl::is_spmv_matrix<Matrix>::value>>
void spmv(const ExecSpace& space, typename Y::non_const_value_type alpha, const Matrix& A,
          const X& x, typename Y::non_const_value_type beta, const Y& y,
          const SpmvOptions& options = {}) {
  Impl::spmv_check<ExecSpace>(A, x, y, options.mode);
  const bool t = is_transposed(options.mode);
  const bool conj = options.mode == Mode::ConjugateTranspose;
  // CSR scatters for Aᵀ and Aᴴ, CSC for A, COO always.
  const bool scatters = Impl::is_csr_v<Matrix> ? t : Impl::is_csc_v<Matrix> ? !t : true;
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, options, scatters)) return;
  if constexpr (std::is_same_v<
                    Matrix,
                    CsrMatrix<typename Matrix::scalar_type, typename Matrix::ordinal_type,
                              typename Matrix::offset_type, typename Matrix::device_type>>) {
    Impl::spmv_csr_shaped<ExecSpace>(
        space, static_cast<SpmvPlan<Matrix>*>(nullptr), options, Impl::spmv_cheap_stats(A), t, conj,
        A.nnz(), alpha, A.row_map(), A.col_idx(), A.values(), x, beta, y, A.num_rows());
  } else if constexpr (std::is_same_v<
                           Matrix,
                           CscMatrix<typename Matrix::scalar_type, typename Matrix::ordinal_type,
                                     typename Matrix::offset_type, typename Matrix::device_type>>) {
    // A CSC matrix is the CSR form of Aᵀ: Aᵀx runs the row kernels, Ax scatters.
    SpmvRowStats cheap;
    cheap.num_rows = A.num_cols();
    cheap.nnz = A.nnz();
    cheap.mean = A.num_cols() > 0 ? double(A.nnz()) / A.num_cols() : 0.0;
    cheap.max_length = A.nnz();
    Impl::spmv_csr_shaped<ExecSpace>(
        space,
        static_cast<
            SpmvPlan<CsrMatrix<typename Matrix::scalar_type, typename Matrix::ordinal_type,
                               typename Matrix::offset_type, typename Matrix::device_type>>*>(
            nullptr),
        options, cheap, !t, conj, A.nnz(), alpha, A.col_map(), A.row_idx(), A.values(), x, beta, y,
        A.num_cols());
  } else {
    using S = typename Y::non_const_value_type;
    if (y.extent(0) == 0 || Impl::num_vecs(y) == 0) return;
    Impl::spmv_scale(space, y, beta);
    if (alpha == S(0) || A.nnz() == 0) return;
    auto xr = Impl::spmv_random_access(x);
    if (t)
      Impl::spmv_coo(space, A.col_idx(), A.row_idx(), A.values(), xr, y, alpha, conj);
    else
      Impl::spmv_coo(space, A.row_idx(), A.col_idx(), A.values(), xr, y, alpha, false);
  }
}

/// y := α·op(A)·x + β·y with a plan made for A (no synchronisation, no
/// allocation after the first call).  The plan's options choose the
/// algorithm; mode picks A or Aᵀ (Aᵀ scatters and ignores the plan).
template <class ExecSpace, class Matrix, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmv(const ExecSpace& space, SpmvPlan<Matrix>& plan, typename Y::non_const_value_type alpha,
          const Matrix& A, const X& x, typename Y::non_const_value_type beta, const Y& y,
          Mode mode = Mode::Normal) {
  Impl::spmv_check<ExecSpace>(A, x, y, mode);
  SpmvOptions scatter_options = plan.options();
  scatter_options.mode = mode;
  if (Impl::spmv_scatter_via_accumulator(space, alpha, A, x, beta, y, scatter_options,
                                         is_transposed(mode)))
    return;
  plan.prepare(space, A, plan.options());
  Impl::spmv_csr_shaped<ExecSpace>(space, &plan, plan.options(), plan.stats(), is_transposed(mode),
                                   mode == Mode::ConjugateTranspose, A.nnz(), alpha, A.row_map(),
                                   A.col_idx(), A.values(), x, beta, y, A.num_rows());
}

/// In A's execution space.
template <class Matrix, class X, class Y,
          class = std::enable_if_t<Impl::is_spmv_matrix<Matrix>::value>>
void spmv(typename Y::non_const_value_type alpha, const Matrix& A, const X& x,
          typename Y::non_const_value_type beta, const Y& y, const SpmvOptions& options = {}) {
  spmv(typename Matrix::execution_space(), alpha, A, x, beta, y, options);
}

/// y := op(A)·x in A's execution space.
template <
    class Matrix, class X, class Y,
    class = std::enable_if_t<Impl::is_spmv_matrix<Matrix>::value && Kokkos::is_view<X>::value>>
void spmv(const Matrix& A, const X& x, const Y& y, const SpmvOptions& options = {}) {
  using S = typename Y::non_const_value_type;
  spmv(typename Matrix::execution_space(), S(1), A, x, S(0), y, options);
}

/// y := op(A)·x on `space`.
template <class ExecSpace, class Matrix, class X, class Y,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value &&
                                   Impl::is_spmv_matrix<Matrix>::value>>
void spmv(const ExecSpace& space, const Matrix& A, const X& x, const Y& y,
          const SpmvOptions& options = {}) {
  using S = typename Y::non_const_value_type;
  spmv(space, S(1), A, x, S(0), y, options);
}

}  // namespace spk
