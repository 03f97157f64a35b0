// spk: sparse linear algebra on Kokkos.  Include this for everything.
#pragma once

#include <spk_compat.hpp>
#include <spk_config.hpp>
#include <spk_convert.hpp>
#include <spk_coo_matrix.hpp>
#include <spk_csc_matrix.hpp>
#include <spk_csr_matrix.hpp>
#include <spk_device.hpp>
#include <spk_error.hpp>
#include <spk_execution_spaces.hpp>
#include <spk_generators.hpp>
#include <spk_instances.hpp>
#include <spk_load.hpp>
#include <spk_matrix_market.hpp>
#include <spk_memory_pool.hpp>
#include <spk_mirror.hpp>
#include <spk_settings.hpp>
#include <spk_spgemm.hpp>
#include <spk_spmv.hpp>
#include <spk_validate.hpp>
