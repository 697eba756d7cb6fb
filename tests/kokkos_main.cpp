// GoogleTest main for tests that need Kokkos (and MPI when built with it).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#ifdef MINIAPP_HAVE_MPI
#include <mpi.h>
#endif

int main(int argc, char** argv) {
#ifdef MINIAPP_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  // Listing tests (ctest discovery) must work on a build machine without the GPU.
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (!listing)
    Kokkos::initialize(argc, argv);
  const int rc = RUN_ALL_TESTS();
  if (!listing)
    Kokkos::finalize();
#ifdef MINIAPP_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}
