// perf_spgemm's driver for Kokkos::complex<float> values (perf_spgemm_driver.hpp).
#define SPK_PERF_SPGEMM_SCALAR    Kokkos::complex<float>
#define SPK_PERF_SPGEMM_NAMESPACE spk_perf_spgemm_cfloat
#include "perf_spgemm_driver.hpp"
