// libFuzzer target: generator specs (spk::generate, as every command that
// takes a matrix takes a spec) on arbitrary strings.
//
// The generator memory limit is set to 256 KiB, so specs are parsed and
// size-checked in full (overflow checks, type checks, the memory check) but
// only small matrices are built.  Oracles: every refusal is a spk::Error
// that quotes the spec; a built matrix is valid CSR (row map from 0 to nnz,
// columns in range, sorted and unique) of the shape the spec gives.
#include <spk_fuzz_common.hpp>
#include <spk_generators.hpp>
#include <spk_load.hpp>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spk_fuzz::initialize_kokkos();
  spk::Impl::generator_memory_limit() = 256 << 10;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size > 256) return 0;
  const std::string spec(spk_fuzz::as_text(data, size));
  (void)spk::is_generator_spec(spec);
  try {
    const auto A = spk::generate<double, int, int>(spec);
    SPK_FUZZ_CHECK(spk::is_generator_spec(spec), "'%s' built but is not a generator spec",
                   spec.c_str());
    SPK_FUZZ_CHECK(A.row_map()(0) == 0 && A.row_map()(A.num_rows()) == A.nnz(), "row map ends");
    for (int i = 0; i < A.num_rows(); ++i)
      for (int k = A.row_map()(i); k < A.row_map()(i + 1); ++k) {
        SPK_FUZZ_CHECK(A.col_idx()(k) >= 0 && A.col_idx()(k) < A.num_cols(), "column in range");
        SPK_FUZZ_CHECK(k == A.row_map()(i) || A.col_idx()(k - 1) < A.col_idx()(k),
                       "columns sorted and unique");
        SPK_FUZZ_CHECK(A.values()(k) != 0.0, "values nonzero");
      }
  } catch (const spk::Error& e) {
    SPK_FUZZ_CHECK(std::string(e.what()).find("'") != std::string::npos, "error quotes nothing: %s",
                   e.what());
  }
  return 0;
}
