// GoogleTest main for tests that need Kokkos. It does not start MPI: no unit test makes an MPI
// call (a single rank needs none, as `miniapp run` outside mpiexec makes none:
// parallel/mpi_env.hpp), and a singleton MPI_Init costs 0.5 s a test process here, 6-11 s under
// AddressSanitizer, whose slow unwinder must walk Open MPI's thousands of start-up allocations.
// The multi-rank paths are tested under mpiexec (label mpi).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Listing tests (ctest discovery) must work on a build machine without the GPU.
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (!listing)
    Kokkos::initialize(argc, argv);
  const int rc = RUN_ALL_TESTS();
  if (!listing)
    Kokkos::finalize();
  return rc;
}
