#include "parallel/device_map.hpp"

#include "core/compat.hpp"
#include "core/environment.hpp"

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
  for (const char* var : {"KOKKOS_DEVICE_ID", "KOKKOS_NUM_DEVICES", "KOKKOS_MAP_DEVICE_ID_BY"})
    if (env::value(var))
      return {};
  const std::string flag = compat::device_per_rank_flag(mpi.local_rank());
  if (flag.empty())
    return {};
  return {flag};
#else
  (void)mpi;
  (void)kokkos_args;
  return {};
#endif
}

} // namespace miniapp::parallel
