#pragma once
// Dispatch from a backend's name to its Kokkos execution space, and from a precision to a type.
#include "core/backend_names.hpp"
#include "core/case.hpp"
#include "core/compat.hpp"
#include "core/text.hpp" // join

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace miniapp {

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
