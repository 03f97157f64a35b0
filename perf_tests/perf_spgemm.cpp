// perf_spgemm: C = A·A (A·Aᵀ for rectangular A), int32 indices, values
// double unless --scalar picks float, cfloat (Kokkos::complex<float>) or
// cdouble (the generators' values=complex of the matrix read), side by side in one
// run: spk (two-phase, fresh handle each time, and numeric reuse), spk's
// one-call spk::spgemm (spk-onecall: a fused single pass on host spaces; and
// spk-onecall-unsorted, rows left unsorted as Kokkos Kernels leaves them), Kokkos
// Kernels SPGEMM_KK, cuSPARSE cusparseSpGEMM (CUDA; cusparse-spgemm with
// cudaMalloc/cudaFree, the reference of speedup_vs_cusparse, and
// cusparse-spgemm-pooled with CUDA's default stream-ordered pool keeping
// freed memory, as spk's pool does), the serial reference and the
// historical baselines (CSR×CSC dot products, dense output) where they fit.
// Prints a table and writes JSON records (one per matrix and impl).
//
//   perf_spgemm [MATRIX|SPEC|DIR ...] [--corpus small|default|full] [--quick]
//               [--space serial|openmp|cuda] [--repeat N] [--warmup N]
//               [--json FILE] [--no-baselines] [--check] [--kernels] [--trace]
//               [--long-row-split=auto|off|force] [--scalar float|double|cfloat|cdouble]
// (the common perf options, spk_perf_common.hpp).  No matrix: the corpus
// (docs/benchmarks.md), generated matrices plus the real ones of
// $SPK_MATRIX_DIR.  ap:agg|sa:SPEC runs A·P and ptap:agg|sa:SPEC Pᵀ·(A·P),
// P the (smoothed) aggregation prolongator of SPEC: AMG setup's products.
// Before each implementation runs, its memory (C bounded by the product
// count per row, cuSPARSE's buffers by the products) is compared with what
// the space has free; what would not fit is a skipped row.  Each result is
// released before the next implementation runs.  --check compares each spk
// C with the serial reference as it comes (exit code 2 on a mismatch).
// Diagnosis, each on one extra product reported in the spk record's note:
// --kernels fences and times every kernel by label, --trace records the
// host timeline (launches, waits, copies) without adding fences.
//
// Times are medians over the repeats after warm-up: symbolic, numeric and
// total (ms = total, including C's and all buffers' allocation).  GFLOP/s =
// 2·products / total.  peak_bytes: the largest amount of device memory the
// product held at once beyond its inputs (C included), from Kokkos's
// allocation hooks (spk, Kokkos Kernels; spk's pooled temporaries report
// through the same hooks, spk_memory_pool.hpp) or from the cudaMalloc calls
// (cuSPARSE).  SPK_MEMORY_POOL=0 in the environment turns spk's pool off
// (temporaries and C then come from Kokkos).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <spk_perf_common.hpp>
#include <string>
#include <vector>

// One driver per scalar type (perf_spgemm_<scalar>.cpp).
namespace spk_perf_spgemm_float {
int driver_main(int argc, char* argv[]);
}
namespace spk_perf_spgemm_double {
int driver_main(int argc, char* argv[]);
}
namespace spk_perf_spgemm_cfloat {
int driver_main(int argc, char* argv[]);
}
namespace spk_perf_spgemm_cdouble {
int driver_main(int argc, char* argv[]);
}

int main(int argc, char* argv[]) {
#if KOKKOS_VERSION >= 40000
  // The callbacks below (memory tracking, --kernels, --trace) need no fence
  // around each kernel, which Kokkos adds for tools unless they say so at
  // initialisation: --trace must see the launches as they are.
  Kokkos::Tools::Experimental::set_request_tool_settings_callback(
      [](const std::uint32_t, Kokkos::Tools::Experimental::ToolSettings* s) {
        s->requires_global_fencing = false;
      });
#endif
  spk::perf::set_thread_placement();
  Kokkos::initialize(argc, argv);  // takes Kokkos' own arguments out of argv
  // --scalar NAME or --scalar=NAME picks the driver (which skips it).
  std::string scalar = "double";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scalar" && i + 1 < argc)
      scalar = argv[i + 1];
    else if (a.rfind("--scalar=", 0) == 0)
      scalar = a.substr(9);
    args.push_back(argv[i]);
  }
  auto* driver = scalar == "float"     ? &spk_perf_spgemm_float::driver_main
                 : scalar == "double"  ? &spk_perf_spgemm_double::driver_main
                 : scalar == "cfloat"  ? &spk_perf_spgemm_cfloat::driver_main
                 : scalar == "cdouble" ? &spk_perf_spgemm_cdouble::driver_main
                                       : nullptr;
  if (driver == nullptr) {
    std::fprintf(stderr, "perf_spgemm: --scalar '%s' is not float, double, cfloat or cdouble\n",
                 scalar.c_str());
    Kokkos::finalize();
    return 2;
  }
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  const int rc = driver(n, args.data());
  Kokkos::finalize();
  return rc;
}
