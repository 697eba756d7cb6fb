# The bounds-check build (preset boundscheck, docs/testing.md): Kokkos built with
# Kokkos_ENABLE_DEBUG_BOUNDS_CHECK, plus a death test proving an out-of-bounds View access aborts,
# so that the kernel tests of this build cannot silently run unchecked.
if(MINIAPP_KOKKOS_BOUNDS_CHECK AND MINIAPP_ENABLE_TESTS)
  add_subdirectory(tests/bounds)
endif()
