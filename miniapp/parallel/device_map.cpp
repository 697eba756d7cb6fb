#include "parallel/device_map.hpp"

#include <Kokkos_Core.hpp> // KOKKOS_ENABLE_CUDA / _HIP, KOKKOS_VERSION

#include <cstdlib>

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION < 40000
#include <hip/hip_runtime_api.h>
#endif

namespace miniapp::parallel {

std::vector<std::string> device_mapping_flags(const MpiEnv& mpi,
                                              const std::vector<std::string>& kokkos_args) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  if (mpi.size() <= 1)
    return {};
  for (const char* chosen : {"--kokkos-device", "--kokkos-num-devices", "--kokkos-ndevices",
                             "--kokkos-map-device-id-by"})
    for (const auto& a : kokkos_args)
      if (a.rfind(chosen, 0) == 0)
        return {};
  for (const char* env : {"KOKKOS_DEVICE_ID", "KOKKOS_NUM_DEVICES", "KOKKOS_MAP_DEVICE_ID_BY"})
    if (std::getenv(env))
      return {};
#if KOKKOS_VERSION >= 40000
  return {"--kokkos-map-device-id-by=mpi_rank"};
#else
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess)
    count = 0;
#else
  if (hipGetDeviceCount(&count) != hipSuccess)
    count = 0;
#endif
  if (count > 0)
    return {"--kokkos-device-id=" + std::to_string(mpi.local_rank() % count)};
  return {};
#endif
#else
  (void)mpi;
  (void)kokkos_args;
  return {};
#endif
}

} // namespace miniapp::parallel
