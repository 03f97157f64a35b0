// GoogleTest main for the MPI tests: MPI and Kokkos around RUN_ALL_TESTS;
// only rank 0 prints, and every rank returns the worst result so that
// mpiexec reports a failure seen on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) {
    // Keep failures of other ranks visible, drop their progress lines.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (result != 0) std::fprintf(stderr, "[rank %d] some tests FAILED\n", rank);
  Kokkos::finalize();
  MPI_Finalize();
  return worst;
}
