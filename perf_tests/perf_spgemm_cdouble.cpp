// perf_spgemm's driver for Kokkos::complex<double> values (perf_spgemm_driver.hpp).
#define SPK_PERF_SPGEMM_SCALAR    Kokkos::complex<double>
#define SPK_PERF_SPGEMM_NAMESPACE spk_perf_spgemm_cdouble
#include "perf_spgemm_driver.hpp"
