// spk spmv A [-x X] -o Y [--space S] [--format F] [--algorithm NAME] [--transpose] [--repeat N]
//
// --format csr|ell[:W]|hyb[:W]|bsr:B|sell[:C[:SIGMA]] converts A on the device
// first (timed apart); --algorithm applies to csr.
// y = op(A)·x with spk::spmv; x is a Matrix Market file (array or
// coordinate, one column per right-hand side) or all ones; y is written as a
// Matrix Market array.
#include <cstdio>
#include <spk_commands.hpp>
#if defined(SPK_HAVE_MPI)
#include <spk_dist_cli.hpp>
#endif
#include <spk_convert_format.hpp>
#include <spk_spmv.hpp>
#include <spk_spmv_bsr.hpp>
#include <spk_spmv_ell.hpp>
#include <spk_spmv_sell.hpp>

namespace spk::cli {

int run_spmv(const std::vector<std::string>& args) {
#if defined(SPK_HAVE_MPI)
  // Under mpirun (or SPK_DIST=1) the distributed layer does the work.
  if (dist_requested()) return run_dist_spmv(args);
#endif
  const SpmvArgs args_in = parse_spmv_args(args);
  const std::string& a_path = args_in.a_path;
  const std::string& x_path = args_in.x_path;
  const std::string& y_path = args_in.y_path;
  const std::string& space_name = args_in.space_name;
  const SpmvOptions& opt = args_in.options;
  const FormatSpec& format = args_in.format;
  const int repeat = args_in.repeat;
  const auto hA = load_csr<double, int, int>(a_path);
  const bool t = opt.mode == Mode::Transpose;
  const long long n_in = t ? hA.num_rows() : hA.num_cols();
  Kokkos::View<double**, Kokkos::LayoutLeft, HostDevice> hx;
  if (x_path.empty()) {
    hx = decltype(hx)("x", n_in, 1);
    Kokkos::deep_copy(hx, 1.0);
  } else {
    // x's size line must match A before x's entries are parsed; A confirms
    // one column of that size (more right-hand sides need their entries).
    MatrixMarketReadOptions x_options;
    x_options.required_rows = n_in;
    hx = read_dense<double>(x_path, x_options);
  }
  return with_space(space_name, [&](auto space) {
    using E = decltype(space);
    using MS = typename E::memory_space;
    auto A = create_mirror_view_and_copy(space, hA);
    auto x = Kokkos::create_mirror_view_and_copy(MS(), hx);
    Kokkos::View<double**, Kokkos::LayoutLeft, MS> y("y", t ? hA.num_cols() : hA.num_rows(),
                                                     hx.extent(1));
    if (format.format != SparseFormat::csr) {
      Kokkos::Timer convert_timer;
      with_format(space, A, format, [&](const auto& M) {
        space.fence();
        const double convert_ms = convert_timer.seconds() * 1e3;
        Kokkos::Timer timer;
        for (int r = 0; r < repeat; ++r) spmv(space, 1.0, M, x, 0.0, y, opt);
        space.fence();
        const double ms = timer.seconds() * 1e3 / repeat;
        write_matrix_market_array(y_path, y);
        std::fprintf(stderr,
                     "spk spmv: %s is %d x %d, nnz %d; %zu right-hand side(s) on %s, format %s "
                     "(%zu stored values, conversion %.3f ms)%s: %.3f ms\n",
                     a_path.c_str(), hA.num_rows(), hA.num_cols(), hA.nnz(), hx.extent(1),
                     Impl::space_name<E>(), to_string(format).c_str(), stored_values(M), convert_ms,
                     t ? ", transposed" : "", ms);
      });
      return 0;
    }
    SpmvPlan plan(space, A, opt);
    Kokkos::Timer timer;
    for (int r = 0; r < repeat; ++r) spmv(space, plan, 1.0, A, x, 0.0, y, opt.mode);
    space.fence();
    const double ms = timer.seconds() * 1e3 / repeat;
    write_matrix_market_array(y_path, y);
    std::fprintf(
        stderr, "spk spmv: %s is %d x %d, nnz %d; %zu right-hand side(s) on %s, %s: %.3f ms\n",
        a_path.c_str(), hA.num_rows(), hA.num_cols(), hA.nnz(), hx.extent(1), Impl::space_name<E>(),
        t ? "transposed, scatter" : to_string(plan.algorithm()), ms);
    return 0;
  });
}

}  // namespace spk::cli
