// perf_spmv --formats csr,ell,hyb,bsr:3,sell:32:256: spk's SpMV in each
// storage format beside the CSR rows, plus Kokkos Kernels' BsrMatrix SpMV
// (where the installed Kokkos Kernels has it) and, on CUDA, cuSPARSE's BSR,
// sliced ELL and COO.
//
// Every row's GB/s counts the CSR bytes (row_map + col_idx + values + x +
// y): padding and block fill are not useful bytes.  The conversion from CSR
// is timed apart (convert_ms, the second of two conversions) and the storage
// reported as stored_per_nnz.  "csr" in the list adds CSR's dynamic
// algorithm (the other CSR algorithms always run).
#pragma once

#include <spk_convert_format.hpp>
#include <spk_spmv.hpp>
#include <spk_spmv_bsr.hpp>
#include <spk_spmv_ell.hpp>
#include <spk_spmv_sell.hpp>
#include <string>
#include <utility>
#include <vector>

#if defined(SPK_HAVE_KOKKOSKERNELS) && __has_include(<KokkosSparse_BsrMatrix.hpp>)
#include <KokkosSparse_BsrMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#define SPK_PERF_KK_BSR 1
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cusparse.h>
#endif

namespace spk::perf {

using Numbers = std::vector<std::pair<std::string, double>>;

/// "csr,ell,bsr:3" -> specs (an empty list: none).
inline std::vector<FormatSpec> parse_format_list(const std::string& list) {
  std::vector<FormatSpec> specs;
  size_t b = 0;
  while (b < list.size()) {
    size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    if (e > b) specs.push_back(parse_format_spec(list.substr(b, e - b)));
    b = e + 1;
  }
  return specs;
}

#if defined(KOKKOS_ENABLE_CUDA)
inline void cusparse_check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE ") + what + ": " + cusparseGetErrorString(s));
}

/// Times cuSPARSE's generic SpMV on a matrix descriptor (y = A·x).
template <class Time, class X, class Y>
double cusparse_generic_spmv_ms(cusparseHandle_t h, cusparseSpMatDescr_t mat, const X& x,
                                const Y& y, cusparseSpMVAlg_t alg, Time&& time) {
  using MS = typename Y::memory_space;
  cusparseDnVecDescr_t vx, vy;
  cusparse_check(cusparseCreateDnVec(&vx, x.extent(0), x.data(), CUDA_R_64F), "dnvec x");
  cusparse_check(cusparseCreateDnVec(&vy, y.extent(0), y.data(), CUDA_R_64F), "dnvec y");
  const double one = 1, zero = 0;
  size_t size = 0;
  cusparse_check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero,
                                         vy, CUDA_R_64F, alg, &size),
                 "buffer size");
  Kokkos::View<char*, MS> buf("cusparse_buffer", std::max<size_t>(size, 1));
  const double ms = time([&] {
    cusparse_check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                CUDA_R_64F, alg, buf.data()),
                   "spmv");
  });
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  return ms;
}
#endif

