// perf_spgemm's driver for float values (perf_spgemm_driver.hpp).
#define SPK_PERF_SPGEMM_SCALAR    float
#define SPK_PERF_SPGEMM_NAMESPACE spk_perf_spgemm_float
#include "perf_spgemm_driver.hpp"
