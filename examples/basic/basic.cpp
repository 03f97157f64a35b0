// The smallest useful spk program: read (or generate) a matrix, move it to
// the default execution space, convert it, and check the result.
//
//   spk_example_basic [MATRIX.mtx[.gz] | SPEC]      (default: poisson2d:64)
#include <cstdio>
#include <spk.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string what = argc > 1 ? argv[1] : "poisson2d:64";
  try {
    // Host CSR from a file or a generator, then a copy in Space's memory.
    const auto host = spk::load_csr<double>(what);
    const auto A = spk::create_mirror_view_and_copy(Space(), host);
    spk::validate(Space(), A);

    // CSR -> COO -> CSR and CSR -> CSC -> CSR must give A back.
    const auto B = spk::coo_to_csr(Space(), spk::csr_to_coo(Space(), A));
    const auto C = spk::csc_to_csr(Space(), spk::csr_to_csc(Space(), A));
    const auto Bh = spk::create_mirror_view_and_copy_host(B);
    const auto Ch = spk::create_mirror_view_and_copy_host(C);
    long long mismatches = 0;
    for (long long k = 0; k < host.nnz(); ++k)
      mismatches += Bh.col_idx()(k) != host.col_idx()(k) || Ch.values()(k) != host.values()(k);
    std::printf("%s: %d x %d, %lld nonzeros on %s; round trips %s\n", what.c_str(), A.num_rows(),
                A.num_cols(), static_cast<long long>(A.nnz()), Space::name(),
                mismatches == 0 ? "exact" : "WRONG");
    return mismatches == 0 ? 0 : 1;
  } catch (const spk::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
