// spk_dist: the distributed subcommands on their own, until `spk spmv` and
// `spk spgemm` call them (see spk_dist_cli.hpp):
//   mpirun -np P spk_dist spgemm A.mtx B.mtx -o C.mtx
//   mpirun -np P spk_dist spmv A.mtx [-x x.mtx] [-o y.mtx]
#include <spk_commands.hpp>
#include <spk_dist_cli.hpp>

int main(int argc, char* argv[]) {
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || (args[0] != "spmv" && args[0] != "spgemm")) {
    std::cerr << "usage: spk_dist spgemm A B [-o C.mtx] [--partition rows|nnz] [--space S]\n"
                 "       spk_dist spmv A [-x x.mtx] [-o y.mtx] [--repeat N] [--partition rows|nnz] "
                 "[--space S]\n";
    return 2;
  }
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
      rc = args[0] == "spmv" ? spk::cli::run_dist_spmv(rest) : spk::cli::run_dist_spgemm(rest);
    } catch (const spk::cli::UsageError& e) {
      std::cerr << "spk_dist " << args[0] << ": " << e.what() << "\n";
      rc = 2;
    } catch (const std::exception& e) {
      std::cerr << "spk_dist " << args[0] << ": error: " << e.what() << "\n";
      rc = 1;
    }
  }
  return rc;  // MPI is finalised at exit (cmd_dist.cpp)
}
