#pragma once
// One GPU per rank: the Kokkos flags that map each rank of a node to its own device, unless the
// user (flags, already translated for the linked Kokkos by app/kokkos_launch.hpp, or KOKKOS_*
// environment) already chose one. Kokkos 4.x and newer map by the
// node-local MPI rank itself (--kokkos-map-device-id-by=mpi_rank); 3.4.01 is told the device
// explicitly
// (--kokkos-device-id=<local rank mod devices>). Host backends and single-rank runs get nothing.
#include "parallel/mpi_env.hpp"

#include <string>
#include <vector>

namespace miniapp::parallel {

std::vector<std::string> device_mapping_flags(const MpiEnv& mpi,
                                              const std::vector<std::string>& kokkos_args);

} // namespace miniapp::parallel
