// Distributed vectors are plain Kokkos Views of each rank's entries (laid
// out by a RowLayout); these are the collective operations on them.
#pragma once

#include <Kokkos_Core.hpp>
#include <impl/spk_dist_vector_ops.hpp>
#include <spk_dist_layout.hpp>
#include <vector>

namespace spk::dist {

/// Global dot product Σ x_i·y_i (local reduction, then MPI_Allreduce).
template <class ExecSpace, class X, class Y>
double dot(const ExecSpace& space, MPI_Comm comm, const X& x, const Y& y) {
  SPK_REQUIRE(x.extent(0) == y.extent(0), ShapeMismatch, "spk::dist::dot: ", x.extent(0), " vs ",
              y.extent(0), " local entries");
  return Impl::allreduce_sum(comm, Impl::local_dot(space, x, y));
}

/// Rank root's global vector (ignored elsewhere) cut by layout into each
/// rank's host vector.  Collective.
template <class T>
std::vector<T> scatter_vector(const RowLayout& layout, const std::vector<T>& global, int root = 0) {
  const int p = layout.num_ranks();
  std::vector<int> counts(p), displs(p);
  for (int r = 0; r < p; ++r) {
    counts[r] = Impl::mpi_count(layout.size_of(r) * sizeof(T), "a vector scatter");
    displs[r] = Impl::mpi_count(layout.offset(r) * sizeof(T), "a vector offset");
  }
  if (layout.rank() == root)
    SPK_REQUIRE(static_cast<long long>(global.size()) == layout.global_size(), ShapeMismatch,
                "spk::dist::scatter_vector: vector has ", global.size(), " entries, layout ",
                layout.global_size());
  std::vector<T> mine(layout.local_size());
  SPK_MPI(MPI_Scatterv(global.data(), counts.data(), displs.data(), MPI_BYTE, mine.data(),
                       counts[layout.rank()], MPI_BYTE, root, layout.comm()));
  return mine;
}

/// The global vector on root (empty elsewhere).  Collective.
template <class T>
std::vector<T> gather_vector(const RowLayout& layout, const std::vector<T>& mine, int root = 0) {
  const int p = layout.num_ranks();
  std::vector<int> counts(p), displs(p);
  for (int r = 0; r < p; ++r) {
    counts[r] = Impl::mpi_count(layout.size_of(r) * sizeof(T), "a vector gather");
    displs[r] = Impl::mpi_count(layout.offset(r) * sizeof(T), "a vector offset");
  }
  SPK_REQUIRE(static_cast<long long>(mine.size()) == layout.local_size(), ShapeMismatch,
              "spk::dist::gather_vector: rank ", layout.rank(), " has ", mine.size(),
              " entries, layout ", layout.local_size());
  std::vector<T> global(layout.rank() == root ? layout.global_size() : 0);
  SPK_MPI(MPI_Gatherv(mine.data(), counts[layout.rank()], MPI_BYTE, global.data(), counts.data(),
                      displs.data(), MPI_BYTE, root, layout.comm()));
  return global;
}

}  // namespace spk::dist
