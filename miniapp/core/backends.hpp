#pragma once
// Names of the Kokkos execution spaces compiled in, and dispatch from a name to a space.
#include "core/case.hpp"
#include "core/compat.hpp"
#include "core/text.hpp" // join

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

std::vector<std::string> compiled_backends(); // e.g. {"serial", "openmp"}
// Every backend a build may compile in (a config may name any; the plan refuses one not compiled).
const std::vector<std::string>& known_backends();
std::string default_backend();                        // the name of Kokkos' default execution space
std::string resolve_backend(const std::string& name); // "auto" -> default_backend()
// Whether the backend runs on a GPU (cuda, hip): kernel shapes, searches, the parallelism a run
// reports and a job's resources differ there.
bool is_gpu_backend(const std::string& backend);
// serial, openmp, threads, hpx: device memory is host memory there.
bool host_backend(const std::string& backend);

struct UnknownBackend : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class F>
decltype(auto) with_backend(const std::string& name, F&& f) {
#ifdef KOKKOS_ENABLE_SERIAL
  if (name == "serial")
    return f(Kokkos::Serial());
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (name == "openmp")
    return f(Kokkos::OpenMP());
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda")
    return f(Kokkos::Cuda());
#endif
#ifdef KOKKOS_ENABLE_HIP
  if (name == "hip")
    return f(compat::Hip());
#endif
  throw UnknownBackend("backend '" + name +
                       "' is not compiled in (compiled: " + join(compiled_backends(), ", ") + ")");
}

template <class F>
decltype(auto) with_precision(Precision p, F&& f) {
  switch (p) {
  case Precision::int32:
    return f(std::int32_t());
  case Precision::float32:
    return f(float());
  default:
    return f(double());
  }
}

} // namespace miniapp
