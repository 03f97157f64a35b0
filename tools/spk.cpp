// spk: command-line front end of the library.  `spk --help` lists the
// subcommands; errors go to stderr with a non-zero exit code.
#include <spk_commands.hpp>

namespace {

void usage(std::ostream& out) {
  out << "usage: spk <command> [arguments]\n\ncommands:\n";
  for (const auto& c : spk::cli::commands()) out << "  spk " << c.synopsis << "\n";
  out << "\nA matrix argument is a Matrix Market file (.mtx or .mtx.gz) or a generator spec\n"
         "(see spk_generators.hpp), one of:\n";
  // generator_specs() separates the specs by two spaces: one a line here.
  const std::string specs = spk::generator_specs();
  for (size_t b = 0, e; b < specs.size(); b = e + 2) {
    e = std::min(specs.find("  ", b), specs.size());
    out << "  " << specs.substr(b, e - b) << "\n";
  }
  out << "A spec ending in :values=complex gives complex values (docs/scalars.md).\n"
         "Every command computes in the field of its files: complex<double> when one is\n"
         "complex, else double; --precision single|double (P) picks float or double, and\n"
         "complex<float> or complex<double> for complex files.  Under mpirun, spmv and\n"
         "spgemm run distributed, in the same scalar types.\n"
         "Kokkos options (--kokkos-num-threads=N, ...) are accepted everywhere.\n";
}

}  // namespace

int main(int argc, char* argv[]) {
  // Thread placement for OpenMP builds, unless the user chose one.
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "spk " << SPK_VERSION_STRING << " (Kokkos " << KOKKOS_VERSION / 10000 << "."
              << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100
              << ", spaces:" << spk::cli::enabled_spaces() << ")\n";
    return 0;
  }
  for (const auto& c : spk::cli::commands()) {
    if (args[0] != c.name) continue;
    try {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const spk::cli::UsageError& e) {
      std::cerr << "spk " << c.name << ": " << e.what() << "\nusage: spk " << c.synopsis << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "spk " << c.name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "spk: unknown command '" << args[0] << "'\n\n";
  usage(std::cerr);
  return 2;
}
