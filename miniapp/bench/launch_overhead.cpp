#include "bench/launch_overhead.hpp"

#include "core/backends.hpp"
#include "core/timing.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace miniapp {

namespace {
// All launches between two fences of the instance (core/timing.hpp), per launch.
template <class Exec>
double empty_launches(const Exec& exec, int launches) {
  return time_fenced([&] { exec.fence(); },
                     [&] {
                       for (int i = 0; i < launches; ++i)
                         Kokkos::parallel_for("miniapp::launch::empty",
                                              Kokkos::RangePolicy<Exec>(exec, 0, 1),
                                              KOKKOS_LAMBDA(const int){});
                     }) /
         launches;
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
__global__ void raw_empty_kernel() {}
#endif
} // namespace

double kokkos_empty_launch_seconds(const std::string& backend, int launches) {
  return with_backend(backend, [&](auto exec) { return empty_launches(exec, launches); });
}

bool raw_launch_available(const std::string& backend) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  return backend == "cuda";
#else
  (void)backend;
  return false;
#endif
}

double raw_empty_launch_seconds(int launches) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  cudaDeviceSynchronize();
  Kokkos::Timer t;
  for (int i = 0; i < launches; ++i)
    raw_empty_kernel<<<1, 1>>>();
  if (cudaDeviceSynchronize() != cudaSuccess)
    throw std::runtime_error("raw CUDA launch failed");
  return t.seconds() / launches;
#else
  (void)launches;
  throw std::runtime_error("raw launches exist only in CUDA builds");
#endif
}

} // namespace miniapp
