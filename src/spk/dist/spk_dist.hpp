// spk::dist: the distributed (MPI) layer.  Needs MPI: link spk::mpi (built
// with -DSPK_ENABLE_MPI=ON), which defines SPK_HAVE_MPI.
#pragma once

#if !defined(SPK_HAVE_MPI)
#error "spk_dist.hpp needs MPI: link the spk::mpi target (configure with -DSPK_ENABLE_MPI=ON)"
#endif

#include <spk_dist_comm_plan.hpp>
#include <spk_dist_csr_matrix.hpp>
#include <spk_dist_layout.hpp>
#include <spk_dist_spgemm.hpp>
#include <spk_dist_spmv.hpp>
#include <spk_dist_vector.hpp>
