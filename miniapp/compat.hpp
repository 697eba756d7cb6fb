#pragma once
// The one place where Kokkos 3.4.01 and Kokkos 4.x/5.x differ for this project.
#include <Kokkos_Core.hpp>

#include <string>

#ifndef KOKKOS_VERSION
#error "Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

namespace miniapp::compat {

inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION; // e.g. 30401, 40700, 50000
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

// Scoped Kokkos Tools region: ScopedRegion exists only from 4.x; push/pop works everywhere.
class ScopedRegion {
public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

// concurrency() became an instance member in 4.x (the static one is deprecated).
template <class ExecSpace>
int concurrency(const ExecSpace& space) {
#if KOKKOS_VERSION >= 40000
  return space.concurrency();
#else
  (void)space;
  return ExecSpace::concurrency();
#endif
}

} // namespace miniapp::compat
