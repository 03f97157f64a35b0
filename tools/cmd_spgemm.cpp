// spk spgemm A B -o C [--space serial|openmp|cuda] [--check] [--unsorted]
//                       [--precision single|double]
//
// C = A·B in complex<double> when A or B is complex, else in double (float
// and complex<float> with --precision single).
#include <chrono>
#include <cmath>
#include <spk_commands.hpp>
#if defined(SPK_HAVE_MPI)
#include <spk_dist_cli.hpp>
#endif
#include <spk_reference_spgemm.hpp>
#include <spk_spgemm.hpp>

namespace spk::cli {

namespace {

template <class S>
using HostMatrix = CsrMatrix<S, int, long long, HostDevice>;

/// Number of entries where C and the reference disagree (pattern exactly,
/// values within check_tolerance<S>() relative); -1 when the shapes or nnz
/// differ.
template <class S>
long long count_mismatches(const HostMatrix<S>& C, const HostMatrix<S>& R) {
  if (C.num_rows() != R.num_rows() || C.num_cols() != R.num_cols() || C.nnz() != R.nnz()) return -1;
  long long bad = 0;
  for (int i = 0; i <= C.num_rows(); ++i) bad += C.row_map()(i) != R.row_map()(i);
  for (long long k = 0; k < C.nnz(); ++k)
    bad += C.col_idx()(k) != R.col_idx()(k) || !close_to_reference(C.values()(k), R.values()(k));
  return bad;
}

template <class S>
int spgemm_in(const SpgemmArgs& args, MatrixArgument& a, MatrixArgument& b) {
  const auto t0 = std::chrono::steady_clock::now();
  const HostMatrix<S> A_h = load_matrix<S, int, long long>(a);
  const HostMatrix<S> B_h = load_matrix<S, int, long long>(b);
  const double read_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return with_space(args.space_name, [&](auto space) {
    using ExecSpace = decltype(space);
    SpgemmOptions options;
    options.time_phases = true;
    options.sort = args.unsorted ? SpgemmSort::Unsorted : SpgemmSort::Sorted;
    auto A = create_mirror_view_and_copy(space, A_h);
    auto B = create_mirror_view_and_copy(space, B_h);
    SpgemmHandle<int, long long, ExecSpace> handle(options);
    CsrMatrix<S, int, long long, ExecSpace> C;
    const auto t1 = std::chrono::steady_clock::now();
    spgemm_symbolic(space, handle, A, B, C);
    spgemm_numeric(space, handle, A, B, C);
    const double total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    const HostMatrix<S> C_h = create_mirror_view_and_copy_host(C);
    std::printf("A: %d x %d, %lld nnz   B: %d x %d, %lld nnz   (read in %.1f ms)\n", A_h.num_rows(),
                A_h.num_cols(), A_h.nnz(), B_h.num_rows(), B_h.num_cols(), B_h.nnz(), read_ms);
    std::printf("C: %d x %d, %lld nnz, %llu products, %s, space %s\n", C_h.num_rows(),
                C_h.num_cols(), C_h.nnz(), static_cast<unsigned long long>(handle.products()),
                scalar_name<S>(), Impl::space_name<ExecSpace>());
    for (const auto& [phase, ms] : handle.phase_times())
      std::printf("  %-24s %10.3f ms\n", phase.c_str(), ms);
    std::printf("  %-24s %10.3f ms  (%.2f GFLOP/s)\n", "total", total_ms,
                2.0 * double(handle.products()) / (total_ms * 1e6));
    write_matrix_market(args.out, C_h);
    if (args.check) {
      const long long bad = count_mismatches(C_h, reference::spgemm(A_h, B_h));
      if (bad != 0) {
        std::fprintf(stderr, "check: C differs from the serial reference (%s)\n",
                     bad < 0 ? "shape or nnz" : (std::to_string(bad) + " entries").c_str());
        return 1;
      }
      std::printf("check: C matches the serial reference (%s, relative tolerance %.3g)\n",
                  scalar_name<S>(), check_tolerance<S>());
    }
    return 0;
  });
}

}  // namespace

int run_spgemm(const std::vector<std::string>& args) {
#if defined(SPK_HAVE_MPI)
  // Under mpirun (or SPK_DIST=1) the distributed layer does the work.
  if (dist_requested()) return run_dist_spgemm(args);
#endif
  const SpgemmArgs parsed = parse_spgemm_args(args);
  MatrixArgument a = open_matrix(parsed.inputs[0]);
  MatrixArgument b = open_matrix(parsed.inputs[1]);
  return dispatch_scalar(is_complex(a) || is_complex(b), parsed.precision,
                         [&](auto zero) { return spgemm_in<decltype(zero)>(parsed, a, b); });
}

}  // namespace spk::cli