/// Kokkos Kernels' BsrMatrix SpMV and cuSPARSE's bsrmv on the same blocks
/// (both need b to divide the dimensions: they have no padded blocks).
template <class ExecSpace, class Bsr, class X, class Y, class Time, class Poison, class Add>
void run_bsr_baselines(const ExecSpace& space, const Bsr& B, const X& x, const Y& y, Time&& time,
                       Poison&& poison, Add&& add, const std::string& name, const Numbers& nums) {
  const int b = B.block_size();
  if (B.num_rows() % b != 0 || B.num_cols() % b != 0) return;
  (void)space, (void)x, (void)y, (void)time, (void)poison, (void)add, (void)nums;
#if defined(SPK_PERF_KK_BSR)
  {
    using KB =
        KokkosSparse::Experimental::BsrMatrix<double, int, typename Bsr::device_type, void, int>;
    KB kB("kk_bsr", B.num_block_rows(), B.num_block_cols(), B.num_blocks(), B.values(), B.row_map(),
          B.col_idx(), b);
    poison();
    const double ms = time([&] { KokkosSparse::spmv("N", 1.0, kB, x, 0.0, y); });
    add("kokkoskernels-" + name, ms, true, "KokkosSparse BsrMatrix spmv", nums);
  }
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    cusparseHandle_t h;
    cusparse_check(cusparseCreate(&h), "create");
    cusparse_check(cusparseSetStream(h, space.cuda_stream()), "set stream");
    cusparseMatDescr_t descr;
    cusparse_check(cusparseCreateMatDescr(&descr), "mat descr");
    const double one = 1, zero = 0;
    poison();
    const double ms = time([&] {
      cusparse_check(cusparseDbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    B.num_block_rows(), B.num_block_cols(), B.num_blocks(), &one,
                                    descr, B.values().data(), B.row_map().data(),
                                    B.col_idx().data(), b, x.data(), &zero, y.data()),
                     "bsrmv");
    });
    add("cusparse-" + name, ms, true, "cusparseDbsrmv", nums);
    cusparseDestroyMatDescr(descr);
    cusparseDestroy(h);
  }
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
/// cuSPARSE's sliced ELL (no row sorting: σ = 1) with the slice height of
/// spec.
template <class ExecSpace, class Csr, class X, class Y, class Time, class Poison, class Add>
void run_cusparse_sliced_ell(const ExecSpace& space, const Csr& A, const FormatSpec& spec,
                             const X& x, const Y& y, Time&& time, Poison&& poison, Add&& add,
                             const std::string& name) {
#if CUSPARSE_VERSION >= 12100
  SellOptions o;
  o.slice_height = spec.slice_height;
  o.sigma = 1;
  o.spill_width = -1;  // cuSPARSE's format has no spill
  const auto S = csr_to_sell(space, A, o);
  cusparseHandle_t h;
  cusparse_check(cusparseCreate(&h), "create");
  cusparse_check(cusparseSetStream(h, space.cuda_stream()), "set stream");
  cusparseSpMatDescr_t mat;
  cusparse_check(cusparseCreateSlicedEll(
                     &mat, A.num_rows(), A.num_cols(), A.nnz(), S.values().extent(0),
                     S.slice_height(), const_cast<int*>(S.slice_ptr().data()),
                     const_cast<int*>(S.col_idx().data()), const_cast<double*>(S.values().data()),
                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                 "create sliced ell");
  poison();
  const double ms = cusparse_generic_spmv_ms(h, mat, x, y, CUSPARSE_SPMV_SELL_ALG1, time);
  add("cusparse-" + name, ms, true, "cusparse sliced ELL (sigma 1)",
      Numbers{{"stored_per_nnz", double(S.num_stored()) / std::max<double>(1, A.nnz())}});
  cusparseDestroySpMat(mat);
  cusparseDestroy(h);
#else
  (void)space, (void)A, (void)spec, (void)x, (void)y, (void)time, (void)poison, (void)add,
      (void)name;
#endif
}

/// cuSPARSE's COO SpMV on A's entries.
template <class ExecSpace, class Csr, class X, class Y, class Time, class Poison, class Add>
void run_cusparse_coo(const ExecSpace& space, const Csr& A, const X& x, const Y& y, Time&& time,
                      Poison&& poison, Add&& add) {
  const auto C = csr_to_coo(space, A);
  cusparseHandle_t h;
  cusparse_check(cusparseCreate(&h), "create");
  cusparse_check(cusparseSetStream(h, space.cuda_stream()), "set stream");
  cusparseSpMatDescr_t mat;
  cusparse_check(
      cusparseCreateCoo(&mat, A.num_rows(), A.num_cols(), A.nnz(),
                        const_cast<int*>(C.row_idx().data()), const_cast<int*>(C.col_idx().data()),
                        const_cast<double*>(C.values().data()), CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
      "create coo");
  poison();
  const double ms = cusparse_generic_spmv_ms(h, mat, x, y, CUSPARSE_SPMV_COO_ALG1, time);
  add("cusparse-coo", ms, true, "cusparse COO ALG1", Numbers{});
  cusparseDestroySpMat(mat);
  cusparseDestroy(h);
}
#endif

/// What --sweep 1 times each format's SpMV with besides the defaults (the
/// data behind the format entries of SpmvTuning and the conversions'
/// defaults).  SELL: spill pieces (a huge piece: a lane group per row) by
/// lanes a piece, and spill widths (the conversion redone).
template <class ExecSpace, class Csr, class M, class X, class Y, class Time, class Poison,
          class Add>
void sweep_format(const ExecSpace& space, const std::string& name, const Csr& A, const M& F,
                  const X& x, const Y& y, Time&& time, Poison&& poison, Add&& add,
                  const Numbers& nums) {
  const SpmvTuning base = spmv_tuning(space);
  auto timed = [&](const auto& matrix, const SpmvTuning& tuning, const std::string& suffix,
                   const int lanes = 0) {
    SpmvOptions o;
    o.tuning = tuning;
    o.vector_length = lanes;
    poison();
    const double ms = time([&] { spmv(space, 1.0, matrix, x, 0.0, y, o); });
    add("sweep-" + name + suffix, ms, true, name + suffix, nums);
  };
  // Lanes per row of the GPU row kernels (host spaces ignore them).
  if constexpr (!Impl::is_host_space_v<ExecSpace>)
    for (int lanes : {1, 2, 4, 8, 16}) timed(F, base, "-lanes" + std::to_string(lanes), lanes);
  if constexpr (std::is_same_v<M, SellMatrix<typename M::scalar_type, typename M::ordinal_type,
                                             typename M::offset_type, typename M::device_type>>) {
    for (long long c : {128LL, 512LL, 2048LL, 1LL << 40})
      for (int lanes : {8, 16, 32}) {
        SpmvTuning t = base;
        t.sell_spill_chunk_nnz = c;
        t.sell_spill_lanes = lanes;
        timed(F, t, "-spillchunk" + std::to_string(c) + "-lanes" + std::to_string(lanes));
      }
    for (long long w : {16, 32, 64, 128, 256}) {
      SellOptions o;
      o.slice_height = F.slice_height();
      o.sigma = F.sigma();
      o.spill_width = w;
      timed(csr_to_sell(space, A, o), base, "-spillwidth" + std::to_string(w));
    }
  }
}

/// Runs the formats on A (CSR on `space`, fp64 values, int indices);
/// `sweep` adds sweep_format's rows.
///   time(f)                          median ms of f() (synchronised)
///   poison()                         fills y with NaN
///   add(impl, ms, check, note, nums) records a row (check: compare y with
///                                    the serial loop)
template <class ExecSpace, class Csr, class X, class Y, class Time, class Poison, class Add>
void run_formats(const ExecSpace& space, const std::vector<FormatSpec>& formats, const Csr& A,
                 const X& x, const Y& y, Time&& time, Poison&& poison, Add&& add,
                 const bool sweep = false) {
  for (const auto& spec : formats) {
    const std::string name = to_string(spec);
    if (spec.format == SparseFormat::csr) {
      SpmvOptions o;
      o.algorithm = SpmvAlgorithm::Dynamic;
      SpmvPlan plan(space, A, o);
      poison();
      const double ms = time([&] { spmv(space, plan, 1.0, A, x, 0.0, y); });
      add("spk-dynamic", ms, true, "csr dynamic", Numbers{});
      continue;
    }
    try {
      with_format(space, A, spec, [](const auto&) {});  // first touch, allocations
      space.fence();
      Kokkos::Timer timer;
      with_format(space, A, spec, [&](const auto& M) {
        space.fence();
        const double convert_ms = timer.seconds() * 1e3;
        const Numbers nums{
            {"convert_ms", convert_ms},
            {"stored_per_nnz", double(stored_values(M)) / std::max<double>(1, A.nnz())}};
        poison();
        const double ms = time([&] { spmv(space, 1.0, M, x, 0.0, y); });
        add("spk-" + name, ms, true, name, nums);
        using M_t = std::decay_t<decltype(M)>;
        if (sweep) sweep_format(space, name, A, M, x, y, time, poison, add, nums);
        // The baselines below are written for double values.
        constexpr bool fp64 = std::is_same_v<typename Csr::scalar_type, double>;
        if constexpr (fp64 && std::is_same_v<M_t, BsrMatrix<typename Csr::scalar_type, int, int,
                                                            typename Csr::device_type>>) {
          run_bsr_baselines(space, M, x, y, time, poison, add, name, nums);
        }
#if defined(KOKKOS_ENABLE_CUDA)
        if constexpr (fp64 && std::is_same_v<ExecSpace, Kokkos::Cuda> &&
                      std::is_same_v<M_t, SellMatrix<typename Csr::scalar_type, int, int,
                                                     typename Csr::device_type>>)
          run_cusparse_sliced_ell(space, A, spec, x, y, time, poison, add, name);
        if constexpr (fp64 && std::is_same_v<ExecSpace, Kokkos::Cuda> &&
                      std::is_same_v<M_t, HybMatrix<typename Csr::scalar_type, int, int,
                                                    typename Csr::device_type>>)
          run_cusparse_coo(space, A, x, y, time, poison, add);
#endif
      });
    } catch (const std::exception& e) {
      add("spk-" + name, 0.0, false, std::string("skipped: ") + e.what(), Numbers{});
    }
  }
}

}  // namespace spk::perf
