// The distributed (MPI) paths of `spk spmv` and `spk spgemm`, for builds
// with SPK_ENABLE_MPI.  A command calls them when dist_requested():
//
//   #if defined(SPK_HAVE_MPI)
//     if (spk::cli::dist_requested()) return spk::cli::run_dist_spgemm(args);
//   #endif
#pragma once

#include <string>
#include <vector>

namespace spk::cli {

/// True when the process was started by mpirun/mpiexec with more than one
/// rank (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_SIZE), or when
/// SPK_DIST=1 forces the distributed path (also on one rank).
bool dist_requested();

// Both commands compute in the scalar the single-process commands pick
// (dispatch_scalar): complex<double> when a file's field is complex or a
// generator spec ends in values=complex, else double; --precision single
// gives complex<float> or float.  Rank 0 reads the files' headers for it.

/// spk spgemm A B [-o C.mtx] [--partition rows|nnz] [--space S]
/// [--precision P]: A and B are read by every rank (or by rank 0 and
/// scattered, see cmd_dist.cpp); C = A·B is computed distributed, gathered
/// and written by rank 0 (or summarised when no -o).
int run_dist_spgemm(const std::vector<std::string>& args);

/// spk spmv A [-x x.mtx] [-o y.mtx] [--repeat N] [--partition rows|nnz]
/// [--space S] [--precision P]: y = A·x (x all ones unless given as a
/// Matrix Market array), timed per phase; y is gathered and written by rank
/// 0 with -o.
int run_dist_spmv(const std::vector<std::string>& args);

}  // namespace spk::cli
