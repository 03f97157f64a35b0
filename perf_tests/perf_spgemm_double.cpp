// perf_spgemm's driver for double values (perf_spgemm_driver.hpp).
#define SPK_PERF_SPGEMM_SCALAR    double
#define SPK_PERF_SPGEMM_NAMESPACE spk_perf_spgemm_double
#include "perf_spgemm_driver.hpp"
