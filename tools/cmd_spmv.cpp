// spk spmv A [-x X] -o Y [--space S] [--format F] [--algorithm NAME] [--transpose |
// --conjugate-transpose] [--repeat N]
//          [--precision single|double] [--check]
//
// --format csr|ell[:W]|hyb[:W]|bsr:B|sell[:C[:SIGMA]] converts A on the device
// first (timed apart); --algorithm applies to csr.
// y = op(A)·x with spk::spmv; x is a Matrix Market file (array or
// coordinate, one column per right-hand side) or all ones; y is written as a
// Matrix Market array.  The product runs in complex<double> when A or x is
// complex, else in double (float and complex<float> with --precision
// single); --check compares y with the serial reference.
#include <cstdio>
#include <spk_commands.hpp>
#if defined(SPK_HAVE_MPI)
#include <spk_dist_cli.hpp>
#endif
#include <spk_convert_format.hpp>
#include <spk_reference_spmv.hpp>
#include <spk_spmv.hpp>
#include <spk_spmv_bsr.hpp>
#include <spk_spmv_ell.hpp>
#include <spk_spmv_sell.hpp>

namespace spk::cli {
namespace {

template <class S>
using HostDense = Kokkos::View<S**, Kokkos::LayoutLeft, HostDevice>;

/// Compares y with the serial reference y = op(A)·x; returns the exit code.
template <class S>
int check_against_reference(const CsrMatrix<S, int, int, HostDevice>& A, const HostDense<S>& x,
                            const HostDense<S>& y, Mode mode) {
  HostDense<S> want("y_reference", y.extent(0), y.extent(1));
  reference::spmv(S(1), A, x, S(0), want, mode);
  long long bad = 0;
  for (size_t j = 0; j < y.extent(1); ++j)
    for (size_t i = 0; i < y.extent(0); ++i) bad += !close_to_reference(y(i, j), want(i, j));
  if (bad != 0) {
    std::fprintf(stderr, "check: y differs from the serial reference in %lld of %zu entries\n", bad,
                 y.size());
    return 1;
  }
  std::printf("check: y matches the serial reference (%s, relative tolerance %.3g)\n",
              scalar_name<S>(), check_tolerance<S>());
  return 0;
}

template <class S>
int spmv_in(const SpmvArgs& args, MatrixArgument& a, MatrixArgument* x_file) {
  const std::string& a_path = args.a_path;
  const SpmvOptions& opt = args.options;
  const FormatSpec& format = args.format;
  const int repeat = args.repeat;
  const auto hA = load_matrix<S, int, int>(a);
  const bool t = is_transposed(opt.mode);
  const long long n_in = t ? hA.num_rows() : hA.num_cols();
  HostDense<S> hx;
  if (!x_file) {
    hx = HostDense<S>("x", n_in, 1);
    Kokkos::deep_copy(hx, S(1));
  } else {
    // x's size line must match A before x's entries are parsed; A confirms
    // one column of that size (more right-hand sides need their entries).
    MatrixMarketReadOptions x_options;
    x_options.required_rows = n_in;
    hx = Impl::dense_from_text<S>(x_file->name, x_file->text, x_options);
  }
  return with_space(args.space_name, [&](auto space) {
    using E = decltype(space);
    using MS = typename E::memory_space;
    auto A = create_mirror_view_and_copy(space, hA);
    auto x = Kokkos::create_mirror_view_and_copy(MS(), hx);
    Kokkos::View<S**, Kokkos::LayoutLeft, MS> y("y", t ? hA.num_cols() : hA.num_rows(),
                                                hx.extent(1));
    // Writes y and, with --check, compares it with the reference.
    auto finish = [&] {
      write_matrix_market_array(args.y_path, y);
      if (!args.check) return 0;
      return check_against_reference<S>(
          hA, hx, Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y), opt.mode);
    };
    if (format.format != SparseFormat::csr) {
      int rc = 0;
      Kokkos::Timer convert_timer;
      with_format(space, A, format, [&](const auto& M) {
        space.fence();
        const double convert_ms = convert_timer.seconds() * 1e3;
        Kokkos::Timer timer;
        for (int r = 0; r < repeat; ++r) spmv(space, S(1), M, x, S(0), y, opt);
        space.fence();
        const double ms = timer.seconds() * 1e3 / repeat;
        std::fprintf(stderr,
                     "spk spmv: %s is %d x %d, nnz %d; %zu right-hand side(s) in %s on %s, "
                     "format %s (%zu stored values, conversion %.3f ms)%s: %.3f ms\n",
                     a_path.c_str(), hA.num_rows(), hA.num_cols(), hA.nnz(), hx.extent(1),
                     scalar_name<S>(), Impl::space_name<E>(), to_string(format).c_str(),
                     stored_values(M), convert_ms, t ? ", transposed" : "", ms);
        rc = finish();
      });
      return rc;
    }
    SpmvPlan plan(space, A, opt);
    Kokkos::Timer timer;
    for (int r = 0; r < repeat; ++r) spmv(space, plan, S(1), A, x, S(0), y, opt.mode);
    space.fence();
    const double ms = timer.seconds() * 1e3 / repeat;
    std::fprintf(stderr,
                 "spk spmv: %s is %d x %d, nnz %d; %zu right-hand side(s) in %s on %s, %s: %.3f "
                 "ms\n",
                 a_path.c_str(), hA.num_rows(), hA.num_cols(), hA.nnz(), hx.extent(1),
                 scalar_name<S>(), Impl::space_name<E>(),
                 t ? "transposed, scatter" : to_string(plan.algorithm()), ms);
    return finish();
  });
}

}  // namespace

int run_spmv(const std::vector<std::string>& args) {
#if defined(SPK_HAVE_MPI)
  // Under mpirun (or SPK_DIST=1) the distributed layer does the work.
  if (dist_requested()) return run_dist_spmv(args);
#endif
  const SpmvArgs parsed = parse_spmv_args(args);
  MatrixArgument a = open_matrix(parsed.a_path);
  MatrixArgument x;
  if (!parsed.x_path.empty()) x = open_matrix_file(parsed.x_path);
  MatrixArgument* x_file = parsed.x_path.empty() ? nullptr : &x;
  const bool complex = is_complex(a) || (x_file && is_complex(x));
  return dispatch_scalar(complex, parsed.precision,
                         [&](auto zero) { return spmv_in<decltype(zero)>(parsed, a, x_file); });
}

}  // namespace spk::cli
